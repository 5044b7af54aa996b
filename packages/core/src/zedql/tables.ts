import type { PropertyOwner } from "../services/PropertyDefinitions.js"
import type { Expr, SelectLike } from "./ast.js"
import * as Q from "./build.js"
import { nullable, T, type ZType } from "./types.js"

// ZedQL's virtual tables. Users never name physical tables: each virtual table is either a
// physical table seen through field mappings, or a query written in ZedQL itself over others
// (sessions, person_distinct_ids), so the same resolver, guards and checks apply to it.

export type VirtualField =
  /** A physical column of the table. */
  | { readonly kind: "column"; readonly column: string; readonly type: ZType }
  /** A JSON column whose keys are read with `.key` or `['key']`. */
  | { readonly kind: "json"; readonly column: string; readonly owner: PropertyOwner | null }
  /** A value kept inside a JSON column but exposed as a field (`$session_id`). */
  | { readonly kind: "property"; readonly column: string; readonly key: string; readonly type: ZType }
  /** Another table joined on demand (`person.properties.email`), on this field = its field. */
  | {
      readonly kind: "lazy"
      readonly table: string
      readonly from: string
      readonly to: string
      /** Further conditions on the joined table: field = constant. */
      readonly where?: Readonly<Record<string, number>>
    }
  /** Another name for a field. */
  | { readonly kind: "alias"; readonly of: string }

export interface VirtualTable {
  readonly name: string
  /** A physical table, or a query in ZedQL, given the fields asked for. */
  readonly source:
    | { readonly kind: "table"; readonly table: string }
    | {
        readonly kind: "zedql"
        /**
         * `keys`, when given, is a query of the `key` field's values the rows are needed for: a lazy
         * join reading only some of them need not build the rest.
         */
        readonly build: (fields: ReadonlyArray<string>, keys?: SelectLike) => SelectLike
        readonly key?: string
      }
  readonly fields: Readonly<Record<string, VirtualField>>
  /** What `*` expands to. */
  readonly star: ReadonlyArray<string>
  /** Only reachable from Zed's own definitions, never from a user's query. */
  readonly internal?: boolean
}

const column = (name: string, type: ZType): VirtualField => ({ kind: "column", column: name, type })
const String = T.String
const NString = nullable(T.String)

const groupFields = Object.fromEntries(
  [0, 1, 2, 3, 4].flatMap((i) => [
    [`$group_${i}`, column(`group_${i}`, NString)],
    [
      `group_${i}`,
      { kind: "lazy", table: "groups", from: `$group_${i}`, to: "key", where: { index: i } } satisfies VirtualField
    ]
  ])
)

const events: VirtualTable = {
  name: "events",
  source: { kind: "table", table: "events" },
  fields: {
    uuid: column("uuid", T.UUID),
    event: column("event", String),
    properties: { kind: "json", column: "properties", owner: "event" },
    timestamp: column("timestamp", T.DateTime),
    distinct_id: column("distinct_id", String),
    person_id: column("person_id", T.UUID),
    created_at: column("created_at", T.DateTime),
    team_id: column("project_id", T.Int),
    elements_chain: { kind: "property", column: "properties", key: "$elements_chain", type: NString },
    $session_id: { kind: "property", column: "properties", key: "$session_id", type: NString },
    $window_id: { kind: "property", column: "properties", key: "$window_id", type: NString },
    ...groupFields,
    person: { kind: "lazy", table: "persons", from: "person_id", to: "id" },
    pdi: { kind: "lazy", table: "person_distinct_ids", from: "distinct_id", to: "distinct_id" },
    session: { kind: "lazy", table: "sessions", from: "$session_id", to: "session_id" }
  },
  star: [
    "uuid",
    "event",
    "properties",
    "timestamp",
    "distinct_id",
    "elements_chain",
    "created_at",
    "$session_id",
    "$window_id",
    "person_id",
    "$group_0",
    "$group_1",
    "$group_2",
    "$group_3",
    "$group_4"
  ]
}

const persons: VirtualTable = {
  name: "persons",
  source: { kind: "table", table: "persons" },
  fields: {
    id: column("uuid", T.UUID),
    created_at: column("created_at", T.DateTime),
    team_id: column("project_id", T.Int),
    properties: { kind: "json", column: "properties", owner: "person" },
    is_identified: column("is_identified", T.Bool),
    pdi: { kind: "lazy", table: "person_distinct_ids", from: "id", to: "person_id" },
    // The physical key the distinct ids point at.
    _id: column("id", T.Int)
  },
  star: ["id", "created_at", "properties", "is_identified"]
}

const rawPersonDistinctIds: VirtualTable = {
  name: "_person_distinct_ids",
  internal: true,
  source: { kind: "table", table: "person_distinct_ids" },
  fields: {
    distinct_id: column("distinct_id", String),
    _person: column("person_id", T.Int),
    team_id: column("project_id", T.Int)
  },
  star: ["distinct_id"]
}

const personDistinctIds: VirtualTable = {
  name: "person_distinct_ids",
  source: {
    kind: "zedql",
    build: () =>
      Q.select`SELECT d.distinct_id AS distinct_id, p.id AS person_id FROM _person_distinct_ids AS d JOIN persons AS p ON p._id = d._person`
  },
  fields: {
    distinct_id: column("distinct_id", String),
    person_id: column("person_id", T.UUID),
    person: { kind: "lazy", table: "persons", from: "person_id", to: "id" }
  },
  star: ["distinct_id", "person_id"]
}

const groups: VirtualTable = {
  name: "groups",
  source: { kind: "table", table: "groups" },
  fields: {
    index: column("group_type_index", T.Int),
    key: column("group_key", String),
    created_at: column("created_at", T.DateTime),
    updated_at: column("created_at", T.DateTime),
    team_id: column("project_id", T.Int),
    properties: { kind: "json", column: "properties", owner: "group" }
  },
  star: ["index", "key", "created_at", "updated_at", "properties"]
}

/** Each session field: its ZedQL over the session's events, and its type. */
export const SESSION_FIELDS: Readonly<Record<string, { readonly zedql: Expr; readonly type: ZType }>> = (() => {
  const property = (key: string) => Q.field("properties", key)
  const entry = (key: string) => Q.expr`argMinIf(${property(key)}, timestamp, ${property(key)} IS NOT NULL)`
  const exit = (key: string) => Q.expr`argMaxIf(${property(key)}, timestamp, ${property(key)} IS NOT NULL)`
  const duration = Q.expr`dateDiff('second', min(timestamp), max(timestamp))`
  return {
    // Qualified: the column is aliased `distinct_id`, and an alias wins over a bare field name.
    distinct_id: { zedql: Q.expr`argMin(events.distinct_id, timestamp)`, type: String },
    $start_timestamp: { zedql: Q.expr`min(timestamp)`, type: T.DateTime },
    $end_timestamp: { zedql: Q.expr`max(timestamp)`, type: T.DateTime },
    $session_duration: { zedql: duration, type: T.Int },
    $pageview_count: { zedql: Q.expr`countIf(event = '$pageview')`, type: T.Int },
    $autocapture_count: { zedql: Q.expr`countIf(event = '$autocapture')`, type: T.Int },
    $screen_count: { zedql: Q.expr`countIf(event = '$screen')`, type: T.Int },
    $urls: { zedql: Q.expr`groupUniqArray(properties.$current_url)`, type: T.array(String) },
    $num_uniq_urls: { zedql: Q.expr`uniqExact(properties.$current_url)`, type: T.Int },
    $entry_current_url: { zedql: entry("$current_url"), type: NString },
    $entry_pathname: { zedql: entry("$pathname"), type: NString },
    $entry_hostname: { zedql: entry("$host"), type: NString },
    $end_current_url: { zedql: exit("$current_url"), type: NString },
    $end_pathname: { zedql: exit("$pathname"), type: NString },
    $end_hostname: { zedql: exit("$host"), type: NString },
    $entry_referrer: { zedql: entry("$referrer"), type: NString },
    $entry_referring_domain: { zedql: entry("$referring_domain"), type: NString },
    ...Object.fromEntries(
      [
        "utm_source",
        "utm_campaign",
        "utm_medium",
        "utm_term",
        "utm_content",
        "gclid",
        "gad_source",
        "fbclid",
        "msclkid"
      ].map((key) => [`$entry_${key}`, { zedql: entry(key), type: NString }])
    ),
    // PostHog: no pageview, no verdict; else a bounce unless more than one pageview, any autocapture,
    // or at least 10 seconds.
    $is_bounce: {
      zedql: Q.expr`if(countIf(event = '$pageview') = 0, NULL, NOT (countIf(event = '$pageview') > 1 OR countIf(event = '$autocapture') > 0 OR ${duration} >= 10))`,
      type: nullable(T.Bool)
    }
  }
})()

const sessions: VirtualTable = {
  name: "sessions",
  source: {
    kind: "zedql",
    key: "session_id",
    build: (fields, keys) => {
      const computed = fields.filter((f) => f !== "session_id" && Object.hasOwn(SESSION_FIELDS, f))
      const columns = computed.map((f) => Q.alias(SESSION_FIELDS[f]!.zedql, f))
      const where = Q.and([
        Q.expr`properties.$session_id IS NOT NULL`,
        ...(keys === undefined ? [] : [Q.expr`properties.$session_id IN ${keys}`])
      ])
      return Q.select`SELECT properties.$session_id AS session_id, ${columns} FROM events WHERE ${where} GROUP BY session_id`
    }
  },
  fields: {
    session_id: column("session_id", String),
    id: { kind: "alias", of: "session_id" },
    ...Object.fromEntries(Object.entries(SESSION_FIELDS).map(([name, { type }]) => [name, column(name, type)])),
    duration: { kind: "alias", of: "$session_duration" },
    $exit_current_url: { kind: "alias", of: "$end_current_url" },
    $exit_pathname: { kind: "alias", of: "$end_pathname" },
    recording: { kind: "lazy", table: "session_replay_events", from: "session_id", to: "session_id" }
  },
  star: [
    "session_id",
    "distinct_id",
    "$start_timestamp",
    "$end_timestamp",
    "$session_duration",
    "$pageview_count",
    "$entry_current_url",
    "$end_current_url"
  ]
}

/** One row per recorded session: what `/s/` has received of it (PostHog's `session_replay_events`). */
const sessionReplayEvents: VirtualTable = {
  name: "session_replay_events",
  source: { kind: "table", table: "session_recordings" },
  fields: {
    session_id: column("session_id", String),
    team_id: column("project_id", T.Int),
    distinct_id: column("distinct_id", String),
    min_first_timestamp: column("start_time", T.DateTime),
    max_last_timestamp: column("end_time", T.DateTime),
    first_url: column("first_url", NString),
    click_count: column("click_count", T.Int),
    keypress_count: column("keypress_count", T.Int),
    mouse_activity_count: column("mouse_activity_count", T.Int),
    active_milliseconds: column("active_ms", T.Int),
    console_log_count: column("console_log_count", T.Int),
    console_warn_count: column("console_warn_count", T.Int),
    console_error_count: column("console_error_count", T.Int),
    size: column("size", T.Int),
    event_count: column("event_count", T.Int),
    message_count: column("message_count", T.Int),
    snapshot_source: column("snapshot_source", String),
    pdi: { kind: "lazy", table: "person_distinct_ids", from: "distinct_id", to: "distinct_id" },
    session: { kind: "lazy", table: "sessions", from: "session_id", to: "session_id" }
  },
  star: [
    "session_id",
    "distinct_id",
    "min_first_timestamp",
    "max_last_timestamp",
    "first_url",
    "click_count",
    "keypress_count",
    "mouse_activity_count",
    "active_milliseconds",
    "console_log_count",
    "console_warn_count",
    "console_error_count",
    "size",
    "event_count",
    "message_count",
    "snapshot_source"
  ]
}

export const TABLES: Readonly<Record<string, VirtualTable>> = Object.fromEntries(
  [events, persons, rawPersonDistinctIds, personDistinctIds, groups, sessions, sessionReplayEvents].map((t) => [
    t.name,
    t
  ])
)
