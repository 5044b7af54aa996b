import { Schema } from "effect"
import { stepCondition } from "../insights/planners/conditions.js"
import { PropertyFilter } from "../filters/property.js"
import type * as A from "../zedql/ast.js"
import * as Q from "../zedql/build.js"
import { DateBoundText, dateBound, propertyCondition } from "../zedql/filters.js"

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
  properties: Schema.optional(
    Schema.Array(Schema.Struct({ ...PropertyFilter.fields, type: Schema.optional(Schema.Literal("person", "event")) }))
  )
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
  values: Schema.Array(
    Schema.Union(
      Schema.suspend(() => FilterGroup),
      Leaf
    )
  )
})

export const RECORDING_ORDERS = [
  "start_time",
  "duration",
  "active_seconds",
  "inactive_seconds",
  "click_count",
  "keypress_count",
  "mouse_activity_count",
  "console_error_count"
] as const
export type RecordingOrder = (typeof RECORDING_ORDERS)[number]

const Empty = Schema.Array(Schema.Unknown).pipe(
  Schema.filter((a) => a.length === 0, { message: () => "Action filters are not supported" })
)

export const RecordingFilters = Schema.Struct({
  date_from: Schema.optional(Schema.NullOr(DateBoundText)),
  date_to: Schema.optional(Schema.NullOr(DateBoundText)),
  duration: Schema.optional(Schema.Array(DurationFilter)),
  session_recording_duration: Schema.optional(Schema.NullOr(DurationFilter)),
  events: Schema.optional(
    Schema.Array(Schema.Struct({ ...EventsFilter.fields, type: Schema.optional(Schema.Literal("events")) }))
  ),
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

const OPS: Readonly<Record<RecordingFilter["operator"], A.CompareOp>> = {
  gt: ">",
  gte: ">=",
  lt: "<",
  lte: "<=",
  exact: "=="
}

/** Seconds of the recording each duration key measures. */
const SECONDS: Readonly<Record<RecordingFilter["key"], () => A.Expr>> = {
  duration: () => Q.expr`dateDiff('second', min_first_timestamp, max_last_timestamp)`,
  active_seconds: () => Q.expr`intDiv(active_milliseconds, 1000)`,
  inactive_seconds: () =>
    Q.expr`dateDiff('second', min_first_timestamp, max_last_timestamp) - intDiv(active_milliseconds, 1000)`
}

const ORDER: Readonly<Record<RecordingOrder, () => A.Expr>> = {
  start_time: () => Q.field("min_first_timestamp"),
  duration: SECONDS.duration,
  active_seconds: SECONDS.active_seconds,
  inactive_seconds: SECONDS.inactive_seconds,
  click_count: () => Q.field("click_count"),
  keypress_count: () => Q.field("keypress_count"),
  mouse_activity_count: () => Q.field("mouse_activity_count"),
  console_error_count: () => Q.field("console_error_count")
}

/** Sessions with an event matching all of these conditions (on events). */
const withEvent = (conditions: ReadonlyArray<A.Expr>) =>
  Q.expr`session_id IN (SELECT $session_id FROM events WHERE ${Q.and([Q.expr`isNotNull($session_id)`, ...conditions])})`

/** Recordings of a person matching all of these conditions (on persons, through their distinct ids). */
const ofPerson = (conditions: ReadonlyArray<A.Expr>) =>
  Q.expr`distinct_id IN (SELECT distinct_id FROM person_distinct_ids WHERE ${Q.and(conditions)})`

/** Values to be IN, as `IN ('a')` and `IN ('a', 'b')` read. */
const oneOf = (values: ReadonlyArray<string>): A.Expr =>
  values.length === 1 ? Q.constant(values[0]!) : { node: "Tuple", exprs: values.map(Q.constant) }

const leafCondition = (leaf: Leaf): A.Expr => {
  switch (leaf.type) {
    case "recording":
      return {
        node: "CompareOperation",
        op: OPS[leaf.operator],
        left: SECONDS[leaf.key](),
        right: Q.constant(leaf.value)
      }
    case "person":
      return ofPerson([propertyCondition(leaf)])
    case "event":
      return withEvent([propertyCondition(leaf)])
    case "events":
      return withEvent([stepCondition({ event: leaf.id, properties: leaf.properties })])
  }
}

const groupCondition = (group: FilterGroup): A.Expr | undefined => {
  const parts = group.values
    .map((v) => (isGroup(v) ? groupCondition(v) : leafCondition(v)))
    .filter((p) => p !== undefined)
  if (parts.length === 0) return undefined
  return group.type === "AND" ? Q.and(parts) : Q.or(parts)
}

export interface SelectionContext {
  /** The project's test-account filters, applied when `filter_test_accounts` is on. */
  readonly testAccountFilters: ReadonlyArray<PropertyLeaf>
}

/** The ZedQL condition on `session_replay_events` the filters stand for; `true` when none. */
const recordingsCondition = (filters: RecordingFilters, context: SelectionContext): A.Expr => {
  const from = dateBound(filters.date_from)
  const to = dateBound(filters.date_to)
  const leaves: Array<Leaf> = [
    ...(filters.duration ?? []).map((d) => ({ ...d, type: "recording" as const })),
    ...(filters.session_recording_duration
      ? [{ ...filters.session_recording_duration, type: "recording" as const }]
      : []),
    ...(filters.events ?? []).map((e) => ({ ...e, type: "events" as const })),
    ...(filters.properties ?? [])
  ]
  const test = filters.filter_test_accounts === true ? context.testAccountFilters : []
  return Q.and([
    ...(from ? [Q.expr`min_first_timestamp >= ${from}`] : []),
    ...(to ? [Q.expr`min_first_timestamp < ${to}`] : []),
    ...(filters.person_uuid ? [ofPerson([Q.expr`person_id = toUUID(${filters.person_uuid})`])] : []),
    ...(filters.session_ids
      ? [filters.session_ids.length === 0 ? Q.constant(false) : Q.expr`session_id IN ${oneOf(filters.session_ids)}`]
      : []),
    ...[...leaves, ...test].map(leafCondition),
    ...(filters.filter_group ? [groupCondition(filters.filter_group)].filter((c) => c !== undefined) : [])
  ])
}

/** A page of the selected recordings' session ids, in the filters' order (one more row tells whether there are more). */
export const recordingsQuery = (
  filters: RecordingFilters,
  context: SelectionContext,
  page: { readonly limit: number; readonly offset: number }
): A.SelectLike => {
  const order = ORDER[filters.order ?? "start_time"]()
  const where = recordingsCondition(filters, context)
  const [limit, offset] = [page.limit + 1, page.offset]
  return filters.order_direction === "ASC"
    ? Q.select`SELECT session_id FROM session_replay_events WHERE ${where} ORDER BY ${order} ASC, session_id ASC LIMIT ${limit} OFFSET ${offset}`
    : Q.select`SELECT session_id FROM session_replay_events WHERE ${where} ORDER BY ${order} DESC, session_id DESC LIMIT ${limit} OFFSET ${offset}`
}
