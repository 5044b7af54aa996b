import type { InsightQuery } from "../api.js"
import type { DraftFormProps } from "../insightDraft.js"
import { fields, list, oneOf, text, type Fields } from "../queryFields.js"
import { type DateFrom, DateRangeChoice, dateFromOf } from "./DateRangeChoice.js"
import { Choice, Field } from "./Field.js"
import { type Interval, IntervalChoice, intervalOf } from "./IntervalChoice.js"
import { ItemList } from "./ItemList.js"

// The stickiness part of the insight builder: how many persons did each event on exactly (or at
// least) 1, 2, … intervals of the range.

const COMPUTED_AS = { non_cumulative: "On exactly n intervals", cumulative: "On at least n intervals" } as const

export interface StickinessDraft {
  readonly events: ReadonlyArray<string>
  readonly interval: Interval
  readonly dateFrom: DateFrom
  readonly computedAs: keyof typeof COMPUTED_AS
}

export const INITIAL_STICKINESS: StickinessDraft = {
  events: ["$pageview"],
  interval: "day",
  dateFrom: "-7d",
  computedAs: "non_cumulative"
}

/** An events node per event; blank: any event. */
export const eventsNodes = (events: ReadonlyArray<string>) =>
  events.map((event) => ({ kind: "EventsNode", event: event.trim() || null, name: event.trim() || "All events" }))

/** The events of a stored query's series (blank: any event). */
export const seriesEvents = (source: Fields) => list(source["series"]).map((node) => text(fields(node)["event"]))

/** A stored `StickinessQuery` as the stickiness builder edits it. */
export const stickinessDraft = (source: Fields): StickinessDraft => ({
  events: seriesEvents(source),
  interval: intervalOf(source["interval"]),
  dateFrom: dateFromOf(source["dateRange"]),
  computedAs: oneOf(fields(source["stickinessFilter"])["computedAs"], COMPUTED_AS, "non_cumulative")
})

export const stickinessQuery = (draft: StickinessDraft): InsightQuery => ({
  kind: "InsightVizNode",
  source: {
    kind: "StickinessQuery",
    series: eventsNodes(draft.events),
    interval: draft.interval,
    dateRange: { date_from: draft.dateFrom },
    stickinessFilter: { computedAs: draft.computedAs }
  }
})

export const StickinessForm = ({ draft, onChange }: DraftFormProps<StickinessDraft>) => (
  <>
    <ItemList
      legend="Series"
      noun="series"
      items={draft.events}
      min={1}
      blank=""
      onChange={(events) => onChange({ ...draft, events })}
    >
      {(event, i, set) => <Field label={`Event ${i + 1}`} value={event} onChange={set} placeholder="All events" />}
    </ItemList>
    <div className="toolbar">
      <Choice
        label="Count persons active"
        value={draft.computedAs}
        options={COMPUTED_AS}
        onChange={(computedAs) => onChange({ ...draft, computedAs })}
      />
      <IntervalChoice value={draft.interval} onChange={(interval) => onChange({ ...draft, interval })} />
      <DateRangeChoice value={draft.dateFrom} onChange={(dateFrom) => onChange({ ...draft, dateFrom })} />
    </div>
  </>
)
