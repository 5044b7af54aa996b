import { Effect, Schema } from "effect"
import type { InsightContext, InsightPlan, PointActors } from "../plan.js"
import type * as A from "../../zedql/ast.js"
import * as Q from "../../zedql/build.js"
import { boundExpr, entityConditions, propertyConditions } from "./conditions.js"
import { DateRange } from "./dateRange.js"
import { decodeNode, type InsightQueryInvalid, invalid } from "./decode.js"
import { Properties, UnsupportedFilter } from "./properties.js"
import { NOW, planValues, ROWS, shownStatements } from "./statements.js"

// RetentionQuery → ZedQL. The table has `totalIntervals` cohorts, one per period, the last being
// the period of `date_to` (default now), in the project's time zone. A person is in a cohort when
// they did the target event in that period (recurring) or did it there for the first time ever
// (first time); interval j of a cohort counts its persons who did the returning event j periods
// later, interval 0 being the cohort itself.

/** The cohort's or returns' events: an event by name (`id`), or an action's (`type: "actions"`, `id` its id). */
export const RetentionEntity = Schema.Struct({
  id: Schema.optional(Schema.NullOr(Schema.Union(Schema.String, Schema.Number))),
  type: Schema.optional(Schema.NullOr(Schema.Literal("events", "actions"))),
  name: Schema.optional(Schema.NullOr(Schema.String)),
  properties: Schema.optional(Properties)
}).pipe(
  Schema.filter(
    (entity) =>
      entity.type !== "actions" ||
      (entity.id != null && Number.isInteger(Number(entity.id)) && String(entity.id).trim() !== "") ||
      "an actions entity needs the action's id"
  )
)
export type RetentionEntity = typeof RetentionEntity.Type

export const RetentionPeriod = Schema.Literal("Hour", "Day", "Week", "Month")
export type RetentionPeriod = typeof RetentionPeriod.Type

export const RetentionFilter = Schema.Struct({
  retentionType: Schema.optional(Schema.NullOr(Schema.Literal("retention_first_time", "retention_recurring"))),
  period: Schema.optional(Schema.NullOr(RetentionPeriod)),
  totalIntervals: Schema.optional(Schema.NullOr(Schema.Int.pipe(Schema.between(1, 400)))),
  targetEntity: Schema.optional(Schema.NullOr(RetentionEntity)),
  returningEntity: Schema.optional(Schema.NullOr(RetentionEntity))
})

export const RetentionQuery = Schema.Struct({
  kind: Schema.Literal("RetentionQuery"),
  dateRange: Schema.optional(Schema.NullOr(DateRange)),
  properties: Schema.optional(Properties),
  retentionFilter: RetentionFilter
}).annotations({ identifier: "RetentionQuery" })
export type RetentionQuery = typeof RetentionQuery.Type

export interface RetentionCohort {
  readonly date: string
  readonly label: string
  readonly values: ReadonlyArray<{ readonly count: number }>
}

const DEFAULT_INTERVALS = 8

/** How a period is written in ZedQL: its first start, a start shifted, and the index of a moment. */
const periodExprs = (period: RetentionPeriod, anchor: A.Expr, intervals: number, weekStartDay: 0 | 1) => {
  const back = intervals - 1
  switch (period) {
    case "Hour":
      return {
        first: Q.expr`subtractHours(toStartOfHour(${anchor}), ${back})`,
        start: (first: A.Expr, i: A.Expr) => Q.expr`addHours(${first}, ${i})`,
        index: (first: A.Expr, ts: A.Expr) => Q.expr`dateDiff('hour', ${first}, ${ts})`
      }
    case "Day":
      return {
        first: Q.expr`subtractDays(toDate(${anchor}), ${back})`,
        start: (first: A.Expr, i: A.Expr) => Q.expr`toDateTime(addDays(${first}, ${i}))`,
        index: (first: A.Expr, ts: A.Expr) => Q.expr`dateDiff('day', ${first}, ${ts})`
      }
    case "Week":
      return {
        first: Q.expr`subtractWeeks(toStartOfWeek(${anchor}, ${weekStartDay}), ${back})`,
        start: (first: A.Expr, i: A.Expr) => Q.expr`toDateTime(addWeeks(${first}, ${i}))`,
        // Days from the first week's start to the event's week's start, in whole weeks.
        index: (first: A.Expr, ts: A.Expr) =>
          Q.expr`intDiv(dateDiff('day', ${first}, toStartOfWeek(${ts}, ${weekStartDay})), 7)`
      }
    case "Month":
      return {
        first: Q.expr`subtractMonths(toStartOfMonth(${anchor}), ${back})`,
        start: (first: A.Expr, i: A.Expr) => Q.expr`toDateTime(addMonths(${first}, ${i}))`,
        index: (first: A.Expr, ts: A.Expr) => Q.expr`dateDiff('month', ${first}, ${ts})`
      }
  }
}

/** The events an entity stands for. Throws `UnsupportedFilter`. */
const entityCondition = (entity: RetentionEntity | null | undefined): A.Expr =>
  Q.and([
    ...entityConditions(
      entity?.type === "actions"
        ? { kind: "ActionsNode", id: Number(entity.id) }
        : { event: entity?.id == null ? null : String(entity.id) }
    ),
    ...propertyConditions(entity?.properties)
  ])

/** A DateTime in a period's label as PostHog writes it: no fraction, `Z` for UTC. */
const dateLabel = (value: unknown): string =>
  String(value)
    .replace(/\.\d+/, "")
    .replace(/\+00:00$/, "Z")

/** The table's cells per person, and what the table's shape needs. Throws `UnsupportedFilter`. */
const cellsOf = (query: RetentionQuery, ctx: InsightContext) => {
  const filter = query.retentionFilter
  const intervals = filter.totalIntervals ?? DEFAULT_INTERVALS
  const period = filter.period ?? "Day"
  const anchor = boundExpr(query.dateRange?.date_to) ?? NOW
  const p = periodExprs(period, anchor, intervals, ctx.weekStartDay)
  const index = p.index(p.first, Q.expr`timestamp`)
  const inRange = Q.expr`timestamp >= toDateTime(${p.first}) AND ${index} < ${intervals}`
  const scope = propertyConditions(query.properties)
  const target = Q.and([entityCondition(filter.targetEntity), ...scope])
  const returning = Q.and([entityCondition(filter.returningEntity ?? filter.targetEntity), ...scope])
  // One pass over the events, per person: the cohorts they are in and the periods they returned in.
  const cohorts =
    filter.retentionType === "retention_first_time"
      ? Q.expr`arrayFilter(x -> x >= 0 AND x < ${intervals}, [${p.index(p.first, Q.expr`minIf(timestamp, ${target})`)}])`
      : Q.expr`arrayDistinct(groupArrayIf(${index}, ${Q.and([target, inRange])}))`
  const returns = Q.expr`arrayDistinct(groupArrayIf(${index}, ${Q.and([returning, inRange])}))`
  const relevant = Q.or([
    filter.retentionType === "retention_first_time" ? target : Q.and([target, inRange]),
    Q.and([returning, inRange])
  ])
  // Per person, each cell of the table they count in: cohort c, interval j.
  const cells = Q.select`SELECT actor, c, j FROM (
    SELECT actor, c, arrayConcat([0], arrayFilter(x -> x > 0, arrayMap(r -> r - c, rs))) AS js FROM (
      SELECT person_id AS actor, ${cohorts} AS cs, ${returns} AS rs FROM events WHERE ${relevant} GROUP BY actor
    ) ARRAY JOIN cs AS c) ARRAY JOIN js AS j`
  return { intervals, period, p, cells, target, returning, index }
}

const plan = (query: RetentionQuery, ctx: InsightContext): InsightPlan => {
  const { cells, intervals, p, period } = cellsOf(query, ctx)
  const counts = Q.select`SELECT c, j, count() FROM ${cells} GROUP BY c, j ORDER BY c, j LIMIT ${ROWS}`
  const starts = Q.select`SELECT i, ${p.start(p.first, Q.expr`i`)} AS date FROM (SELECT arrayJoin(range(${intervals})) AS i) ORDER BY i LIMIT ${intervals}`
  const values = planValues(ctx)
  return {
    queries: [starts, counts],
    values,
    zedql: shownStatements([starts, counts], values, ";\n"),
    shape: ([startRows = [], countRows = []]) => {
      const count = new Map(countRows.map((r) => [`${r[0]}:${r[1]}`, Number(r[2])]))
      return startRows.map(
        (row, i): RetentionCohort => ({
          date: dateLabel(row[1]),
          label: `${period} ${i}`,
          values: Array.from({ length: intervals - i }, (_, j) => ({ count: count.get(`${i}:${j}`) ?? 0 }))
        })
      )
    }
  }
}

export const planRetention = (input: unknown, ctx: InsightContext): Effect.Effect<InsightPlan, InsightQueryInvalid> =>
  Effect.flatMap(decodeNode(RetentionQuery, input), (query) => {
    try {
      return Effect.succeed(plan(query, ctx))
    } catch (error) {
      if (error instanceof UnsupportedFilter) return invalid(error.message)
      throw error
    }
  })

/**
 * The persons behind a retention cell: cohort `cohort` (from 0), at `interval` (0: the cohort
 * itself) when given; their target events of the cohort's period matched them, and at a later
 * interval their returning events of that period too.
 */
export const retentionActors = (
  input: unknown,
  point: { readonly cohort: number; readonly interval?: number | null | undefined },
  ctx: InsightContext
): Effect.Effect<PointActors, InsightQueryInvalid> =>
  Effect.flatMap(decodeNode(RetentionQuery, input), (query) => {
    try {
      const { cells, index, returning, target } = cellsOf(query, ctx)
      const where = Q.and([
        Q.expr`c = ${point.cohort}`,
        ...(point.interval == null ? [] : [Q.expr`j = ${point.interval}`])
      ])
      const later = point.interval == null || point.interval === 0 ? [] : [point.cohort + point.interval]
      const matched = Q.or([
        Q.and([target, Q.expr`${index} = ${point.cohort}`]),
        ...later.map((i) => Q.and([returning, Q.expr`${index} = ${i}`]))
      ])
      return Effect.succeed({
        actors: Q.select`SELECT DISTINCT actor FROM ${cells} WHERE ${where}`,
        events: Q.select`SELECT person_id AS actor, uuid, \`$session_id\` AS session_id, timestamp FROM events WHERE ${matched}`
      })
    } catch (error) {
      if (error instanceof UnsupportedFilter) return invalid(error.message)
      throw error
    }
  })
