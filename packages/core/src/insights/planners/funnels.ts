import { Effect, Schema } from "effect"
import type { InsightContext, InsightPlan } from "../plan.js"
import { formatExpr } from "../../zedql/format.js"
import { dateRangeConditions, propertyConditions, stepCondition as stepTree, StepNode, stepName } from "./conditions.js"
import { DateRange } from "./dateRange.js"
import { decodeNode, type InsightQueryInvalid, invalid } from "./decode.js"
import { Properties, UnsupportedFilter } from "./properties.js"
import { planValues, ROWS } from "./statements.js"
import { and, or, quote } from "./text.js"

// FunnelsQuery → ZedQL. Per person, every event that can start the funnel is a candidate; the
// planner finds for each candidate the earliest time of each later step (ordered: any events in
// between; strict: the very next events; unordered: any order) inside the conversion window, and
// keeps per person the candidate that gets furthest, as PostHog does: the one reaching that step
// first, from the latest start. Conversion times are whole seconds between consecutive steps.

const WINDOW_UNITS = ["second", "minute", "hour", "day", "week", "month"] as const

/** An event that, between two steps of a person's path, drops the person from the funnel. */
export const FunnelExclusion = Schema.Struct({
  ...StepNode.fields,
  funnelFromStep: Schema.Int.pipe(Schema.nonNegative()),
  funnelToStep: Schema.Int.pipe(Schema.positive())
})
export type FunnelExclusion = typeof FunnelExclusion.Type

export const FunnelsFilter = Schema.Struct({
  funnelVizType: Schema.optional(Schema.NullOr(Schema.Literal("steps", "time_to_convert"))),
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

export interface TimeToConvert {
  readonly bins: ReadonlyArray<readonly [number, number]>
  readonly average_conversion_time: number | null
}

const stepCondition = (step: StepNode) => formatExpr(stepTree(step))

const range = (n: number) => Array.from({ length: n }, (_, i) => i)
const cols = (prefix: string, n: number) => range(n).map((i) => `${prefix}${i}`)

/** A candidate's level, the number of steps it reaches, from its times `t0 … t{n-1}`. */
const levelOf = (n: number) => `multiIf(${range(n).slice(1).reverse().map((k) => `isNotNull(t${k}), ${k + 1}`).join(", ")}, 1)`
/** When a candidate reaches the furthest step it reaches. */
const lastOf = (n: number) => `coalesce(${cols("t", n).reverse().join(", ")})`

/**
 * Per person (`actor, bd`) the candidate starts, as arrays side by side: `c{k}` the time each
 * reaches step k (NULL when it does not), `levels` how many steps each reaches and `lasts` when it
 * reaches the furthest of them; from the events subquery `source`.
 */
const candidates = (order: "ordered" | "strict" | "unordered", n: number, source: string, windowEnd: (start: string) => string): string => {
  const times = cols("t", n)
  if (order === "strict") {
    // The next k events of the person must be steps 1…k: found by windows, one row per start.
    const leads = range(n).slice(1).flatMap((k) => [
      `leadInFrame(s${k}, ${k}) OVER w AS n${k}`,
      `leadInFrame(timestamp, ${k}) OVER w AS l${k}`
    ])
    const chain = range(n).slice(1).map((k) =>
      `if(${and([...range(k + 1).slice(1).map((j) => `ifNull(n${j}, false)`), `l${k} <= ${windowEnd("timestamp")}`])}, l${k}, NULL) AS t${k}`
    )
    const rows = `SELECT actor, bd, timestamp AS t0, ${chain.join(", ")} FROM (` +
      `SELECT actor, timestamp, s0, first_value(prop) OVER (PARTITION BY actor, s0 ORDER BY timestamp, uuid) AS bd, ${leads.join(", ")} ` +
      `FROM (${source}) WINDOW w AS (PARTITION BY actor ORDER BY timestamp, uuid)) WHERE s0`
    // Times past a row's level are never read: the start's stands in, as groupArray skips NULLs.
    return `SELECT actor, bd, groupArray(${levelOf(n)}) AS levels, groupArray(${lastOf(n)}) AS lasts, ` +
      `${times.map((t, k) => `groupArray(${k === 0 ? t : `coalesce(${t}, t0)`}) AS c${k}`).join(", ")} FROM (${rows}) GROUP BY actor, bd`
  }
  const arrays = range(n).map((k) => `arraySort(groupArrayIf(timestamp, s${k})) AS a${k}`)
  const firstTouch = order === "unordered" ? "argMin(prop, timestamp)" : "argMinIf(prop, timestamp, s0)"
  const perActor = `SELECT actor, ${firstTouch} AS bd, ${arrays.join(", ")} FROM (${source}) GROUP BY actor` +
    (order === "ordered" ? " HAVING countIf(s0) > 0" : "")
  let query: string
  if (order === "unordered") {
    // From each step event, the first time of every step within the window; sorted, they are the path.
    const firsts = `SELECT actor, bd, ${range(n).map((j) => `arrayMap(s -> arrayMin(arrayFilter(x -> x >= s AND x <= ${windowEnd("s")}, a${j})), starts) AS f${j}`).join(", ")} ` +
      `FROM (SELECT actor, bd, ${cols("a", n).join(", ")}, arrayConcat(${cols("a", n).join(", ")}) AS starts FROM (${perActor}))`
    const path = `arraySort(arrayFilter(x -> isNotNull(x), [${cols("f", n).join(", ")}]))`
    query = `SELECT actor, bd, ${range(n).map((k) => `arrayMap((${cols("f", n).join(", ")}) -> arrayElement(${path}, ${k + 1}), ${cols("f", n).join(", ")}) AS c${k}`).join(", ")} FROM (${firsts})`
  } else {
    // Ordered: for each start, each step's earliest event after the previous step's, within the
    // window from the start; one subquery per step, so that each reads the previous one's times.
    query = perActor
    for (let k = 1; k < n; k++) {
      const step = `arrayMap((s, p) -> arrayMin(arrayFilter(x -> x > p AND x <= ${windowEnd("s")}, a${k})), a0, ${k === 1 ? "a0" : `c${k - 1}`}) AS c${k}`
      query = `SELECT actor, bd, ${["a0", ...cols("a", n).slice(k + 1), ...cols("c", k).slice(1), step].join(", ")} FROM (${query})`
    }
    query = `SELECT actor, bd, a0 AS c0, ${cols("c", n).slice(1).join(", ")} FROM (${query})`
  }
  const c = cols("c", n)
  return `SELECT actor, bd, arrayMap((${times.slice(1).join(", ")}) -> ${levelOf(n)}, ${c.slice(1).join(", ")}) AS levels, ` +
    `arrayMap((${times.join(", ")}) -> ${lastOf(n)}, ${c.join(", ")}) AS lasts, ${c.join(", ")} FROM (${query})`
}

const windowEndOf = (query: FunnelsQuery) => {
  const interval = query.funnelsFilter?.funnelWindowInterval ?? 14
  const unit = query.funnelsFilter?.funnelWindowIntervalUnit ?? "day"
  const fn = `toInterval${unit[0]!.toUpperCase()}${unit.slice(1)}`
  return (start: string) => `${start} + ${fn}(${interval})`
}

const breakdownExpr = (query: FunnelsQuery): string | undefined => {
  const filter = query.breakdownFilter
  if (filter?.breakdown == null) return undefined
  const owner = filter.breakdown_type === "person" ? "person.properties" : "properties"
  return `ifNull(toString(${owner}[${quote(filter.breakdown)}]), '')`
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
const withoutExcluded = (query: FunnelsQuery, paths: string, scope: ReadonlyArray<string>): string => {
  const exclusions = query.funnelsFilter?.exclusions ?? []
  if (exclusions.length === 0) return paths
  const n = query.series.length
  const windowEnd = windowEndOf(query)
  const arrays = exclusions.map((x, i) => `groupArrayIf(timestamp, ${stepCondition(x)}) AS x${i}`)
  const hits = exclusions.map((x, i) => {
    const { from, to } = stepRange(n, x.funnelFromStep, x.funnelToStep)
    return `arrayExists(e -> e > paths.t${from} AND if(isNull(paths.t${to}), e <= ${windowEnd("paths.t0")}, e < paths.t${to}), excluded.x${i})`
  })
  return `SELECT paths.actor AS actor, paths.bd AS bd, paths.reached AS reached, ${cols("t", n).map((t) => `paths.${t} AS ${t}`).join(", ")} ` +
    `FROM (${paths}) AS paths LEFT JOIN (SELECT person_id AS actor, ${arrays.join(", ")} FROM events ` +
    `WHERE ${and([...scope, or(exclusions.map(stepCondition))])} GROUP BY actor) AS excluded ON paths.actor = excluded.actor ` +
    `WHERE NOT (${or(hits)})`
}

/** The best candidate per person: `actor, bd, reached, t0 … t{n-1}`. */
const bestPaths = (query: FunnelsQuery): string => {
  const n = query.series.length
  const order = query.funnelsFilter?.funnelOrderType ?? "ordered"
  const steps = query.series.map(stepCondition)
  const scope = [...dateRangeConditions(query.dateRange, "-7d"), ...propertyConditions(query.properties)].map(formatExpr)
  // Strict funnels see every event of the person: any other event in between breaks the chain.
  const where = and(order === "strict" ? scope : [...scope, or(steps)])
  const source = `SELECT person_id AS actor, timestamp, uuid, ${breakdownExpr(query) ?? "''"} AS prop, ` +
    `${steps.map((s, k) => `${s} AS s${k}`).join(", ")} FROM events WHERE ${where}`
  const c = cols("c", n)
  // Per person the candidate reaching the furthest step first, from the latest start (reaching the
  // first step only: the earliest start). Among the candidates of one level a later start never
  // has an earlier time at any step, so the latest of those arriving first has each step's maximum.
  const reached = `SELECT actor, bd, levels, lasts, ${c.join(", ")}, arrayMax(levels) AS reached FROM (${candidates(order, n, source, windowEndOf(query))})`
  const arrival = `SELECT actor, bd, levels, lasts, ${c.join(", ")}, reached, ` +
    `arrayMin(arrayFilter((last, level) -> level = reached, lasts, levels)) AS arrival FROM (${reached})`
  const pick = (k: number) => `arrayMax(arrayFilter((t, level, last) -> level = reached AND last = arrival, c${k}, levels, lasts))`
  const best = `SELECT actor, bd, reached, ${range(n).map((k) => `${k === 0 ? pick(k) : `if(reached > ${k}, ${pick(k)}, NULL)`} AS t${k}`).join(", ")} FROM (${arrival})`
  return withoutExcluded(query, best, scope)
}

/** The breakdown values kept: the `breakdown_limit` with the most persons; the rest are "other". */
const limitedBreakdown = (query: FunnelsQuery): string => {
  if (query.breakdownFilter?.breakdown == null) return "bd"
  const limit = query.breakdownFilter.breakdown_limit ?? DEFAULT_BREAKDOWN_LIMIT
  return `if(bd IN (SELECT bd FROM best GROUP BY bd ORDER BY count() DESC, bd LIMIT ${limit}), bd, ${quote(BREAKDOWN_OTHER)})`
}

const stepsStatement = (query: FunnelsQuery): string => {
  const n = query.series.length
  const counts = range(n).map((k) => `countIf(reached >= ${k + 1})`)
  const timesOf = range(n).slice(1).flatMap((k) => {
    const seconds = `dateDiff('second', t${k - 1}, t${k})`
    return [`avgIf(${seconds}, reached >= ${k + 1})`, `medianIf(${seconds}, reached >= ${k + 1})`]
  })
  const times = cols("t", n)
  return `WITH best AS (${bestPaths(query)}) ` +
    `SELECT breakdown, ${[...counts, ...timesOf].join(", ")} ` +
    `FROM (SELECT ${limitedBreakdown(query)} AS breakdown, reached, ${times.join(", ")} FROM best) ` +
    `GROUP BY breakdown ORDER BY ${counts[0]} DESC, breakdown LIMIT ${ROWS}`
}

const timeToConvertStatement = (query: FunnelsQuery): string => {
  const n = query.series.length
  const { from, to } = stepRange(n, query.funnelsFilter?.funnelFromStep ?? 0, query.funnelsFilter?.funnelToStep ?? n - 1)
  return `SELECT dateDiff('second', t${from}, t${to}) AS seconds, count() FROM (${bestPaths(query)}) ` +
    `WHERE reached >= ${to + 1} GROUP BY seconds ORDER BY seconds LIMIT ${ROWS}`
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
export const timeToConvertBins = (times: ReadonlyArray<readonly [number, number]>, binCount: number | null | undefined): TimeToConvert => {
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
    const timeToConvert = query.funnelsFilter?.funnelVizType === "time_to_convert"
    let statement
    try {
      statement = timeToConvert ? timeToConvertStatement(query) : stepsStatement(query)
    } catch (error) {
      if (error instanceof UnsupportedFilter) return invalid(error.message)
      throw error
    }
    const values = planValues(ctx)
    return Effect.succeed<InsightPlan>({
      queries: [statement],
      values,
      zedql: statement.replaceAll("toDateTime({now})", `toDateTime(${quote(values.now)})`),
      shape: ([rows = []]) =>
        timeToConvert
          ? timeToConvertBins(rows.map((r) => [Number(r[0]), Number(r[1])] as const), query.funnelsFilter?.binCount)
          : shapeSteps(query, rows)
    })
  })
