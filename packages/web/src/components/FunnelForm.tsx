import type { InsightQuery } from "../api.js"
import type { DraftFormProps } from "../insightDraft.js"
import { fields, list, oneOf, text, type Fields } from "../queryFields.js"
import { type DateFrom, DateRangeChoice, dateFromOf } from "./DateRangeChoice.js"
import { type BreakdownDraft, BreakdownFields, breakdownDraft } from "./BreakdownFields.js"
import { Choice, Field } from "./Field.js"
import { type Interval, IntervalChoice, intervalOf } from "./IntervalChoice.js"
import { ItemList } from "./ItemList.js"

// The funnel part of the insight builder: ordered steps, the conversion window, the order type,
// and what to show (the steps, the time to convert, or the conversion rate by interval).

const ORDERS = {
  ordered: "In order (other events between)",
  strict: "Strictly in order (nothing between)",
  unordered: "In any order"
} as const

const VIZ = { steps: "Steps", time_to_convert: "Time to convert", trends: "Conversion over time" } as const

const UNITS = { minute: "Minutes", hour: "Hours", day: "Days", week: "Weeks", month: "Months" } as const

export interface FunnelDraft extends BreakdownDraft {
  readonly steps: ReadonlyArray<string>
  readonly window: string
  readonly unit: keyof typeof UNITS
  readonly order: keyof typeof ORDERS
  readonly dateFrom: DateFrom
  readonly viz: keyof typeof VIZ
  /** The intervals conversion over time is counted in. */
  readonly interval: Interval
}

export const INITIAL_FUNNEL: FunnelDraft = {
  steps: ["$pageview", ""],
  window: "14",
  unit: "day",
  order: "ordered",
  dateFrom: "-7d",
  breakdown: "",
  breakdownType: "event",
  viz: "steps",
  interval: "day"
}

/** A funnel needs two named steps and a whole, positive window. */
export const funnelComplete = (draft: FunnelDraft) =>
  draft.steps.length >= 2 && draft.steps.every((step) => step.trim() !== "") && /^[1-9]\d*$/.test(draft.window)

/** The draft as PostHog's `InsightVizNode` around a `FunnelsQuery`. */
export const funnelsQuery = (draft: FunnelDraft): InsightQuery => ({
  kind: "InsightVizNode",
  source: {
    kind: "FunnelsQuery",
    series: draft.steps.map((step) => ({ kind: "EventsNode", event: step.trim(), name: step.trim() })),
    dateRange: { date_from: draft.dateFrom },
    ...(draft.viz === "trends" ? { interval: draft.interval } : {}),
    funnelsFilter: {
      funnelOrderType: draft.order,
      funnelWindowInterval: Number(draft.window),
      funnelWindowIntervalUnit: draft.unit,
      funnelVizType: draft.viz
    },
    ...(draft.breakdown.trim()
      ? { breakdownFilter: { breakdown_type: draft.breakdownType, breakdown: draft.breakdown.trim() } }
      : {})
  }
})

/** A stored `FunnelsQuery` as the funnel builder edits it. */
export const funnelDraft = (source: Fields): FunnelDraft => {
  const funnel = fields(source["funnelsFilter"])
  return {
    steps: list(source["series"]).map((step) => text(fields(step)["event"])),
    window: text(funnel["funnelWindowInterval"]),
    unit: oneOf(funnel["funnelWindowIntervalUnit"], UNITS, "day"),
    order: oneOf(funnel["funnelOrderType"], ORDERS, "ordered"),
    dateFrom: dateFromOf(source["dateRange"]),
    ...breakdownDraft(source),
    viz: oneOf(funnel["funnelVizType"], VIZ, "steps"),
    interval: intervalOf(source["interval"])
  }
}

/** The funnel's steps, conversion window, order and date range. */
export const FunnelForm = ({ draft, onChange }: DraftFormProps<FunnelDraft>) => (
  <>
    <ItemList
      legend="Steps"
      noun="step"
      items={draft.steps}
      min={2}
      blank=""
      onChange={(steps) => onChange({ ...draft, steps })}
    >
      {(step, i, set) => <Field label={`Step ${i + 1}`} value={step} onChange={set} placeholder="signed_up" required />}
    </ItemList>
    <div className="toolbar">
      <Field
        label="Conversion window"
        type="number"
        min={1}
        value={draft.window}
        onChange={(window) => onChange({ ...draft, window })}
        required
      />
      <Choice
        label="Window unit"
        value={draft.unit}
        options={UNITS}
        onChange={(unit) => onChange({ ...draft, unit })}
      />
      <Choice label="Order" value={draft.order} options={ORDERS} onChange={(order) => onChange({ ...draft, order })} />
      <DateRangeChoice value={draft.dateFrom} onChange={(dateFrom) => onChange({ ...draft, dateFrom })} />
    </div>
    <div className="toolbar">
      <BreakdownFields draft={draft} onChange={onChange} />
      <Choice label="Show" value={draft.viz} options={VIZ} onChange={(viz) => onChange({ ...draft, viz })} />
      {draft.viz === "trends" && (
        <IntervalChoice value={draft.interval} onChange={(interval) => onChange({ ...draft, interval })} />
      )}
    </div>
  </>
)
