import { Effect, Schema } from "effect"
import { PropertyFilter } from "../filters/property.js"
import type { InsightContext, InsightPlan, PointActors } from "../insights/plan.js"
import type { InsightQueryInvalid } from "../insights/planners/decode.js"
import { funnelActors } from "../insights/planners/funnels.js"
import { planValues, ROWS, shownStatements } from "../insights/planners/statements.js"
import { lifecycleActors } from "../insights/planners/lifecycle.js"
import { pathsActors } from "../insights/planners/paths.js"
import { retentionActors } from "../insights/planners/retention.js"
import { stickinessActors } from "../insights/planners/stickiness.js"
import { trendActors } from "../insights/planners/trends.js"
import { INSIGHT_KINDS } from "./insightKinds.js"
import { check, IntIn } from "../schema/fields.js"
import type * as A from "../zedql/ast.js"
import * as Q from "../zedql/build.js"
import { PASSED_FIELDS } from "./nodeFields.js"
import { QUERY_MAX_LIMIT } from "../zedql/compile.js"
import { propertyCondition, UnsupportedFilter } from "../zedql/filters.js"
import { bare } from "./eventsQuery.js"

// PostHog's ActorsQuery: a page of persons, all of them or those behind a point of an insight
// (InsightActorsQuery: a trend's day, series and breakdown value; a funnel's step, converted or
// dropped; a retention cohort; a stickiness count of intervals; a lifecycle day and status), found by a search and property filters. One statement over `persons`, run like an
// insight's plan.

const Strict = { onExcessProperty: "error" } as const
const Rest = Schema.Record({ key: Schema.String, value: Schema.Unknown })
const Value = Schema.Union(Schema.String, Schema.Number)

/** The insight whose persons are listed, and which of its points. */
export const InsightActorsQueryNode = Schema.Struct({
  kind: Schema.Literal("InsightActorsQuery"),
  source: Schema.Struct({ kind: Schema.Literal(...INSIGHT_KINDS) }, Rest),
  /** A trend's or lifecycle's bucket, as its `days` list it; stickiness: the number of intervals. */
  day: Schema.optional(Schema.NullOr(Value)),
  /** A lifecycle status: new, returning, resurrecting, dormant. */
  status: Schema.optional(Schema.NullOr(Schema.String)),
  /** A retention cohort, from 0. */
  interval: Schema.optional(Schema.NullOr(IntIn(0))),
  /** A trend's series, by order. */
  series: Schema.optional(Schema.NullOr(IntIn(0))),
  breakdown: Schema.optional(Schema.NullOr(Value)),
  /** A funnel's step from 1; negative: dropped before that step. */
  funnelStep: Schema.optional(Schema.NullOr(Schema.Int)),
  funnelStepBreakdown: Schema.optional(Schema.NullOr(Value)),
  /** A trend's or stickiness' period: `previous`, the one it is compared with. */
  compare: Schema.optional(Schema.NullOr(Schema.Literal("current", "previous"))),
  includeRecordings: Schema.optional(Schema.NullOr(Schema.Boolean)),
  ...PASSED_FIELDS
}).annotations({ identifier: "InsightActorsQuery", parseOptions: Strict })
export type InsightActorsQueryNode = typeof InsightActorsQueryNode.Type

/** The columns a person row can show. */
const COLUMN =
  /^(person|person_display_name|id|created_at|is_identified|distinct_ids|matched_recordings|properties\.[^\s]+)$/

export const ActorsQueryNode = Schema.Struct({
  kind: Schema.Literal("ActorsQuery"),
  source: Schema.optional(Schema.NullOr(InsightActorsQueryNode)),
  select: Schema.optional(
    Schema.NullOr(
      Schema.Array(
        Schema.String.pipe(
          check(
            (column: string) => COLUMN.test(bare(column)),
            "unsupported_column",
            (column: string) =>
              `Column "${column}" is not supported: person, person_display_name, id, created_at, is_identified, distinct_ids, matched_recordings or properties.<key>.`
          )
        )
      )
    )
  ),
  search: Schema.optional(Schema.NullOr(Schema.String)),
  properties: Schema.optional(Schema.NullOr(Schema.Array(PropertyFilter))),
  fixedProperties: Schema.optional(Schema.NullOr(Schema.Array(PropertyFilter))),
  orderBy: Schema.optional(Schema.NullOr(Schema.Array(Schema.Literal("created_at DESC", "created_at ASC")))),
  limit: Schema.optional(Schema.NullOr(IntIn(1, QUERY_MAX_LIMIT - 1))),
  offset: Schema.optional(Schema.NullOr(IntIn(0))),
  ...PASSED_FIELDS
}).annotations({ identifier: "ActorsQuery", parseOptions: Strict })
export type ActorsQueryNode = typeof ActorsQueryNode.Type

const DEFAULT_SELECT = ["person", "id", "created_at"]
const DEFAULT_LIMIT = 100

/** The persons behind an insight's point (`actor` ids), and the events that matched them where known. */
const actorsOf = (
  source: InsightActorsQueryNode,
  ctx: InsightContext
): Effect.Effect<PointActors, InsightQueryInvalid> => {
  const breakdown = source.breakdown ?? source.funnelStepBreakdown
  const asText = (v: string | number | null | undefined) => (v == null ? v : String(v))
  switch (source.source.kind) {
    case "FunnelsQuery":
      return funnelActors(source.source, { step: source.funnelStep ?? 1, breakdown: asText(breakdown) })
    case "RetentionQuery":
      return retentionActors(source.source, { cohort: source.interval ?? 0 }, ctx)
    case "StickinessQuery":
      return stickinessActors(
        source.source,
        { series: source.series ?? 0, intervals: Number(source.day ?? 1), compare: source.compare },
        ctx
      )
    case "LifecycleQuery":
      return lifecycleActors(source.source, { day: asText(source.day), status: source.status }, ctx)
    case "PathsQuery":
      return pathsActors(source.source, ctx)
    default:
      return trendActors(
        source.source,
        { series: source.series ?? 0, day: asText(source.day), breakdown: asText(breakdown), compare: source.compare },
        ctx
      )
  }
}

/**
 * The recorded sessions of the matched events of a page of persons (`page`, ids first):
 * `actor, session_id, uuid, timestamp` rows, by person and time.
 */
const recordingsStatement = (events: A.SelectLike, page: A.SelectLike): A.SelectLike =>
  Q.select`SELECT actor, session_id, uuid, timestamp FROM ${events}
    WHERE session_id IN (SELECT session_id FROM session_replay_events) AND actor IN (SELECT id FROM ${page})
    ORDER BY actor, timestamp, uuid LIMIT ${ROWS}`

/** A matched event, as PostHog lists it under its recording. */
interface MatchedEvent {
  readonly uuid: unknown
  readonly timestamp: unknown
}

/** Each person's recordings (`matched_recordings`), from the rows of `recordingsStatement`, sessions in order of their first match. */
const recordingsByActor = (rows: ReadonlyArray<ReadonlyArray<unknown>>) => {
  const byActor = new Map<string, Map<string, Array<MatchedEvent>>>()
  for (const [actor, session, uuid, timestamp] of rows) {
    const sessions = byActor.get(String(actor)) ?? new Map<string, Array<MatchedEvent>>()
    byActor.set(String(actor), sessions)
    const events = sessions.get(String(session)) ?? []
    sessions.set(String(session), events)
    events.push({ uuid, timestamp })
  }
  return (actor: unknown) =>
    [...(byActor.get(String(actor)) ?? [])].map(([session_id, events]) => ({ session_id, events }))
}

/** Property filters over `persons`, where a person's properties are the table's own. */
const personFilters = (filters: ReadonlyArray<PropertyFilter>): Effect.Effect<Array<A.Expr>, UnsupportedFilter> => {
  try {
    return Effect.succeed(filters.map((f) => propertyCondition({ ...f, type: "event" })))
  } catch (error) {
    if (error instanceof UnsupportedFilter) return Effect.fail(error)
    throw error
  }
}

/** A search's text as an ILIKE pattern that matches it anywhere, its wildcards taken literally. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, "\\$&")}%`

type PersonRow = readonly [
  id: unknown,
  createdAt: unknown,
  properties: unknown,
  distinctIds: unknown,
  identified: unknown
]

const parsed = (properties: unknown): Record<string, unknown> =>
  typeof properties === "string"
    ? (JSON.parse(properties) as Record<string, unknown>)
    : ((properties ?? {}) as Record<string, unknown>)

/** A column of a person row, as PostHog shows it; `recordings` their matched recordings. */
const cell = (
  column: string,
  [id, createdAt, rawProperties, ids, identified]: PersonRow,
  recordings: (actor: unknown) => unknown
): unknown => {
  const properties = parsed(rawProperties)
  const distinctIds = (ids ?? []) as ReadonlyArray<string>
  switch (column) {
    case "person":
      return { id, uuid: id, distinct_ids: distinctIds, properties, created_at: createdAt, is_identified: identified }
    case "person_display_name":
      return {
        display_name: properties["email"] ?? properties["name"] ?? distinctIds[0] ?? id,
        id,
        distinct_id: distinctIds[0] ?? null
      }
    case "id":
      return id
    case "created_at":
      return createdAt
    case "is_identified":
      return identified
    case "distinct_ids":
      return distinctIds
    case "matched_recordings":
      return recordings(id)
    default:
      return properties[column.slice("properties.".length)] ?? null
  }
}

/** The type names of the columns (a property's value is shown as it is kept, text). */
const TYPES: Readonly<Record<string, string>> = {
  person: "Tuple",
  person_display_name: "Tuple",
  id: "UUID",
  created_at: "DateTime",
  is_identified: "Bool",
  distinct_ids: "Array(String)",
  matched_recordings: "Array(Tuple(String, Array(Tuple(UUID, DateTime))))"
}

/** The statement and shape of an ActorsQuery. */
export const planActorsQuery = (
  node: ActorsQueryNode,
  ctx: InsightContext
): Effect.Effect<InsightPlan, InsightQueryInvalid | UnsupportedFilter> =>
  Effect.gen(function* () {
    const point = node.source ? yield* actorsOf(node.source, ctx) : undefined
    const actors = point?.actors
    const search = node.search?.trim() ? node.search.trim() : undefined
    const pattern = search === undefined ? "" : containing(search)
    const filters = yield* personFilters([...(node.properties ?? []), ...(node.fixedProperties ?? [])])
    const where = Q.and([
      ...(actors ? [Q.expr`id IN (SELECT actor FROM ${actors})`] : []),
      ...(search === undefined
        ? []
        : [
            Q.expr`toString(properties.email) ILIKE ${pattern} OR toString(properties.name) ILIKE ${pattern} OR toString(id) = ${search} OR id IN (SELECT person_id FROM person_distinct_ids WHERE distinct_id ILIKE ${pattern})`
          ]),
      ...filters
    ])
    const limit = node.limit ?? DEFAULT_LIMIT
    const offset = node.offset ?? 0
    // One more than the page, to tell whether there are more.
    const statement =
      node.orderBy?.[0] === "created_at ASC"
        ? Q.select`SELECT id, any(created_at) AS created, any(properties), groupArray(pdi.distinct_id), any(is_identified) FROM persons WHERE ${where} GROUP BY id ORDER BY created ASC, id LIMIT ${limit + 1} OFFSET ${offset}`
        : Q.select`SELECT id, any(created_at) AS created, any(properties), groupArray(pdi.distinct_id), any(is_identified) FROM persons WHERE ${where} GROUP BY id ORDER BY created DESC, id LIMIT ${limit + 1} OFFSET ${offset}`
    const asked = node.select ?? DEFAULT_SELECT
    // Asked for recordings, the persons come with the column of them.
    const select =
      node.source?.includeRecordings === true && !asked.some((c) => bare(c) === "matched_recordings")
        ? [...asked, "matched_recordings"]
        : asked
    // The recordings of the events that matched the page's persons: there are none without an insight's point.
    const recordings =
      point?.events !== undefined && select.some((c) => bare(c) === "matched_recordings")
        ? recordingsStatement(point.events, statement)
        : undefined
    const queries = recordings === undefined ? [statement] : [statement, recordings]
    const values = planValues(ctx)
    return {
      queries,
      values,
      zedql: shownStatements(queries, values, ";\n"),
      shape: ([rows = [], recorded = []]) => {
        const recordingsOf = recordingsByActor(recorded)
        return rows
          .slice(0, limit)
          .map((row) => select.map((column) => cell(bare(column), row as unknown as PersonRow, recordingsOf)))
      },
      fields: ([rows = []]) => ({
        columns: select,
        types: select.map((column) => TYPES[bare(column)] ?? "String"),
        hasMore: rows.length > limit,
        limit,
        offset,
        missing_actors_count: 0
      })
    }
  })
