import { Effect, Schema } from "effect"
import type { InsightContext, InsightPlan } from "../plan.js"
import type * as A from "../../zedql/ast.js"
import * as Q from "../../zedql/build.js"
import { dateRangeConditions, propertyConditions, stepCondition, StepNode, stepName, windowEnd } from "./conditions.js"
import { bucketKeyExpr, bucketsFrom, DateRange, Interval, type Period, resolvePeriod, timeBounds } from "./dateRange.js"
import { decodeNode, type InsightQueryInvalid, invalid } from "./decode.js"
import { Properties, UnsupportedFilter } from "./properties.js"
import { planValues, propertyText, ROWS, shownStatements } from "./statements.js"

// FunnelsQuery → ZedQL. Per person, every event that can start the funnel is a candidate; the
// planner finds for each candidate the earliest time of each later step (ordered: any events in
// between; strict: the very next events; unordered: any order) inside the conversion window, and
// keeps per person the candidate that gets furthest, as PostHog does: the one reaching that step
// first, from the latest start. Conversion times are whole seconds between consecutive steps.
// Conversion over time (`funnelVizType: "trends"`) instead keeps every candidate: per person and
// interval of the start, the furthest step reached, as PostHog's funnel trends count entrances.

export const WINDOW_UNITS = ["second", "minute", "hour", "day", "week", "month"] as const

/** An event that, between two steps of a person's path, drops the person from the funnel. */
export const FunnelExclusion = Schema.Struct({
  ...StepNode.fields,
  funnelFromStep: Schema.Int.pipe(Schema.nonNegative()),
  funnelToStep: Schema.Int.pipe(Schema.positive())
})
export type FunnelExclusion = typeof FunnelExclusion.Type

export const FunnelsFilter = Schema.Struct({
  funnelVizType: Schema.optional(Schema.NullOr(Schema.Literal("steps", "time_to_convert", "trends"))),
  funnelOrderType: Schema.optional(Schema.NullOr(Schema.Literal("ordered", "strict", "unordered"))),
  funnelWindowInterval: Schema.optional(Schema.NullOr(Schema.Int.pipe(Schema.positive()))),
  funnelWindowIntervalUnit: Schema.optional(Schema.NullOr(Schema.Literal(...WINDOW_UNITS))),
  breakdownAttributionType: Schema.optional(Schema.NullOr(Schema.Literal("first_touch"))),
  funnelFromStep: Schema.optional(Schema.NullOr(Schema.Int.pipe(Schema.nonNegative()))),
  funnelToStep: Schema.optional(Schema.NullOr(Schema.Int.pipe(Schema.nonNegative()))),
  binCount: Schema.optional(Schema.NullOr(Schema.Int.pipe(Schema.positive()))),
  exclusions: Schema.optional(Schema.NullOr(Schema.Array(FunnelExclusion)))
})

export const FunnelsBreakdownFilter = Schema.Struct({
  breakdown_type: Schema.optional(Schema.NullOr(Schema.Literal("event", "person"))),
  breakdown: Schema.optional(Schema.NullOr(Schema.String)),
  breakdown_limit: Schema.optional(Schema.NullOr(Schema.Int.pipe(Schema.positive())))
})

export const FunnelsQuery = Schema.Struct({
  kind: Schema.Literal("FunnelsQuery"),
  series: Schema.Array(StepNode).pipe(Schema.minItems(2)),
  dateRange: Schema.optional(Schema.NullOr(DateRange)),
  /** The intervals of conversion over time (default `day`). */
  interval: Schema.optional(Schema.NullOr(Interval)),
  properties: Schema.optional(Properties),
  breakdownFilter: Schema.optional(Schema.NullOr(FunnelsBreakdownFilter)),
  funnelsFilter: Schema.optional(Schema.NullOr(FunnelsFilter))
}).annotations({ identifier: "FunnelsQuery" })
export type FunnelsQuery = typeof FunnelsQuery.Type

/** The bucket breakdown values past `breakdown_limit` go to, as in PostHog. */
export const BREAKDOWN_OTHER = "$$_posthog_breakdown_other_$$"
const DEFAULT_BREAKDOWN_LIMIT = 25

export interface FunnelStep {
  readonly action_id: string | null
  readonly name: string
  readonly custom_name: string | null
  readonly order: number
  readonly type: "events"
  readonly count: number
  readonly people: ReadonlyArray<never>
  readonly average_conversion_time: number | null
  readonly median_conversion_time: number | null
  readonly breakdown?: string
  readonly breakdown_value?: string
}

/** Conversion over time, per breakdown value: the rate (percent) per interval of the first step. */
export interface FunnelTrend {
  readonly count: number
  readonly data: ReadonlyArray<number>
  readonly days: ReadonlyArray<string>
  readonly labels: ReadonlyArray<string>
  readonly breakdown_value?: string
}

export interface TimeToConvert {
  readonly bins: ReadonlyArray<readonly [number, number]>
  readonly average_conversion_time: number | null
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i)
/** Generated columns: `t0 … t{n-1}` the times of a path's steps, `c{k}` a person's candidates' times, … */
const names = (prefix: string, n: number) => range(n).map((i) => `${prefix}${i}`)
const col = (prefix: string, k: number) => Q.field(`${prefix}${k}`)
const cols = (prefix: string, n: number) => names(prefix, n).map((name) => Q.field(name))

/** A candidate's level, the number of steps it reaches, from its times `t0 … t{n-1}`. */
const levelOf = (n: number) =>
  Q.call("multiIf", [
    ...range(n)
      .slice(1)
      .reverse()
      .flatMap((k) => [Q.expr`isNotNull(${col("t", k)})`, Q.constant(k + 1)]),
    Q.constant(1)
  ])
/** When a candidate reaches the furthest step it reaches. */
const lastOf = (n: number) => Q.call("coalesce", cols("t", n).reverse())

/**
 * Per person (`actor, bd`) the candidate starts, as arrays side by side: `c{k}` the time each
 * reaches step k (NULL when it does not), `levels` how many steps each reaches and `lasts` when it
 * reaches the furthest of them; from the events subquery `source`.
 */
const candidates = (
  order: "ordered" | "strict" | "unordered",
  n: number,
  source: A.SelectLike,
  windowEnd: (start: A.Expr) => A.Expr
): A.SelectLike => {
  if (order === "strict") {
    // The next k events of the person must be steps 1…k: found by windows, one row per start.
    const leads = range(n)
      .slice(1)
      .flatMap((k) => [
        Q.alias(Q.expr`leadInFrame(${col("s", k)}, ${k}) OVER w`, `n${k}`),
        Q.alias(Q.expr`leadInFrame(timestamp, ${k}) OVER w`, `l${k}`)
      ])
    const chain = range(n)
      .slice(1)
      .map((k) => {
        const next = Q.and([
          ...range(k + 1)
            .slice(1)
            .map((j) => Q.expr`ifNull(${col("n", j)}, false)`),
          Q.expr`${col("l", k)} <= ${windowEnd(Q.field("timestamp"))}`
        ])
        return Q.alias(Q.expr`if(${next}, ${col("l", k)}, NULL)`, `t${k}`)
      })
    const rows = Q.select`SELECT actor, bd, timestamp AS t0, ${chain} FROM (
      SELECT actor, timestamp, s0, first_value(prop) OVER (PARTITION BY actor, s0 ORDER BY timestamp, uuid) AS bd, ${leads}
      FROM ${source} WINDOW w AS (PARTITION BY actor ORDER BY timestamp, uuid)) WHERE s0`
    // Times past a row's level are never read: the start's stands in, as groupArray skips NULLs.
    const starts = range(n).map((k) =>
      Q.alias(Q.expr`groupArray(${k === 0 ? col("t", 0) : Q.expr`coalesce(${col("t", k)}, t0)`})`, `c${k}`)
    )
    return Q.select`SELECT actor, bd, groupArray(${levelOf(n)}) AS levels, groupArray(${lastOf(n)}) AS lasts, ${starts} FROM ${rows} GROUP BY actor, bd`
  }
  const a = cols("a", n)
  const arrays = range(n).map((k) => Q.alias(Q.expr`arraySort(groupArrayIf(timestamp, ${col("s", k)}))`, `a${k}`))
  const perActor =
    order === "unordered"
      ? Q.select`SELECT actor, argMin(prop, timestamp) AS bd, ${arrays} FROM ${source} GROUP BY actor`
      : Q.select`SELECT actor, argMinIf(prop, timestamp, s0) AS bd, ${arrays} FROM ${source} GROUP BY actor HAVING countIf(s0) > 0`
  let query: A.SelectLike
  if (order === "unordered") {
    // From each step event, the first time of every step within the window; sorted, they are the path.
    const f = cols("f", n)
    const firstTimes = range(n).map((j) =>
      Q.alias(
        Q.expr`arrayMap(s -> arrayMin(arrayFilter(x -> x >= s AND x <= ${windowEnd(Q.field("s"))}, ${col("a", j)})), starts)`,
        `f${j}`
      )
    )
    const firsts = Q.select`SELECT actor, bd, ${firstTimes} FROM (SELECT actor, bd, ${a}, arrayConcat(${a}) AS starts FROM ${perActor})`
    const path = Q.expr`arraySort(arrayFilter(x -> isNotNull(x), [${f}]))`
    const steps = range(n).map((k) =>
      Q.alias(Q.call("arrayMap", [Q.lambda(names("f", n), Q.expr`arrayElement(${path}, ${k + 1})`), ...f]), `c${k}`)
    )
    query = Q.select`SELECT actor, bd, ${steps} FROM ${firsts}`
  } else {
    // Ordered: for each start, each step's earliest event after the previous step's, within the
    // window from the start; one subquery per step, so that each reads the previous one's times.
    query = perActor
    for (let k = 1; k < n; k++) {
      const previous = k === 1 ? col("a", 0) : col("c", k - 1)
      const step = Q.alias(
        Q.expr`arrayMap((s, p) -> arrayMin(arrayFilter(x -> x > p AND x <= ${windowEnd(Q.field("s"))}, ${col("a", k)})), a0, ${previous})`,
        `c${k}`
      )
      query = Q.select`SELECT actor, bd, ${[col("a", 0), ...a.slice(k + 1), ...cols("c", k).slice(1), step]} FROM ${query}`
    }
    query = Q.select`SELECT actor, bd, a0 AS c0, ${cols("c", n).slice(1)} FROM ${query}`
  }
  const c = cols("c", n)
  const t = names("t", n)
  return Q.select`SELECT actor, bd, ${Q.call("arrayMap", [Q.lambda(t.slice(1), levelOf(n)), ...c.slice(1)])} AS levels,
    ${Q.call("arrayMap", [Q.lambda(t, lastOf(n)), ...c])} AS lasts, ${c} FROM ${query}`
}

const windowEndOf = (query: FunnelsQuery) =>
  windowEnd(query.funnelsFilter?.funnelWindowInterval ?? 14, query.funnelsFilter?.funnelWindowIntervalUnit ?? "day")

const breakdownExpr = (query: FunnelsQuery): A.Expr | undefined => {
  const filter = query.breakdownFilter
  if (filter?.breakdown == null) return undefined
  return Q.expr`ifNull(${propertyText(filter.breakdown, filter.breakdown_type === "person" ? "person" : "event")}, '')`
}

/** Two steps of an n-step funnel, the first before the second, from what a query asks. */
const stepRange = (n: number, from: number, to: number) => {
  const first = Math.min(from, n - 2)
  return { from: first, to: Math.max(first + 1, Math.min(to, n - 1)) }
}

/**
 * Persons whose path has an exclusion event after its `funnelFromStep` step and before its
 * `funnelToStep` step (or, when the path stops short of it, within the window) are dropped.
 */
const withoutExcluded = (query: FunnelsQuery, paths: A.SelectLike, scope: ReadonlyArray<A.Expr>): A.SelectLike => {
  const exclusions = query.funnelsFilter?.exclusions ?? []
  if (exclusions.length === 0) return paths
  const n = query.series.length
  const windowEnd = windowEndOf(query)
  const arrays = exclusions.map((x, i) => Q.alias(Q.expr`groupArrayIf(timestamp, ${stepCondition(x)})`, `x${i}`))
  const hits = exclusions.map((x, i) => {
    const { from, to } = stepRange(n, x.funnelFromStep, x.funnelToStep)
    const [after, before] = [Q.field("paths", `t${from}`), Q.field("paths", `t${to}`)]
    return Q.expr`arrayExists(e -> e > ${after} AND if(isNull(${before}), e <= ${windowEnd(Q.field("paths", "t0"))}, e < ${before}), ${Q.field("excluded", `x${i}`)})`
  })
  const times = names("t", n).map((t) => Q.alias(Q.field("paths", t), t))
  return Q.select`SELECT paths.actor AS actor, paths.bd AS bd, paths.reached AS reached, ${times}
    FROM ${paths} AS paths LEFT JOIN (SELECT person_id AS actor, ${arrays} FROM events
      WHERE ${Q.and([...scope, Q.or(exclusions.map(stepCondition))])} GROUP BY actor) AS excluded ON paths.actor = excluded.actor
    WHERE NOT (${Q.or(hits)})`
}

/** The events a funnel reads: in its date range, with its properties. */
const scopeOf = (query: FunnelsQuery): Array<A.Expr> => [
  ...dateRangeConditions(query.dateRange, "-7d"),
  ...propertyConditions(query.properties)
]

/** Per person the candidates (see `candidates`) from the events in `scope`. */
const candidatesIn = (query: FunnelsQuery, scope: ReadonlyArray<A.Expr>): A.SelectLike => {
  const n = query.series.length
  const order = query.funnelsFilter?.funnelOrderType ?? "ordered"
  const steps = query.series.map(stepCondition)
  // Strict funnels see every event of the person: any other event in between breaks the chain.
  const where = Q.and(order === "strict" ? [...scope] : [...scope, Q.or(steps)])
  const source = Q.select`SELECT person_id AS actor, timestamp, uuid, ${breakdownExpr(query) ?? ""} AS prop,
    ${steps.map((s, k) => Q.alias(s, `s${k}`))} FROM events WHERE ${where}`
  return candidates(order, n, source, windowEndOf(query))
}

/** The best candidate per person: `actor, bd, reached, t0 … t{n-1}`. */
const bestPaths = (query: FunnelsQuery): A.SelectLike => {
  const n = query.series.length
  const scope = scopeOf(query)
  const c = cols("c", n)
  // Per person the candidate reaching the furthest step first, from the latest start (reaching the
  // first step only: the earliest start). Among the candidates of one level a later start never
  // has an earlier time at any step, so the latest of those arriving first has each step's maximum.
  const reached = Q.select`SELECT actor, bd, levels, lasts, ${c}, arrayMax(levels) AS reached FROM ${candidatesIn(query, scope)}`
  const arrival = Q.select`SELECT actor, bd, levels, lasts, ${c}, reached,
    arrayMin(arrayFilter((last, level) -> level = reached, lasts, levels)) AS arrival FROM ${reached}`
  const pick = (k: number) =>
    Q.expr`arrayMax(arrayFilter((t, level, last) -> level = reached AND last = arrival, ${col("c", k)}, levels, lasts))`
  const times = range(n).map((k) => Q.alias(k === 0 ? pick(k) : Q.expr`if(reached > ${k}, ${pick(k)}, NULL)`, `t${k}`))
  return withoutExcluded(query, Q.select`SELECT actor, bd, reached, ${times} FROM ${arrival}`, scope)
}

/** Every candidate of every person, a row each: `actor, bd, reached, t0 … t{n-1}`, exclusions applied. */
const allPaths = (query: FunnelsQuery, scope: ReadonlyArray<A.Expr>): A.SelectLike => {
  const n = query.series.length
  const rows = Q.select`SELECT actor, bd, levels, ${cols("c", n)}, arrayJoin(range(1, length(levels) + 1)) AS i
    FROM ${candidatesIn(query, scope)}`
  const times = range(n).map((k) =>
    Q.alias(
      k === 0
        ? Q.expr`arrayElement(c0, i)`
        : Q.expr`if(arrayElement(levels, i) > ${k}, arrayElement(${col("c", k)}, i), NULL)`,
      `t${k}`
    )
  )
  return withoutExcluded(
    query,
    Q.select`SELECT actor, bd, arrayElement(levels, i) AS reached, ${times} FROM ${rows}`,
    scope
  )
}

/** The breakdown values kept: the `breakdown_limit` with the most persons; the rest are "other". */
const limitedBreakdown = (query: FunnelsQuery): A.Expr => {
  if (query.breakdownFilter?.breakdown == null) return Q.field("bd")
  const limit = query.breakdownFilter.breakdown_limit ?? DEFAULT_BREAKDOWN_LIMIT
  return Q.expr`if(bd IN (SELECT bd FROM best GROUP BY bd ORDER BY count() DESC, bd LIMIT ${limit}), bd, ${BREAKDOWN_OTHER})`
}

const stepsStatement = (query: FunnelsQuery): A.SelectLike => {
  const n = query.series.length
  const counts = range(n).map((k) => Q.expr`countIf(reached >= ${k + 1})`)
  const timesOf = range(n)
    .slice(1)
    .flatMap((k) => {
      const seconds = Q.expr`dateDiff('second', ${col("t", k - 1)}, ${col("t", k)})`
      return [Q.expr`avgIf(${seconds}, reached >= ${k + 1})`, Q.expr`medianIf(${seconds}, reached >= ${k + 1})`]
    })
  return Q.select`WITH best AS (${bestPaths(query)})
    SELECT breakdown, ${[...counts, ...timesOf]}
    FROM (SELECT ${limitedBreakdown(query)} AS breakdown, reached, ${cols("t", n)} FROM best)
    GROUP BY breakdown ORDER BY ${counts[0]!} DESC, breakdown LIMIT ${ROWS}`
}

/** The two steps time to convert and conversion over time measure: `funnelFromStep`, `funnelToStep` (default first, last). */
const measuredSteps = (query: FunnelsQuery) => {
  const n = query.series.length
  return stepRange(n, query.funnelsFilter?.funnelFromStep ?? 0, query.funnelsFilter?.funnelToStep ?? n - 1)
}

const timeToConvertStatement = (query: FunnelsQuery): A.SelectLike => {
  const { from, to } = measuredSteps(query)
  return Q.select`SELECT dateDiff('second', ${col("t", from)}, ${col("t", to)}) AS seconds, count() FROM ${bestPaths(query)}
    WHERE reached >= ${to + 1} GROUP BY seconds ORDER BY seconds LIMIT ${ROWS}`
}

/**
 * Per interval of the start and breakdown value, the persons who entered the funnel and reached
 * `funnelFromStep` and those of them who reached `funnelToStep`: a person counts once an interval,
 * with the furthest step any of their starts in it reached.
 */
const trendsStatement = (query: FunnelsQuery, period: Period, ctx: InsightContext): A.SelectLike => {
  const { from, to } = measuredSteps(query)
  const scope = [...timeBounds(period), ...propertyConditions(query.properties)]
  const day = bucketKeyExpr(col("t", 0), period.interval, ctx.weekStartDay)
  return Q.select`WITH best AS (SELECT actor, bd, ${day} AS day, max(reached) AS furthest FROM ${allPaths(query, scope)} GROUP BY actor, bd, day)
    SELECT day, breakdown, countIf(furthest >= ${from + 1}), countIf(furthest >= ${to + 1})
    FROM (SELECT day, ${limitedBreakdown(query)} AS breakdown, furthest FROM best)
    GROUP BY day, breakdown ORDER BY day, breakdown LIMIT ${ROWS}`
}

/** A conversion rate in percent, to 2 decimals as PostHog rounds it; 0 when nobody entered. */
const conversionRate = (entered: number, converted: number): number =>
  entered > 0 ? Math.round((converted / entered) * 10_000) / 100 : 0

const shapeTrends = (
  query: FunnelsQuery,
  period: Period,
  ctx: InsightContext,
  rows: ReadonlyArray<ReadonlyArray<unknown>>
): Array<FunnelTrend> => {
  const buckets = bucketsFrom(
    period,
    rows.map((r) => String(r[0])),
    ctx
  )
  const byValue = new Map<string, Map<string, readonly [number, number]>>()
  for (const [day, value, entered, converted] of rows) {
    const counts = byValue.get(String(value)) ?? new Map<string, readonly [number, number]>()
    counts.set(String(day), [Number(entered), Number(converted)])
    byValue.set(String(value), counts)
  }
  const trend = (counts: ReadonlyMap<string, readonly [number, number]>): FunnelTrend => ({
    count: buckets.length,
    data: buckets.map((b) => conversionRate(...(counts.get(b.key) ?? [0, 0]))),
    days: buckets.map((b) => b.key),
    labels: buckets.map((b) => b.label)
  })
  if (query.breakdownFilter?.breakdown == null) return [trend(byValue.get("") ?? new Map())]
  // By breakdown value, as PostHog lists them.
  return [...byValue]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([value, counts]) => ({ ...trend(counts), breakdown_value: value }))
}

const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value))

const shapeSteps = (query: FunnelsQuery, rows: ReadonlyArray<ReadonlyArray<unknown>>): unknown => {
  const n = query.series.length
  const steps = (row: ReadonlyArray<unknown>, breakdown: boolean): Array<FunnelStep> =>
    query.series.map((entity, k) => ({
      action_id: entity.event ?? null,
      name: stepName(entity),
      custom_name: entity.custom_name ?? null,
      order: k,
      type: "events",
      count: Number(row[1 + k]),
      people: [],
      average_conversion_time: k === 0 ? null : num(row[1 + n + 2 * (k - 1)]),
      median_conversion_time: k === 0 ? null : num(row[2 + n + 2 * (k - 1)]),
      ...(breakdown ? { breakdown: String(row[0]), breakdown_value: String(row[0]) } : {})
    }))
  if (query.breakdownFilter?.breakdown == null) return steps(rows[0] ?? [null, ...range(n).map(() => 0)], false)
  return rows.map((row) => steps(row, true))
}

/** Equal-width bins from the fastest to the slowest conversion, as PostHog draws them. */
export const timeToConvertBins = (
  times: ReadonlyArray<readonly [number, number]>,
  binCount: number | null | undefined
): TimeToConvert => {
  const total = times.reduce((sum, [, count]) => sum + count, 0)
  if (total === 0) return { bins: [], average_conversion_time: null }
  const min = times[0]![0]
  const max = times.at(-1)![0]
  const bins = binCount ?? Math.min(90, Math.max(1, Math.ceil(Math.cbrt(total))))
  const width = Math.max(1, Math.ceil((max - min + 1) / bins))
  const counts = range(bins).map(() => 0)
  for (const [seconds, count] of times) counts[Math.min(bins - 1, Math.floor((seconds - min) / width))]! += count
  return {
    bins: counts.map((count, i) => [min + i * width, count] as const),
    average_conversion_time: times.reduce((sum, [seconds, count]) => sum + seconds * count, 0) / total
  }
}

export const planFunnels = (input: unknown, ctx: InsightContext): Effect.Effect<InsightPlan, InsightQueryInvalid> =>
  Effect.flatMap(decodeNode(FunnelsQuery, input), (query) => {
    const viz = query.funnelsFilter?.funnelVizType ?? "steps"
    const period = resolvePeriod(query.dateRange, query.interval ?? "day", ctx)
    let statement
    try {
      statement =
        viz === "time_to_convert"
          ? timeToConvertStatement(query)
          : viz === "trends"
            ? trendsStatement(query, period, ctx)
            : stepsStatement(query)
    } catch (error) {
      if (error instanceof UnsupportedFilter) return invalid(error.message)
      throw error
    }
    const values = planValues(ctx)
    return Effect.succeed<InsightPlan>({
      queries: [statement],
      values,
      zedql: shownStatements([statement], values, ""),
      shape: ([rows = []]) =>
        viz === "time_to_convert"
          ? timeToConvertBins(
              rows.map((r) => [Number(r[0]), Number(r[1])] as const),
              query.funnelsFilter?.binCount
            )
          : viz === "trends"
            ? shapeTrends(query, period, ctx, rows)
            : shapeSteps(query, rows)
    })
  })

/**
 * The persons behind a funnel step, as a statement of their ids (`actor`): `step` k (from 1) those
 * who reached step k, -k those who reached step k - 1 and dropped before step k; in one breakdown
 * value when given.
 */
export const funnelActors = (
  input: unknown,
  point: { readonly step: number; readonly breakdown?: string | null | undefined }
): Effect.Effect<A.SelectLike, InsightQueryInvalid> =>
  Effect.flatMap(decodeNode(FunnelsQuery, input), (query) => {
    const n = query.series.length
    const k = Math.abs(point.step)
    if (!Number.isInteger(point.step) || k < 1 || k > n || point.step === -1)
      return invalid(`funnelStep: expected 1 to ${n}, or -2 to -${n} for those who dropped before that step`)
    try {
      const reached = point.step > 0 ? Q.expr`reached >= ${k}` : Q.expr`reached = ${k - 1}`
      const where = Q.and([
        reached,
        ...(point.breakdown == null ? [] : [Q.expr`${limitedBreakdown(query)} = ${point.breakdown}`])
      ])
      return Effect.succeed(Q.select`WITH best AS (${bestPaths(query)}) SELECT actor FROM best WHERE ${where}`)
    } catch (error) {
      if (error instanceof UnsupportedFilter) return invalid(error.message)
      throw error
    }
  })
