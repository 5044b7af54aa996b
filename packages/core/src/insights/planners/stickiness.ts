import { Effect, Schema } from "effect"
import type { InsightContext, InsightPlan, PointActors } from "../plan.js"
import {
  bucketKeyExpr,
  comparedPeriods,
  pointPeriod,
  CompareFilter,
  DateRange,
  Interval,
  type Period,
  resolvePeriod,
  timeBounds
} from "./dateRange.js"
import { decodeNode, invalid, type InsightQueryInvalid } from "./decode.js"
import { Properties, UnsupportedFilter } from "./properties.js"
import { actionOf, EventsNode, seriesAt, seriesConditions, seriesName } from "./series.js"
import type * as A from "../../zedql/ast.js"
import * as Q from "../../zedql/build.js"
import { planValues, ROWS, shownStatements } from "./statements.js"

// StickinessQuery: for each series, how many persons did it in exactly k of the period's
// intervals (k = 1 … number of intervals), or in at least k when cumulative. An interval counts
// for a person when their events in it meet `stickinessCriteria` (at least one by default).

const CRITERIA = { gte: ">=", lte: "<=", exact: "==" } as const

export const StickinessQuery = Schema.Struct({
  kind: Schema.Literal("StickinessQuery"),
  series: Schema.Array(EventsNode).pipe(Schema.minItems(1)),
  interval: Schema.optional(Schema.NullOr(Interval)),
  dateRange: Schema.optional(Schema.NullOr(DateRange)),
  properties: Schema.optional(Properties),
  filterTestAccounts: Schema.optional(Schema.NullOr(Schema.Boolean)),
  compareFilter: Schema.optional(Schema.NullOr(CompareFilter)),
  stickinessFilter: Schema.optional(
    Schema.NullOr(
      Schema.Struct({
        computedAs: Schema.optional(Schema.NullOr(Schema.Literal("non_cumulative", "cumulative"))),
        stickinessCriteria: Schema.optional(
          Schema.NullOr(
            Schema.Struct({
              operator: Schema.Literal("gte", "lte", "exact"),
              value: Schema.Int.pipe(Schema.positive())
            })
          )
        )
      })
    )
  )
})
export type StickinessQuery = typeof StickinessQuery.Type

/**
 * Per person (`person_id`), the number of intervals (`intervals`) of the period in which their
 * events of the series meet the criteria. Throws `UnsupportedFilter`.
 */
/** The series' events in the period. Throws `UnsupportedFilter`. */
const seriesEvents = (query: StickinessQuery, node: EventsNode, period: Period) =>
  Q.and([...seriesConditions(node, query.properties), ...timeBounds(period)])

const intervalsPerPerson = (query: StickinessQuery, node: EventsNode, period: Period, ctx: InsightContext) => {
  const criteria = query.stickinessFilter?.stickinessCriteria
  const where = seriesEvents(query, node, period)
  const bucket = bucketKeyExpr(Q.expr`timestamp`, query.interval ?? "day", ctx.weekStartDay)
  const active = criteria
    ? Q.select`SELECT person_id, ${bucket} AS bucket FROM events WHERE ${where} GROUP BY person_id, bucket HAVING ${{
        node: "CompareOperation",
        op: CRITERIA[criteria.operator],
        left: Q.expr`count()`,
        right: { node: "Constant", value: criteria.value }
      }}`
    : Q.select`SELECT person_id, ${bucket} AS bucket FROM events WHERE ${where} GROUP BY person_id, bucket`
  return Q.select`SELECT person_id, count() AS intervals FROM ${active} GROUP BY person_id`
}

/**
 * The persons behind a stickiness point: of series `series`, those active in exactly `intervals`
 * intervals (at least that many when cumulative), in the date range or the period it is compared
 * with; the series' events there matched them.
 */
export const stickinessActors = (
  input: unknown,
  point: {
    readonly series: number
    readonly intervals: number
    readonly compare?: "current" | "previous" | null | undefined
  },
  ctx: InsightContext
): Effect.Effect<PointActors, InsightQueryInvalid> =>
  Effect.flatMap(decodeNode(StickinessQuery, input), (query) =>
    Effect.flatMap(seriesAt(query.series, point.series), (node) => {
      const period = pointPeriod(query, point.compare, ctx)
      if (period.from === null) return invalid('A stickiness insight needs a date range with a start (not "all")')
      try {
        const perPerson = intervalsPerPerson(query, node, period, ctx)
        return Effect.succeed({
          actors:
            query.stickinessFilter?.computedAs === "cumulative"
              ? Q.select`SELECT person_id AS actor FROM ${perPerson} WHERE intervals >= ${point.intervals}`
              : Q.select`SELECT person_id AS actor FROM ${perPerson} WHERE intervals = ${point.intervals}`,
          events: Q.select`SELECT person_id AS actor, uuid, \`$session_id\` AS session_id, timestamp FROM events WHERE ${seriesEvents(query, node, period)}`
        })
      } catch (error) {
        if (error instanceof UnsupportedFilter) return invalid(error.message)
        throw error
      }
    })
  )

export const planStickiness = (input: unknown, ctx: InsightContext): Effect.Effect<InsightPlan, InsightQueryInvalid> =>
  Effect.flatMap(decodeNode(StickinessQuery, input), (query) => {
    const interval = query.interval ?? "day"
    const current = resolvePeriod(query.dateRange, interval, ctx)
    if (current.from === null) return invalid('A stickiness insight needs a date range with a start (not "all")')
    const periods = comparedPeriods(current, query.compareFilter, ctx)
    const comparing = periods.length > 1
    let queries: Array<A.SelectLike>
    try {
      queries = periods.flatMap((p) =>
        query.series.map(
          (node) =>
            Q.select`SELECT intervals, count() AS persons FROM ${intervalsPerPerson(query, node, p.period, ctx)} GROUP BY intervals LIMIT ${ROWS}`
        )
      )
    } catch (error) {
      if (error instanceof UnsupportedFilter) return invalid(error.message)
      throw error
    }
    const n = current.buckets.length
    const days = Array.from({ length: n }, (_, i) => i + 1)
    const labels = days.map((d) => `${d} ${interval}${d === 1 ? "" : "s"}`)
    const cumulative = query.stickinessFilter?.computedAs === "cumulative"
    const shape = (results: ReadonlyArray<ReadonlyArray<ReadonlyArray<unknown>>>) =>
      periods.flatMap((p, pi) =>
        query.series.map((node, order) => {
          const exact = days.map(() => 0)
          for (const [k, persons] of results[pi * query.series.length + order] ?? []) {
            const i = Number(k) - 1
            if (i >= 0 && i < n) exact[i] = Number(persons)
          }
          // At least k: the persons with k or more intervals.
          const data = cumulative ? exact.map((_, i) => exact.slice(i).reduce((a, b) => a + b, 0)) : exact
          return {
            data,
            days,
            labels,
            count: data.reduce((a, b) => a + b, 0),
            label: seriesName(node),
            ...(comparing ? { compare: true, compare_label: p.label } : {}),
            action: actionOf(node, order, []),
            filter: {}
          }
        })
      )
    const values = planValues(ctx)
    return Effect.succeed({ queries, values, shape, zedql: shownStatements(queries, values, "\nUNION ALL\n") })
  })
