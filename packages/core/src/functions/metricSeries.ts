import { instantOf, naiveOf } from "../insights/planners/dateRange.js"
import type { MetricCount } from "../services/FunctionMetricStore.js"

// A function's hourly counts as PostHog's app metrics answer them: one label per interval from the
// start of `after`'s interval to `before`, in the project's time zone (hours as 2024-01-31T13:00,
// days and weeks as 2024-01-31, weeks from Monday), and per metric name or kind its count in each.
// Counts are kept per hour (UTC): in a zone whose offset is not whole hours, an hour's label is the
// local time its hour began (13:30), and each hour is counted in the day it began in.

export const METRIC_INTERVALS = ["hour", "day", "week"] as const
export type MetricInterval = (typeof METRIC_INTERVALS)[number]
export type MetricBreakdown = "name" | "kind"

/** The most labels one answer has (a year of hours). */
export const MAX_LABELS = 366 * 24

const HOUR = 3_600_000
const DAY = 24 * HOUR
const STEP = { hour: HOUR, day: DAY, week: 7 * DAY } as const

/** Where the interval holding `ms` starts: the hour (UTC, as counts are kept), or the zone's day or week. */
export const intervalStart = (ms: number, interval: MetricInterval, timezone: string) => {
  if (interval === "hour") return Math.floor(ms / HOUR) * HOUR
  const day = Math.floor(naiveOf(ms, timezone) / DAY) * DAY
  // 1970-01-01 was a Thursday: Monday is 3 days before it.
  return instantOf(interval === "day" ? day : day - ((((day / DAY + 3) % 7) + 7) % 7) * DAY, timezone)
}

/** The next interval's start: an hour later, or the same wall time a day or a week later. */
const next = (start: number, interval: MetricInterval, timezone: string) =>
  interval === "hour" ? start + HOUR : instantOf(naiveOf(start, timezone) + STEP[interval], timezone)

const labelOf = (ms: number, interval: MetricInterval, timezone: string) =>
  new Date(naiveOf(ms, timezone)).toISOString().slice(0, interval === "hour" ? 16 : 10)

/** How many labels the range has (within one, where clocks change). */
export const labelCount = (after: Date, before: Date, interval: MetricInterval, timezone: string) =>
  Math.max(0, Math.floor((before.getTime() - intervalStart(after.getTime(), interval, timezone)) / STEP[interval]) + 1)

export const metricSeries = (
  counts: ReadonlyArray<MetricCount>,
  range: { readonly after: Date; readonly before: Date },
  interval: MetricInterval,
  breakdown: MetricBreakdown,
  timezone: string
) => {
  const starts: Array<number> = []
  for (
    let at = intervalStart(range.after.getTime(), interval, timezone);
    at <= range.before.getTime();
    at = next(at, interval, timezone)
  )
    starts.push(at)
  const index = new Map(starts.map((at, i) => [at, i]))
  const byBreakdown = new Map<string, Array<number>>()
  for (const count of counts) {
    const i = index.get(intervalStart(count.hour.getTime(), interval, timezone))
    if (i === undefined) continue
    const key = count[breakdown]
    const values = byBreakdown.get(key) ?? starts.map(() => 0)
    values[i]! += count.count
    byBreakdown.set(key, values)
  }
  return {
    labels: starts.map((at) => labelOf(at, interval, timezone)),
    series: [...byBreakdown].sort(([a], [b]) => a.localeCompare(b)).map(([name, values]) => ({ name, values }))
  }
}

export const metricTotals = (counts: ReadonlyArray<MetricCount>, breakdown: MetricBreakdown) => {
  const totals: Record<string, number> = {}
  for (const count of counts) totals[count[breakdown]] = (totals[count[breakdown]] ?? 0) + count.count
  return totals
}
