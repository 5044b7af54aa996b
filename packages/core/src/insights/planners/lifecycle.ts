import { Effect, Schema } from "effect"
import type { InsightContext, InsightPlan, PointActors } from "../plan.js"
import { bucketStartExpr, DateRange, instantOf, Interval, resolvePeriod, shift, timeBounds } from "./dateRange.js"
import { decodeNode, invalid, type InsightQueryInvalid } from "./decode.js"
import { Properties, UnsupportedFilter } from "./properties.js"
import { actionOf, EventsNode, seriesConditions, seriesName } from "./series.js"
import * as Q from "../../zedql/build.js"
import type * as A from "../../zedql/ast.js"
import { planValues, ROWS, shownStatements } from "./statements.js"

// LifecycleQuery: each interval, the persons who did the event, by status. `new`: first seen
// (person created) in the interval; `returning`: also active the interval before; `resurrecting`:
// not active the interval before, created earlier; `dormant` (negative): active the interval
// before, not in this one. Activity is read from one interval before the range, so that the
// first interval's statuses are right.

export const STATUSES = ["new", "returning", "resurrecting", "dormant"] as const

export const LifecycleQuery = Schema.Struct({
  kind: Schema.Literal("LifecycleQuery"),
  series: Schema.Tuple(EventsNode),
  interval: Schema.optional(Schema.NullOr(Interval)),
  dateRange: Schema.optional(Schema.NullOr(DateRange)),
  properties: Schema.optional(Properties),
  filterTestAccounts: Schema.optional(Schema.NullOr(Schema.Boolean)),
  lifecycleFilter: Schema.optional(
    Schema.NullOr(
      Schema.Struct({
        toggledLifecycles: Schema.optional(Schema.NullOr(Schema.Array(Schema.Literal(...STATUSES))))
      })
    )
  )
})
export type LifecycleQuery = typeof LifecycleQuery.Type

const UNIT_FUNCTION = { hour: "Hours", day: "Days", week: "Weeks", month: "Months" } as const

/**
 * Per person (`person_id`) and bucket of the period (its key, `bucket`), their `status` there, as
 * the lifecycle counts them; with the period. Fails when the range has no start.
 */
const statuses = (query: LifecycleQuery, ctx: InsightContext) => {
  const interval = query.interval ?? "day"
  const period = resolvePeriod(query.dateRange, interval, ctx)
  if (period.from === null) return invalid('A lifecycle insight needs a date range with a start (not "all")')
  const node = query.series[0]
  const fmt = interval === "hour" ? "%Y-%m-%d %H:%i:%S" : "%Y-%m-%d"
  const next = (x: A.Expr) => Q.call(`add${UNIT_FUNCTION[interval]}`, [x, { node: "Constant", value: 1 }])
  const previous = (x: A.Expr) => Q.call(`subtract${UNIT_FUNCTION[interval]}`, [x, { node: "Constant", value: 1 }])
  let where: A.Expr
  try {
    const lookBack = instantOf(shift(period.buckets[0]!.naive, interval, -1), ctx.timezone)
    where = Q.and([...seriesConditions(node, query.properties), ...timeBounds(period, lookBack)])
  } catch (error) {
    if (error instanceof UnsupportedFilter) return invalid(error.message)
    throw error
  }
  const start = (x: A.Expr) => bucketStartExpr(x, interval, ctx.weekStartDay)
  const periodColumn = Q.expr`period`
  const activity = Q.select`SELECT person_id, ${start(Q.expr`timestamp`)} AS period, min(${start(Q.expr`person.created_at`)}) AS created FROM events WHERE ${where} GROUP BY person_id, period`
  const active = Q.select`SELECT person_id, formatDateTime(period, ${fmt}) AS bucket, multiIf(created = period, 'new', prev = ${previous(periodColumn)}, 'returning', 'resurrecting') AS status FROM activity`
  const dormant = Q.select`SELECT person_id, formatDateTime(${next(periodColumn)}, ${fmt}) AS bucket, 'dormant' AS status FROM activity WHERE isNull(following) OR following != ${next(periodColumn)}`
  const rows = Q.select`WITH activity AS (SELECT person_id, period, created, lagInFrame(period) OVER (PARTITION BY person_id ORDER BY period) AS prev, leadInFrame(period) OVER (PARTITION BY person_id ORDER BY period) AS following FROM ${activity}) SELECT person_id, bucket, status FROM ${Q.unionAll(active, dormant)}`
  const bucketOf = (x: A.Expr) => Q.call("formatDateTime", [start(x), Q.constant(fmt)])
  return Effect.succeed({ period, node, rows, where, bucketOf })
}

/**
 * The persons behind a lifecycle point: `status` in bucket `day`; their events of the series in that
 * bucket matched them (the dormant have none there).
 */
export const lifecycleActors = (
  input: unknown,
  point: { readonly day?: string | null | undefined; readonly status?: string | null | undefined },
  ctx: InsightContext
): Effect.Effect<PointActors, InsightQueryInvalid> =>
  Effect.flatMap(decodeNode(LifecycleQuery, input), (query) =>
    Effect.map(statuses(query, ctx), ({ bucketOf, rows, where }) => {
      const day = point.day == null ? [] : [Q.expr`${bucketOf(Q.expr`timestamp`)} = ${point.day}`]
      const matched = Q.and([where, ...day, ...(point.status === "dormant" ? [Q.constant(false)] : [])])
      return {
        actors: Q.select`SELECT DISTINCT person_id AS actor FROM ${rows} WHERE ${Q.and([
          ...(point.day == null ? [] : [Q.expr`bucket = ${point.day}`]),
          ...(point.status == null ? [] : [Q.expr`status = ${point.status}`])
        ])}`,
        events: Q.select`SELECT person_id AS actor, uuid, \`$session_id\` AS session_id, timestamp FROM events WHERE ${matched}`
      }
    })
  )

export const planLifecycle = (input: unknown, ctx: InsightContext): Effect.Effect<InsightPlan, InsightQueryInvalid> =>
  Effect.flatMap(decodeNode(LifecycleQuery, input), (query) =>
    Effect.map(statuses(query, ctx), ({ node, period, rows }) => {
      const statement = Q.select`SELECT bucket, status, count() AS persons FROM ${rows} GROUP BY bucket, status LIMIT ${ROWS}`
      const toggled = query.lifecycleFilter?.toggledLifecycles ?? STATUSES
      const shape = (results: ReadonlyArray<ReadonlyArray<ReadonlyArray<unknown>>>) => {
        const rows = results[0] ?? []
        const buckets = period.buckets
        const counts = new Map(rows.map(([bucket, status, persons]) => [`${status}|${bucket}`, Number(persons)]))
        return STATUSES.filter((s) => toggled.includes(s)).map((status) => {
          const data = buckets.map((b) => {
            const n = counts.get(`${status}|${b.key}`) ?? 0
            return status === "dormant" ? 0 - n : n
          })
          return {
            data,
            labels: buckets.map((b) => b.label),
            days: buckets.map((b) => b.key),
            count: data.reduce((a, b) => a + b, 0),
            label: `${seriesName(node)} - ${status}`,
            status,
            action: actionOf(node, 0, []),
            filter: {}
          }
        })
      }
      const values = planValues(ctx)
      return { queries: [statement], values, shape, zedql: shownStatements([statement], values, "") }
    })
  )
