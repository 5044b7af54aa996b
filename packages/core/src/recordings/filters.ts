import { Schema } from "effect"
import { stepCondition } from "../insights/planners/conditions.js"
import { and, or, quote } from "../insights/planners/text.js"
import { PropertyFilter } from "../filters/property.js"
import { DateBoundText, dateBound, propertyCondition } from "../zedql/filters.js"
import { formatExpr } from "../zedql/format.js"

// Which recordings a list or a playlist's saved filters select, as PostHog's clients write it:
// the flat form (`events`, `properties`, `session_recording_duration`) and the universal
// `filter_group` of AND/OR groups. Every key is interpreted or refused (400 naming it); the
// selection runs as ZedQL over `session_replay_events`.

const Operator = Schema.Literal("gt", "gte", "lt", "lte", "exact")

const RecordingFilter = Schema.Struct({
  type: Schema.Literal("recording"),
  key: Schema.Literal("duration", "active_seconds", "inactive_seconds"),
  operator: Operator,
  value: Schema.Number
})
type RecordingFilter = typeof RecordingFilter.Type

/** A recording filter in the flat form may leave out its type. */
const DurationFilter = Schema.Struct({ ...RecordingFilter.fields, type: Schema.optional(Schema.Literal("recording")) })

/** A property filter with an operator Zed can apply: any other is refused when the filters are read. */

const PersonOrEventProperty = Schema.Struct({ ...PropertyFilter.fields, type: Schema.Literal("person", "event") })
type PropertyLeaf = typeof PersonOrEventProperty.Type

/** "The session has an event named `id` (any event when null) with these properties (of the event when untyped)." */
const EventsFilter = Schema.Struct({
  type: Schema.Literal("events"),
  id: Schema.NullOr(Schema.String),
  name: Schema.optional(Schema.NullOr(Schema.String)),
  order: Schema.optional(Schema.Number),
  properties: Schema.optional(Schema.Array(Schema.Struct({ ...PropertyFilter.fields, type: Schema.optional(Schema.Literal("person", "event")) })))
})
type EventsFilter = typeof EventsFilter.Type

type Leaf = RecordingFilter | PropertyLeaf | EventsFilter

export interface FilterGroup {
  readonly type: "AND" | "OR"
  readonly values: ReadonlyArray<FilterGroup | Leaf>
}

const Leaf = Schema.Union(RecordingFilter, PersonOrEventProperty, EventsFilter)

const FilterGroup: Schema.Schema<FilterGroup> = Schema.Struct({
  type: Schema.Literal("AND", "OR"),
  values: Schema.Array(Schema.Union(Schema.suspend(() => FilterGroup), Leaf))
})

export const RECORDING_ORDERS = ["start_time", "duration", "active_seconds", "inactive_seconds", "click_count", "keypress_count", "mouse_activity_count", "console_error_count"] as const
export type RecordingOrder = typeof RECORDING_ORDERS[number]

const Empty = Schema.Array(Schema.Unknown).pipe(Schema.filter((a) => a.length === 0, { message: () => "Action filters are not supported" }))

export const RecordingFilters = Schema.Struct({
  date_from: Schema.optional(Schema.NullOr(DateBoundText)),
  date_to: Schema.optional(Schema.NullOr(DateBoundText)),
  duration: Schema.optional(Schema.Array(DurationFilter)),
  session_recording_duration: Schema.optional(Schema.NullOr(DurationFilter)),
  events: Schema.optional(Schema.Array(Schema.Struct({ ...EventsFilter.fields, type: Schema.optional(Schema.Literal("events")) }))),
  actions: Schema.optional(Empty),
  properties: Schema.optional(Schema.Array(PersonOrEventProperty)),
  filter_group: Schema.optional(FilterGroup),
  filter_test_accounts: Schema.optional(Schema.NullOr(Schema.Boolean)),
  person_uuid: Schema.optional(Schema.NullOr(Schema.UUID)),
  session_ids: Schema.optional(Schema.NullOr(Schema.Array(Schema.String))),
  order: Schema.optional(Schema.Literal(...RECORDING_ORDERS)),
  order_direction: Schema.optional(Schema.Literal("ASC", "DESC"))
}).annotations({ identifier: "RecordingFilters", parseOptions: { onExcessProperty: "error" } })
export type RecordingFilters = typeof RecordingFilters.Type

const isGroup = (value: FilterGroup | Leaf): value is FilterGroup => value.type === "AND" || value.type === "OR"

const OPS: Readonly<Record<RecordingFilter["operator"], string>> = { gt: ">", gte: ">=", lt: "<", lte: "<=", exact: "=" }

/** Seconds of the recording each duration key measures. */
const SECONDS: Readonly<Record<RecordingFilter["key"], string>> = {
  duration: "dateDiff('second', min_first_timestamp, max_last_timestamp)",
  active_seconds: "intDiv(active_milliseconds, 1000)",
  inactive_seconds: "(dateDiff('second', min_first_timestamp, max_last_timestamp) - intDiv(active_milliseconds, 1000))"
}

const ORDER: Readonly<Record<RecordingOrder, string>> = {
  start_time: "min_first_timestamp",
  duration: SECONDS.duration,
  active_seconds: SECONDS.active_seconds,
  inactive_seconds: SECONDS.inactive_seconds,
  click_count: "click_count",
  keypress_count: "keypress_count",
  mouse_activity_count: "mouse_activity_count",
  console_error_count: "console_error_count"
}

/** Sessions with an event matching all of these conditions (on events). */
const withEvent = (conditions: ReadonlyArray<string>) =>
  `session_id IN (SELECT $session_id FROM events WHERE ${and(["isNotNull($session_id)", ...conditions])})`

/** Recordings of a person matching all of these conditions (on persons, through their distinct ids). */
const ofPerson = (conditions: ReadonlyArray<string>) =>
  `distinct_id IN (SELECT distinct_id FROM person_distinct_ids WHERE ${and(conditions)})`

const leafCondition = (leaf: Leaf): string => {
  switch (leaf.type) {
    case "recording":
      return `${SECONDS[leaf.key]} ${OPS[leaf.operator]} ${leaf.value}`
    case "person":
      return ofPerson([formatExpr(propertyCondition(leaf))])
    case "event":
      return withEvent([formatExpr(propertyCondition(leaf))])
    case "events":
      return withEvent([formatExpr(stepCondition({ event: leaf.id, properties: leaf.properties }))])
  }
}

const groupCondition = (group: FilterGroup): string | undefined => {
  const parts = group.values.map((v) => (isGroup(v) ? groupCondition(v) : leafCondition(v))).filter((p) => p !== undefined)
  if (parts.length === 0) return undefined
  return group.type === "AND" ? and(parts) : or(parts)
}

export interface SelectionContext {
  /** The project's test-account filters, applied when `filter_test_accounts` is on. */
  readonly testAccountFilters: ReadonlyArray<PropertyLeaf>
}

/** The ZedQL condition on `session_replay_events` the filters stand for; `"true"` when none. */
export const recordingsCondition = (filters: RecordingFilters, context: SelectionContext): string => {
  const from = dateBound(filters.date_from)
  const to = dateBound(filters.date_to)
  const leaves: Array<Leaf> = [
    ...(filters.duration ?? []).map((d) => ({ ...d, type: "recording" as const })),
    ...(filters.session_recording_duration ? [{ ...filters.session_recording_duration, type: "recording" as const }] : []),
    ...(filters.events ?? []).map((e) => ({ ...e, type: "events" as const })),
    ...(filters.properties ?? [])
  ]
  const test = filters.filter_test_accounts === true ? context.testAccountFilters : []
  const parts = [
    ...(from ? [`min_first_timestamp >= ${formatExpr(from)}`] : []),
    ...(to ? [`min_first_timestamp < ${formatExpr(to)}`] : []),
    ...(filters.person_uuid ? [ofPerson([`person_id = toUUID(${quote(filters.person_uuid)})`])] : []),
    ...(filters.session_ids ? [filters.session_ids.length === 0 ? "false" : `session_id IN (${filters.session_ids.map(quote).join(", ")})`] : []),
    ...[...leaves, ...test].map(leafCondition),
    ...(filters.filter_group ? [groupCondition(filters.filter_group)].filter((c) => c !== undefined) : [])
  ]
  return and(parts)
}

/** A page of the selected recordings' session ids, in the filters' order (one more row tells whether there are more). */
export const recordingsQuery = (filters: RecordingFilters, context: SelectionContext, page: { readonly limit: number; readonly offset: number }): string => {
  const direction = filters.order_direction ?? "DESC"
  return `SELECT session_id FROM session_replay_events WHERE ${recordingsCondition(filters, context)} ` +
    `ORDER BY ${ORDER[filters.order ?? "start_time"]} ${direction}, session_id ${direction} LIMIT ${page.limit + 1} OFFSET ${page.offset}`
}
