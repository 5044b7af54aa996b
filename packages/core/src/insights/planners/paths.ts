import { Effect, Schema } from "effect"
import type { InsightContext, InsightPlan, PointActors } from "../plan.js"
import type * as A from "../../zedql/ast.js"
import * as Q from "../../zedql/build.js"
import { check, IntIn } from "../../schema/fields.js"
import { DateRange, resolvePeriod, timeBounds } from "./dateRange.js"
import { decodeNode, type InsightQueryInvalid, invalid } from "./decode.js"
import { Properties, propertiesCondition, UnsupportedFilter } from "./properties.js"
import { planValues, ROWS, shownStatements } from "./statements.js"

// PathsQuery → ZedQL, as PostHog computes paths: each event becomes a node (a page view its
// `$current_url` without a trailing slash, a screen its `$screen_name`, another event its name),
// cleaned by the path cleaning rules and grouped by the wildcard groupings; a person's nodes, in
// time order, are cut into sessions wherever 30 minutes pass without one; a node repeated at once is
// one node (the last of the run); a session's path starts at the start point and/or ends at the end
// point, limited to `stepLimit` nodes; each pair of consecutive nodes is an edge from `k_node` to
// `k+1_node`, weighted by how many session paths take it, with its average time in milliseconds.

/** Where a person's events are cut into sessions, in seconds. */
const SESSION_GAP = 30 * 60
const DEFAULT_STEP_LIMIT = 5
const DEFAULT_EDGE_LIMIT = 50
/** The node that stands for the middle of a path too long between its start and end points. */
const ELLIPSIS = "..."

const PATH_TYPES = ["$pageview", "$screen", "custom_event", "hogql"] as const

/** A regular expression the databases read alike: no look-around (RE2 has none). */
const Regex = Schema.String.pipe(
  check(
    (text: string) => {
      if (/\(\?<?[=!]/.test(text)) return false
      try {
        new RegExp(text)
        return true
      } catch {
        return false
      }
    },
    "invalid_regex",
    (text: string) => `"${text}" is not a regular expression Zed can run (look-around is not supported)`
  )
)

const PathCleaningFilter = Schema.Struct({
  regex: Schema.optional(Schema.NullOr(Regex)),
  alias: Schema.optional(Schema.NullOr(Schema.String)),
  order: Schema.optional(Schema.NullOr(Schema.Number))
})

export const PathsFilter = Schema.Struct({
  includeEventTypes: Schema.optional(Schema.NullOr(Schema.Array(Schema.Literal(...PATH_TYPES)))),
  startPoint: Schema.optional(Schema.NullOr(Schema.String)),
  endPoint: Schema.optional(Schema.NullOr(Schema.String)),
  stepLimit: Schema.optional(Schema.NullOr(IntIn(1, 100))),
  excludeEvents: Schema.optional(Schema.NullOr(Schema.Array(Schema.String))),
  pathGroupings: Schema.optional(Schema.NullOr(Schema.Array(Schema.String))),
  localPathCleaningFilters: Schema.optional(Schema.NullOr(Schema.Array(PathCleaningFilter))),
  /** The project's own cleaning rules: Zed keeps none, so this changes nothing. */
  pathReplacements: Schema.optional(Schema.NullOr(Schema.Boolean)),
  minEdgeWeight: Schema.optional(Schema.NullOr(IntIn(0))),
  maxEdgeWeight: Schema.optional(Schema.NullOr(IntIn(0))),
  edgeLimit: Schema.optional(Schema.NullOr(IntIn(1, ROWS))),
  pathsHogQLExpression: Schema.optional(Schema.NullOr(Schema.String)),
  /** The persons behind an edge: its source node (`1_/home`), its target node, or the node paths end at. */
  pathStartKey: Schema.optional(Schema.NullOr(Schema.String)),
  pathEndKey: Schema.optional(Schema.NullOr(Schema.String)),
  pathDropoffKey: Schema.optional(Schema.NullOr(Schema.String))
}).pipe(
  Schema.filter(
    (f) =>
      !(f.includeEventTypes ?? []).includes("hogql") ||
      'paths by a ZedQL expression ("hogql") are not supported: use $pageview, $screen or custom_event'
  )
)
export type PathsFilter = typeof PathsFilter.Type

export const PathsQuery = Schema.Struct({
  kind: Schema.Literal("PathsQuery"),
  dateRange: Schema.optional(Schema.NullOr(DateRange)),
  properties: Schema.optional(Properties),
  filterTestAccounts: Schema.optional(Schema.NullOr(Schema.Boolean)),
  pathsFilter: Schema.optional(Schema.NullOr(PathsFilter)),
  samplingFactor: Schema.optional(Schema.NullOr(Schema.Number))
}).annotations({ identifier: "PathsQuery" })
export type PathsQuery = typeof PathsQuery.Type

/** A grouping (`/product/*`) as the pattern of the nodes it stands for: `*` any text, the rest literal. */
const groupingPattern = (grouping: string) => grouping.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replaceAll("\\*", ".*")

/** The node of a page view (its URL without a trailing slash) and of a screen. */
const NODES = {
  $pageview: Q.expr`replaceRegexpAll(ifNull(properties.$current_url, ''), ${"(.)/$"}, ${"\\1"})`,
  $screen: Q.expr`properties.$screen_name`
} as const

/** The node an event is, before the cleaning rules and the groupings. */
const nodeOf = (filter: PathsFilter): A.Expr => {
  const types = filter.includeEventTypes ?? []
  // Paths of page views (or screens) alone: each event's node read without asking its kind, which
  // costs chDB a third of the events' stage.
  const [only] = types
  if (types.length === 1 && (only === "$pageview" || only === "$screen")) return Q.expr`ifNull(${NODES[only]}, '')`
  // With no types asked for, every event is in the paths, as a page, a screen or by its name.
  const queried = (type: string) =>
    types.length === 0 ? !(filter.excludeEvents ?? []).includes(type) : types.includes(type as never)
  const cases = (["$pageview", "$screen"] as const)
    .filter(queried)
    .flatMap((type) => [Q.expr`event = ${type}`, NODES[type]])
  return Q.expr`ifNull(${cases.length === 0 ? Q.expr`event` : Q.call("multiIf", [...cases, Q.expr`event`])}, '')`
}

/** A node under the first grouping that matches anywhere in it, if any does. */
const grouped = (groupings: ReadonlyArray<string>, node: A.Expr): A.Expr =>
  Q.call("multiIf", [...groupings.flatMap((g) => [Q.expr`match(${node}, ${groupingPattern(g)})`, Q.constant(g)]), node])

/** Which events the paths are made of: the types asked for, in the query's range and properties. */
const eventConditions = (query: PathsQuery, ctx: InsightContext): Array<A.Expr> => {
  const types = query.pathsFilter?.includeEventTypes ?? []
  const typeConditions = types.flatMap((type) =>
    type === "$pageview"
      ? [Q.expr`event = '$pageview'`]
      : type === "$screen"
        ? [Q.expr`event = '$screen'`]
        : type === "custom_event"
          ? [Q.expr`NOT startsWith(event, '$')`]
          : []
  )
  const properties = propertiesCondition(query.properties)
  return [
    ...timeBounds(resolvePeriod(query.dateRange, "day", ctx)),
    ...(typeConditions.length === 0 ? [] : [Q.or(typeConditions)]),
    ...(properties ? [properties] : [])
  ]
}

/**
 * Every step of every session path, as statements named in a WITH, the last (`path_steps`) with per
 * row the person (`person_id`), the session (`session`), the step (`step`, from 1), its node
 * (`node`) and time, the previous step's node (`previous`) and time (`previous_time`), the session
 * path's last step (`last_step`), and the event (`uuid`, and `session_id` when `withSessions`). Stages rather than nested
 * subqueries, so that the ZedQL shown can be sent back and parsed. Throws `UnsupportedFilter`.
 */
const sessionSteps = (
  query: PathsQuery,
  ctx: InsightContext,
  withSessions: boolean
): Array<readonly [string, A.SelectLike]> => {
  // The session id is carried through only for the events' recordings: reading it costs chDB a
  // JSON extraction per event (about a seventh of the edges' time over ten million events).
  const session = withSessions ? [Q.alias(Q.field("$session_id"), "session_id")] : []
  const carried = withSessions ? [Q.field("session_id")] : []
  const filter: PathsFilter = query.pathsFilter ?? {}
  const limit = filter.stepLimit ?? DEFAULT_STEP_LIMIT
  const excluded = (filter.excludeEvents ?? []).map((e) => Q.expr`path_item != ${e}`)
  const where = Q.and(eventConditions(query, ctx))
  const groupings = filter.pathGroupings ?? []
  const stages: Array<readonly [string, A.SelectLike]> = []
  /** Adds a stage, built from the name of the one before it (`from`). */
  const stage = (name: string, build: (from: A.Field) => A.SelectLike) => {
    stages.push([name, build(Q.field(stages.at(-1)?.[0] ?? "events"))])
  }
  // The node, then each cleaning rule and the groupings, a stage each: kept flat, the statement
  // shown parses in a moment (the grammar's parser slows down a lot with each level of nesting).
  stage(
    "path_events",
    () =>
      Q.select`SELECT person_id, timestamp, uuid, ${session}, ${nodeOf(filter)} AS path_item FROM events WHERE ${where}`
  )
  const rules = (filter.localPathCleaningFilters ?? []).filter((rule) => rule.regex != null)
  rules.forEach((rule, i) =>
    stage(
      `cleaned_${i + 1}`,
      (from) =>
        Q.select`SELECT person_id, timestamp, uuid, ${carried}, replaceRegexpAll(${Q.field(from.chain[0] as string, "path_item")}, ${rule.regex!}, ${rule.alias ?? ""}) AS path_item FROM ${from}`
    )
  )
  if (groupings.length > 0)
    stage(
      "grouped",
      (from) =>
        Q.select`SELECT person_id, timestamp, uuid, ${carried}, ${grouped(groupings, Q.field(from.chain[0] as string, "path_item"))} AS path_item FROM ${from}`
    )
  if (excluded.length > 0)
    stage(
      "kept_items",
      (from) => Q.select`SELECT person_id, timestamp, uuid, ${carried}, path_item FROM ${from} WHERE ${Q.and(excluded)}`
    )
  // The times around each event of a person, and the node after it.
  stage(
    "around",
    (from) => Q.select`SELECT person_id, timestamp, uuid, ${carried}, path_item,
    lagInFrame(timestamp, 1, timestamp) OVER w AS before_time, leadInFrame(timestamp, 1, timestamp) OVER w AS after_time,
    leadInFrame(concat('>', path_item), 1, '') OVER w AS next_key
    FROM ${from} WINDOW w AS (PARTITION BY person_id ORDER BY timestamp, uuid)`
  )
  stage(
    "sessions_cut",
    (from) => Q.select`SELECT person_id, timestamp, uuid, ${carried}, path_item, next_key, after_time,
    sum(if(timestamp - before_time >= ${SESSION_GAP}, 1, 0)) OVER (PARTITION BY person_id ORDER BY timestamp, uuid ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS session
    FROM ${from}`
  )
  // A node followed at once by itself, in the same session, is not a step of its own.
  stage(
    "indexed",
    (from) => Q.select`SELECT person_id, session, timestamp, uuid, ${carried}, path_item,
    row_number() OVER (PARTITION BY person_id, session ORDER BY timestamp, uuid) AS idx
    FROM ${from} WHERE NOT (next_key = concat('>', path_item) AND after_time - timestamp < ${SESSION_GAP})`
  )
  /** Adds a stage giving each step the index of its session's first `point` (as `column`). */
  const markFirst = (name: string, point: string, column: "s" | "e") =>
    stage(
      name,
      (from) =>
        Q.select`SELECT person_id, session, timestamp, uuid, ${carried}, path_item, idx, ${Q.alias(
          Q.expr`min(if(path_item = ${point}, idx, NULL)) OVER (PARTITION BY person_id, session)`,
          column
        )} FROM ${from}`
    )
  const start = trimmed(filter.startPoint)
  const end = trimmed(filter.endPoint)
  if (start === undefined && end === undefined) {
    stage(
      "steps",
      (from) => Q.select`SELECT person_id, session, timestamp, uuid, ${carried}, idx AS step, path_item AS node
      FROM ${from} WHERE idx <= ${limit}`
    )
  } else if (end === undefined) {
    // From the first start point on.
    markFirst("marked", start!, "s")
    stage(
      "steps",
      (from) => Q.select`SELECT person_id, session, timestamp, uuid, ${carried}, idx - s + 1 AS step, path_item AS node
      FROM ${from} WHERE isNotNull(s) AND idx >= s AND idx - s < ${limit}`
    )
  } else if (start === undefined) {
    // Up to the first end point, its last steps.
    markFirst("marked", end, "e")
    stage(
      "steps",
      (
        from
      ) => Q.select`SELECT person_id, session, timestamp, uuid, ${carried}, idx - greatest(e - ${limit}, 0) AS step, path_item AS node
      FROM ${from} WHERE isNotNull(e) AND idx <= e AND idx + ${limit} > e`
    )
  } else {
    // From the first start point to the first end point after it; a longer path keeps its first
    // and last halves, the steps between them one node "...".
    const half = Math.floor(limit / 2)
    markFirst("from_start", start, "s")
    stage(
      "marked",
      (from) => Q.select`SELECT person_id, session, timestamp, uuid, ${carried}, path_item, idx, s,
      min(if(path_item = ${end} AND idx >= s, idx, NULL)) OVER (PARTITION BY person_id, session) AS e FROM ${from}`
    )
    // Where each step stands between the points, and whether the path is longer than the limit.
    stage(
      "spans",
      (from) => Q.select`SELECT person_id, session, timestamp, uuid, ${carried}, path_item, idx, e,
      idx - s AS after_start, e - idx AS before_end, e - s + 1 > ${limit} AS long
      FROM ${from} WHERE isNotNull(e) AND idx >= s AND idx <= e`
    )
    stage(
      "steps",
      (from) => Q.select`SELECT person_id, session, timestamp, uuid, ${carried},
      if(long AND after_start > ${half}, idx - e + ${2 * half + 1}, after_start + 1) AS step,
      if(long AND after_start = ${half}, ${ELLIPSIS}, path_item) AS node
      FROM ${from} WHERE NOT long OR after_start <= ${half} OR before_end < ${half}`
    )
  }
  stage(
    PATH_STEPS,
    (from) => Q.select`SELECT person_id, session, timestamp, uuid, ${carried}, step, node,
    lagInFrame(node, 1, '') OVER v AS previous, lagInFrame(timestamp, 1, timestamp) OVER v AS previous_time,
    max(step) OVER (PARTITION BY person_id, session) AS last_step
    FROM ${from} WINDOW v AS (PARTITION BY person_id, session ORDER BY step)`
  )
  return stages
}

/** The last stage of the session paths: their steps. */
const PATH_STEPS = "path_steps"

/** A point as PostHog compares it: without its trailing slash. */
const trimmed = (point: string | null | undefined) =>
  point == null || point === "" ? undefined : point.length > 1 && point.endsWith("/") ? point.slice(0, -1) : point

/** An edge as PostHog answers it. */
export interface PathEdge {
  readonly source: string
  readonly target: string
  readonly value: number
  readonly average_conversion_time: number
}

/** The edges reachable from a first step (`1_…`) through the edges kept: PostHog drops the others. */
const reachable = (edges: ReadonlyArray<PathEdge>): Array<PathEdge> => {
  const next = new Map<string, Array<string>>()
  for (const e of edges) next.set(e.source, [...(next.get(e.source) ?? []), e.target])
  const seen = new Set<string>()
  const stack = edges.filter((e) => e.source.startsWith("1_")).map((e) => e.source)
  while (stack.length > 0) {
    const node = stack.pop()!
    if (seen.has(node)) continue
    seen.add(node)
    stack.push(...(next.get(node) ?? []))
  }
  return edges.filter((e) => seen.has(e.source))
}

const withFilters = <A>(build: () => A): Effect.Effect<A, InsightQueryInvalid> => {
  try {
    return Effect.succeed(build())
  } catch (error) {
    if (error instanceof UnsupportedFilter) return invalid(error.message)
    throw error
  }
}

export const planPaths = (input: unknown, ctx: InsightContext): Effect.Effect<InsightPlan, InsightQueryInvalid> =>
  Effect.flatMap(decodeNode(PathsQuery, input), (query) =>
    Effect.map(
      withFilters(() => sessionSteps(query, ctx, false)),
      (steps) => {
        const filter = query.pathsFilter ?? {}
        const weights = [
          ...(filter.minEdgeWeight ? [Q.expr`value >= ${filter.minEdgeWeight}`] : []),
          ...(filter.maxEdgeWeight ? [Q.expr`value <= ${filter.maxEdgeWeight}`] : [])
        ]
        const edges = Q.withStatements(
          steps,
          Q.select`SELECT concat(toString(step - 1), '_', previous) AS source, concat(toString(step), '_', node) AS target,
          count() AS value, avg(timestamp - previous_time) AS seconds
          FROM ${Q.field(PATH_STEPS)} WHERE step > 1 GROUP BY source, target HAVING ${Q.and(weights)}
          ORDER BY value DESC, source, target LIMIT ${filter.edgeLimit ?? DEFAULT_EDGE_LIMIT}`
        )
        const values = planValues(ctx)
        return {
          queries: [edges],
          values,
          zedql: shownStatements([edges], values, ""),
          shape: ([rows = []]) =>
            reachable(
              rows.map(([source, target, value, seconds]) => ({
                source: String(source),
                target: String(target),
                value: Number(value),
                average_conversion_time: Number(seconds) * 1000
              }))
            )
        } satisfies InsightPlan
      }
    )
  )

/**
 * The persons behind an edge of a paths insight: those whose session paths take the edge from
 * `pathStartKey` to `pathEndKey` (either alone: any edge from or to it), or end at
 * `pathDropoffKey`; the events of those steps matched them.
 */
export const pathsActors = (input: unknown, ctx: InsightContext): Effect.Effect<PointActors, InsightQueryInvalid> =>
  Effect.flatMap(decodeNode(PathsQuery, input), (query) =>
    withFilters(() => {
      const filter = query.pathsFilter ?? {}
      const key = Q.expr`concat(toString(step), '_', node)`
      const conditions =
        filter.pathDropoffKey != null
          ? [Q.expr`step = last_step AND ${key} = ${filter.pathDropoffKey}`]
          : [
              ...(filter.pathStartKey != null
                ? [Q.expr`step > 1 AND concat(toString(step - 1), '_', previous) = ${filter.pathStartKey}`]
                : []),
              ...(filter.pathEndKey != null ? [Q.expr`${key} = ${filter.pathEndKey}`] : [])
            ]
      const where = Q.and(conditions)
      return {
        actors: Q.withStatements(
          sessionSteps(query, ctx, false),
          Q.select`SELECT DISTINCT person_id AS actor FROM ${Q.field(PATH_STEPS)} WHERE ${where}`
        ),
        events: Q.withStatements(
          sessionSteps(query, ctx, true),
          Q.select`SELECT person_id AS actor, uuid, session_id, timestamp FROM ${Q.field(PATH_STEPS)} WHERE ${where}`
        )
      }
    })
  )
