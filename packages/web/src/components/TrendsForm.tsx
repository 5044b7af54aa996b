import type { InsightQuery } from "../api.js"
import type { DraftFormProps } from "../insightDraft.js"
import { type DateFrom, DateRangeChoice } from "./DateRangeChoice.js"
import { Choice, Field } from "./Field.js"
import { ItemList } from "./ItemList.js"

// The trends part of the insight builder: its draft, the query node it makes, and its form.

const MATHS = {
  total: "Total count",
  dau: "Unique users",
  sum: "Property sum",
  avg: "Property average"
} as const
type Math = keyof typeof MATHS

const INTERVALS = { hour: "Hour", day: "Day", week: "Week", month: "Month" } as const

const DISPLAYS = {
  ActionsLineGraph: "Line",
  ActionsBar: "Bar",
  BoldNumber: "Number",
  ActionsTable: "Table"
} as const

interface SeriesDraft {
  readonly event: string
  readonly math: Math
  readonly property: string
}

const BLANK_SERIES: SeriesDraft = { event: "", math: "total", property: "" }

export interface TrendsDraft {
  readonly series: ReadonlyArray<SeriesDraft>
  readonly breakdown: string
  readonly interval: keyof typeof INTERVALS
  readonly dateFrom: DateFrom
  readonly display: keyof typeof DISPLAYS
}

export const INITIAL_TRENDS: TrendsDraft = {
  series: [{ event: "$pageview", math: "total", property: "" }],
  breakdown: "",
  interval: "day",
  dateFrom: "-7d",
  display: "ActionsLineGraph"
}

/** The draft as PostHog's `InsightVizNode` around a `TrendsQuery`. */
export const trendsQuery = (draft: TrendsDraft): InsightQuery => ({
  kind: "InsightVizNode",
  source: {
    kind: "TrendsQuery",
    series: draft.series.map((series) => ({
      kind: "EventsNode",
      event: series.event.trim() || null,
      name: series.event.trim() || "All events",
      math: series.math,
      ...(series.math === "sum" || series.math === "avg" ? { math_property: series.property.trim() } : {})
    })),
    interval: draft.interval,
    dateRange: { date_from: draft.dateFrom },
    trendsFilter: { display: draft.display },
    ...(draft.breakdown.trim()
      ? { breakdownFilter: { breakdown_type: "event", breakdown: draft.breakdown.trim() } }
      : {})
  }
})

/** A property-math series without its property cannot be computed yet. */
export const trendsComplete = (draft: TrendsDraft) =>
  draft.series.every((series) => (series.math !== "sum" && series.math !== "avg") || series.property.trim() !== "")

/** The trend's series, breakdown, interval, date range and display. */
export const TrendsForm = ({ draft, onChange }: DraftFormProps<TrendsDraft>) => (
  <>
    <ItemList
      legend="Series"
      noun="series"
      items={draft.series}
      min={1}
      blank={BLANK_SERIES}
      onChange={(series) => onChange({ ...draft, series })}
    >
      {(series, i, set) => (
        <>
          <Field
            label={`Event ${i + 1}`}
            value={series.event}
            onChange={(event) => set({ ...series, event })}
            placeholder="All events"
          />
          <Choice
            label={`Math ${i + 1}`}
            value={series.math}
            options={MATHS}
            onChange={(math) => set({ ...series, math })}
          />
          {(series.math === "sum" || series.math === "avg") && (
            <Field
              label={`Property ${i + 1}`}
              value={series.property}
              onChange={(property) => set({ ...series, property })}
              placeholder="price"
              required
            />
          )}
        </>
      )}
    </ItemList>
    <div className="toolbar">
      <Field
        label="Breakdown by event property"
        value={draft.breakdown}
        onChange={(breakdown) => onChange({ ...draft, breakdown })}
        placeholder="$browser"
      />
      <Choice
        label="Interval"
        value={draft.interval}
        options={INTERVALS}
        onChange={(interval) => onChange({ ...draft, interval })}
      />
      <DateRangeChoice value={draft.dateFrom} onChange={(dateFrom) => onChange({ ...draft, dateFrom })} />
      <Choice
        label="Display"
        value={draft.display}
        options={DISPLAYS}
        onChange={(display) => onChange({ ...draft, display })}
      />
    </div>
  </>
)
