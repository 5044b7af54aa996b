import type { InsightQuery } from "../api.js"
import type { DraftFormProps } from "../insightDraft.js"
import { fields, type Fields } from "../queryFields.js"
import { type DateFrom, DateRangeChoice, dateFromOf } from "./DateRangeChoice.js"
import { Field } from "./Field.js"
import { type Interval, IntervalChoice, intervalOf } from "./IntervalChoice.js"
import { eventsNodes, seriesEvents } from "./StickinessForm.js"

// The lifecycle part of the insight builder: one event, and which of its persons' statuses to show.

export const STATUSES = ["new", "returning", "resurrecting", "dormant"] as const
type Status = (typeof STATUSES)[number]

export interface LifecycleDraft {
  readonly event: string
  readonly interval: Interval
  readonly dateFrom: DateFrom
  readonly statuses: ReadonlyArray<Status>
}

export const INITIAL_LIFECYCLE: LifecycleDraft = {
  event: "$pageview",
  interval: "day",
  dateFrom: "-7d",
  statuses: STATUSES
}

/** At least one status shown. */
export const lifecycleComplete = (draft: LifecycleDraft) => draft.statuses.length > 0

/** A stored `LifecycleQuery` as the lifecycle builder edits it (its first series' event). */
export const lifecycleDraft = (source: Fields): LifecycleDraft => {
  const toggled = fields(source["lifecycleFilter"])["toggledLifecycles"]
  return {
    event: seriesEvents(source)[0] ?? "",
    interval: intervalOf(source["interval"]),
    dateFrom: dateFromOf(source["dateRange"]),
    statuses: Array.isArray(toggled) ? STATUSES.filter((status) => toggled.includes(status)) : STATUSES
  }
}

export const lifecycleQuery = (draft: LifecycleDraft): InsightQuery => ({
  kind: "InsightVizNode",
  source: {
    kind: "LifecycleQuery",
    series: eventsNodes([draft.event]),
    interval: draft.interval,
    dateRange: { date_from: draft.dateFrom },
    ...(draft.statuses.length < STATUSES.length
      ? { lifecycleFilter: { toggledLifecycles: STATUSES.filter((status) => draft.statuses.includes(status)) } }
      : {})
  }
})

export const LifecycleForm = ({ draft, onChange }: DraftFormProps<LifecycleDraft>) => (
  <div className="toolbar">
    <Field
      label="Event"
      value={draft.event}
      onChange={(event) => onChange({ ...draft, event })}
      placeholder="All events"
    />
    <IntervalChoice value={draft.interval} onChange={(interval) => onChange({ ...draft, interval })} />
    <DateRangeChoice value={draft.dateFrom} onChange={(dateFrom) => onChange({ ...draft, dateFrom })} />
    <fieldset className="inline">
      <legend>Statuses</legend>
      {STATUSES.map((status) => (
        <label key={status} className="inline">
          <input
            type="checkbox"
            checked={draft.statuses.includes(status)}
            onChange={(event) =>
              onChange({
                ...draft,
                statuses: event.target.checked
                  ? [...draft.statuses, status]
                  : draft.statuses.filter((other) => other !== status)
              })
            }
          />{" "}
          {status}
        </label>
      ))}
    </fieldset>
  </div>
)
