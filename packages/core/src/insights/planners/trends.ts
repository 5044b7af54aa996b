import { Effect, Schema } from "effect"
import type { InsightContext, InsightPlan, PointActors } from "../plan.js"
import {
  type Bucket,
  bucketKeyExpr,
  bucketsFrom,
  DateRange,
  instantOf,
  Interval,
  type Period,
  comparedPeriods,
  CompareFilter,
  pointPeriod,
  resolvePeriod,
  shift,
  timeBounds
} from "./dateRange.js"
import { decodeNode, invalid, type InsightQueryInvalid } from "./decode.js"
import { applyFormula, FormulaInvalid, maxRef, parseFormula } from "./formula.js"
import { Properties, UnsupportedFilter } from "./properties.js"
import { actionOf, aggregation, EventsNode, seriesAt, seriesConditions, seriesName } from "./series.js"
import type * as A from "../../zedql/ast.js"
import * as Q from "../../zedql/build.js"
import { planValues, propertyText, ROWS, shownStatements } from "./statements.js"

// TrendsQuery: one statement per series and compared period, each grouped by bucket (and
// breakdown value); buckets without rows are zeros. Breakdown values past `breakdown_limit` (the
// most frequent events first) are merged into PostHog's "other" value in the statement, so that
// distinct counts stay distinct. `filterTestAccounts` is accepted and has no effect: insights do not
// apply the project's `test_account_filters` yet.

export const BREAKDOWN_OTHER = "$$_posthog_breakdown_other_$$"
const TOTAL_DISPLAYS = ["BoldNumber", "ActionsPie", "ActionsTable", "ActionsBarValue", "WorldMap"]

export const TrendsQuery = Schema.Struct({
  kind: Schema.Literal("TrendsQuery"),
  series: Schema.Array(EventsNode).pipe(Schema.minItems(1)),
  interval: Schema.optional(Schema.NullOr(Interval)),
  dateRange: Schema.optional(Schema.NullOr(DateRange)),
  properties: Schema.optional(Properties),
  filterTestAccounts: Schema.optional(Schema.NullOr(Schema.Boolean)),
  breakdownFilter: Schema.optional(
    Schema.NullOr(
      Schema.Struct({
        breakdown_type: Schema.optional(Schema.NullOr(Schema.Literal("event", "person"))),
        breakdown: Schema.optional(Schema.NullOr(Schema.String)),
        breakdown_limit: Schema.optional(Schema.NullOr(Schema.Int.pipe(Schema.positive()))),
        breakdown_hide_other_aggregation: Schema.optional(Schema.NullOr(Schema.Boolean))
      })
    )
  ),
  compareFilter: Schema.optional(Schema.NullOr(CompareFilter)),
  trendsFilter: Schema.optional(
    Schema.NullOr(
      Schema.Struct({
        display: Schema.optional(Schema.NullOr(Schema.String)),
        formula: Schema.optional(Schema.NullOr(Schema.String)),
        formulaNodes: Schema.optional(
          Schema.NullOr(
            Schema.Array(
              Schema.Struct({
                formula: Schema.String,
                custom_name: Schema.optional(Schema.NullOr(Schema.String))
              })
            )
          )
        )
      })
    )
  )
})
export type TrendsQuery = typeof TrendsQuery.Type

type Row = ReadonlyArray<unknown>
const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v))

const breakdownProperty = (query: TrendsQuery): string | undefined =>
  query.breakdownFilter?.breakdown == null || query.breakdownFilter.breakdown === ""
    ? undefined
    : query.breakdownFilter.breakdown

/** The breakdown value of an event: its property's text, or "other" past the most frequent values in `where`. */
const breakdownOf = (query: TrendsQuery, where: ReadonlyArray<A.Expr>): A.Expr | undefined => {
  const property = breakdownProperty(query)
  if (property === undefined) return undefined
  const value = Q.expr`ifNull(${propertyText(property, query.breakdownFilter?.breakdown_type === "person" ? "person" : "event")}, '')`
  const top = Q.select`SELECT ${value} AS v FROM events WHERE ${Q.and(where)} GROUP BY v ORDER BY count() DESC, v LIMIT ${query.breakdownFilter?.breakdown_limit ?? 25}`
  return Q.expr`if(${value} IN ${top}, ${value}, ${BREAKDOWN_OTHER})`
}

/**
 * One statement: `[bucket,] [breakdown_value,] value` rows for a series over a period. The keys
 * are computed per event in a subquery, so that the outer GROUP BY names plain columns.
 */
const statement = (
  node: EventsNode,
  query: TrendsQuery,
  period: Period,
  total: boolean,
  ctx: InsightContext
): A.SelectLike => {
  const agg = aggregation(node)
  const conditions = seriesConditions(node, query.properties)
  const bounds = timeBounds(period)
  // By week or month (or over the whole range) a rolling window is the bucket's actors.
  const rolling =
    agg.rollingDays !== undefined && !total && period.interval === "day" && period.from !== null
      ? agg.rollingDays
      : undefined
  const where = Q.and([
    ...conditions,
    ...(rolling
      ? timeBounds(period, instantOf(shift(period.buckets[0]!.naive, "day", 1 - rolling), ctx.timezone))
      : bounds)
  ])
  const breakdown = breakdownOf(query, [...conditions, ...bounds])
  const bucket = rolling
    ? Q.expr`formatDateTime(addDays(toStartOfDay(timestamp), shift), '%Y-%m-%d')`
    : bucketKeyExpr(Q.expr`timestamp`, period.interval, ctx.weekStartDay)
  const keys = [
    ...(total ? [] : [Q.alias(bucket, "bucket")]),
    ...(breakdown ? [Q.alias(breakdown, "breakdown_value")] : [])
  ]
  const names = [...(total ? [] : [Q.field("bucket")]), ...(breakdown ? [Q.field("breakdown_value")] : [])]
  const perEvent = rolling
    ? Q.select`SELECT ${keys}, ${agg.input} AS x FROM events ARRAY JOIN range(0, ${rolling}) AS shift WHERE ${where}`
    : Q.select`SELECT ${keys}, ${agg.input} AS x FROM events WHERE ${where}`
  const source = agg.perActor ? Q.select`SELECT ${names}, count() AS n FROM ${perEvent} GROUP BY ${names}, x` : perEvent
  return Q.select`SELECT ${names}, ${agg.of(agg.perActor ? Q.field("n") : Q.field("x"))} AS value FROM ${source} GROUP BY ${names} LIMIT ${ROWS}`
}

interface SeriesResult {
  readonly node: EventsNode
  readonly order: number
  readonly breakdownValue: string | undefined
  readonly values: Map<string, number>
}

/** Rows by breakdown value (one group without a breakdown). */
const groups = (
  rows: ReadonlyArray<Row>,
  node: EventsNode,
  order: number,
  hasBuckets: boolean,
  hasBreakdown: boolean
): Array<SeriesResult> => {
  const byValue = new Map<string | undefined, Map<string, number>>()
  if (!hasBreakdown) byValue.set(undefined, new Map())
  for (const row of rows) {
    const key = hasBuckets ? String(row[0]) : ""
    const bv = hasBreakdown ? String(row[hasBuckets ? 1 : 0] ?? "") : undefined
    const values = byValue.get(bv) ?? new Map<string, number>()
    values.set(key, num(row.at(-1)))
    byValue.set(bv, values)
  }
  return [...byValue].map(([breakdownValue, values]) => ({ node, order, breakdownValue, values }))
}

const breakdownShown = (value: string | undefined) => (value === undefined ? undefined : value === "" ? "none" : value)

export const planTrends = (input: unknown, ctx: InsightContext): Effect.Effect<InsightPlan, InsightQueryInvalid> =>
  Effect.flatMap(decodeNode(TrendsQuery, input), (query) => {
    const interval = query.interval ?? "day"
    const display = query.trendsFilter?.display ?? "ActionsLineGraph"
    const total = TOTAL_DISPLAYS.includes(display)
    const cumulative = display === "ActionsLineGraphCumulative"
    const current = resolvePeriod(query.dateRange, interval, ctx)
    const periods = comparedPeriods(current, query.compareFilter, ctx)
    const comparing = periods.length > 1
    const formulaTexts = [
      ...(query.trendsFilter?.formulaNodes ?? []),
      ...(query.trendsFilter?.formula ? [{ formula: query.trendsFilter.formula, custom_name: null }] : [])
    ]
    let formulas
    let queries
    try {
      formulas = formulaTexts.map((f) => ({ ...f, tree: parseFormula(f.formula) }))
      for (const f of formulas)
        if (maxRef(f.tree) >= query.series.length)
          return invalid(`Formula "${f.formula}" names a series that does not exist`)
      queries = periods.flatMap((p) => query.series.map((node) => statement(node, query, p.period, total, ctx)))
    } catch (error) {
      if (error instanceof FormulaInvalid || error instanceof UnsupportedFilter) return invalid(error.message)
      throw error
    }
    const hasBreakdown = breakdownProperty(query) !== undefined
    const hideOther = query.breakdownFilter?.breakdown_hide_other_aggregation === true

    const shape = (results: ReadonlyArray<ReadonlyArray<Row>>) =>
      periods.flatMap((p, pi) => {
        const perSeries = query.series.map((node, order) =>
          groups(results[pi * query.series.length + order] ?? [], node, order, !total, hasBreakdown).filter(
            (s) => !(hideOther && s.breakdownValue === BREAKDOWN_OTHER)
          )
        )
        const buckets = bucketsFrom(
          p.period,
          perSeries.flat().flatMap((s) => [...s.values.keys()]),
          ctx
        )
        const dataOf = (values: Map<string, number>) => (total ? [] : buckets.map((b) => values.get(b.key) ?? 0))
        const aggregated = (values: Map<string, number>) => values.get("") ?? 0
        const entries =
          formulas.length === 0
            ? perSeries.flat().map((s) => ({
                s,
                name: seriesName(s.node),
                data: dataOf(s.values),
                aggregatedValue: aggregated(s.values)
              }))
            : formulas.flatMap((f) => {
                const values = [...new Set(perSeries.flat().map((s) => s.breakdownValue))]
                return values.map((bv) => {
                  const inputs = perSeries.map((list) => list.find((s) => s.breakdownValue === bv))
                  const dataIn = inputs.map((s) => (s ? dataOf(s.values) : buckets.map(() => 0)))
                  return {
                    s: { node: query.series[0]!, order: 0, breakdownValue: bv, values: new Map() },
                    name: f.custom_name ?? f.formula,
                    data: total
                      ? []
                      : buckets.map((_, j) =>
                          applyFormula(
                            f.tree,
                            dataIn.map((d) => d[j] ?? 0)
                          )
                        ),
                    aggregatedValue: applyFormula(
                      f.tree,
                      inputs.map((s) => (s ? aggregated(s.values) : 0))
                    )
                  }
                })
              })
        const several = query.series.length > 1 && formulas.length === 0
        return sortBreakdowns(
          entries.map((e) => {
            const data = cumulative ? running(e.data) : e.data
            const shown = breakdownShown(e.s.breakdownValue)
            return {
              data,
              labels: total ? [] : buckets.map((b) => b.label),
              days: total ? [] : buckets.map((b) => b.key),
              count: total ? 0 : cumulative ? (data.at(-1) ?? 0) : data.reduce((a, b) => a + b, 0),
              ...(total ? { aggregated_value: e.aggregatedValue } : {}),
              label: shown === undefined ? e.name : several ? `${e.name} - ${shown}` : shown,
              ...(shown === undefined ? {} : { breakdown_value: shown }),
              ...(comparing ? { compare: true, compare_label: p.label } : {}),
              action: actionOf(e.s.node, e.s.order, actionDays(buckets, total)),
              filter: {}
            }
          }),
          hasBreakdown
        )
      })
    const values = planValues(ctx)
    return Effect.succeed({ queries, values, shape, zedql: shownStatements(queries, values, "\nUNION ALL\n") })
  })

const running = (data: ReadonlyArray<number>) => {
  let sum = 0
  return data.map((v) => (sum += v))
}

const actionDays = (buckets: ReadonlyArray<Bucket>, total: boolean) =>
  total ? [] : buckets.map((b) => `${b.key.length === 10 ? `${b.key}T00:00:00` : b.key.replace(" ", "T")}Z`)

/** Breakdown series by size, "other" last; the series' own order first. */
const sortBreakdowns = <
  T extends {
    readonly count: number
    readonly aggregated_value?: number
    readonly breakdown_value?: string
    readonly action: { readonly order: number }
  }
>(
  list: Array<T>,
  hasBreakdown: boolean
): Array<T> => {
  if (!hasBreakdown) return list
  const size = (x: T) => x.aggregated_value ?? x.count
  const other = (x: T) => (x.breakdown_value === BREAKDOWN_OTHER ? 1 : 0)
  return [...list].sort(
    (a, b) =>
      a.action.order - b.action.order ||
      other(a) - other(b) ||
      size(b) - size(a) ||
      ((a.breakdown_value ?? "") < (b.breakdown_value ?? "")
        ? -1
        : (a.breakdown_value ?? "") > (b.breakdown_value ?? "")
          ? 1
          : 0)
  )
}

/**
 * Which point of a trend: its series (by order), its bucket (as `days` lists it), its breakdown
 * value, and its period (`previous`: the compared one, whose `days` are its own).
 */
export interface TrendPoint {
  readonly series: number
  readonly compare?: "current" | "previous" | null | undefined
  readonly day?: string | null | undefined
  readonly breakdown?: string | null | undefined
}

/**
 * The persons behind one point of a trend: those with an event of the series in the point's bucket
 * and breakdown value, within the range; those events matched them.
 */
export const trendActors = (
  input: unknown,
  point: TrendPoint,
  ctx: InsightContext
): Effect.Effect<PointActors, InsightQueryInvalid> =>
  Effect.flatMap(decodeNode(TrendsQuery, input), (query) =>
    Effect.flatMap(seriesAt(query.series, point.series), (node) => {
      const period = pointPeriod(query, point.compare, ctx)
      try {
        const conditions = [...seriesConditions(node, query.properties), ...timeBounds(period)]
        const breakdown = breakdownOf(query, conditions)
        const value = point.breakdown === "none" ? "" : point.breakdown
        const where = Q.and([
          ...conditions,
          ...(point.day == null
            ? []
            : [Q.expr`${bucketKeyExpr(Q.expr`timestamp`, period.interval, ctx.weekStartDay)} = ${point.day}`]),
          ...(breakdown === undefined || value == null ? [] : [Q.expr`${breakdown} = ${value}`])
        ])
        return Effect.succeed({
          actors: Q.select`SELECT DISTINCT person_id AS actor FROM events WHERE ${where}`,
          events: Q.select`SELECT person_id AS actor, uuid, \`$session_id\` AS session_id, timestamp FROM events WHERE ${where}`
        })
      } catch (error) {
        if (error instanceof UnsupportedFilter) return invalid(error.message)
        throw error
      }
    })
  )
