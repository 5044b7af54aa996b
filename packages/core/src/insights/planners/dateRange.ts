import { Schema } from "effect"
import type * as A from "../../zedql/ast.js"
import * as Q from "../../zedql/build.js"
import { DateBoundText } from "../../zedql/filters.js"
import type { InsightContext } from "../plan.js"
import { dateTime } from "./statements.js"

// An insight's date range as interval buckets in the project's time zone. Wall-clock times are
// handled as "naive" milliseconds (the wall time read as if it were UTC), so calendar steps are
// plain Date.UTC arithmetic; only bounds become instants, through the zone's offset.

export const Interval = Schema.Literal("hour", "day", "week", "month")
export type Interval = typeof Interval.Type

export const DateRange = Schema.Struct({
  date_from: Schema.optional(Schema.NullOr(DateBoundText)),
  date_to: Schema.optional(Schema.NullOr(DateBoundText)),
  explicitDate: Schema.optional(Schema.NullOr(Schema.Boolean))
})
export type DateRange = typeof DateRange.Type

export interface Bucket {
  /** Naive start (wall time as UTC milliseconds). */
  readonly naive: number
  /** How the statements key the bucket: `YYYY-MM-DD`, or `YYYY-MM-DD HH:00:00` by the hour. */
  readonly key: string
  /** PostHog's label: `1-Jan-2024` (` 13:00` by the hour). */
  readonly label: string
}

export interface Period {
  /** Query bounds, as instants; `from` is null for "all". */
  readonly from: number | null
  readonly to: number
  /** The buckets; for "all", those from the first one the rows have (see `bucketsFrom`). */
  readonly buckets: ReadonlyArray<Bucket>
  readonly interval: Interval
}

const HOUR = 3_600_000
const DAY = 24 * HOUR
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
const pad = (n: number) => String(n).padStart(2, "0")

const formatters = new Map<string, Intl.DateTimeFormat>()
const formatter = (timeZone: string) => {
  let f = formatters.get(timeZone)
  if (f === undefined) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric"
    })
    formatters.set(timeZone, f)
  }
  return f
}

/** The wall time of an instant in a zone, as naive milliseconds. */
export const naiveOf = (ms: number, timeZone: string): number => {
  const p = Object.fromEntries(
    formatter(timeZone)
      .formatToParts(new Date(ms))
      .map((x) => [x.type, Number(x.value)])
  )
  return Date.UTC(
    p["year"]!,
    p["month"]! - 1,
    p["day"]!,
    p["hour"]!,
    p["minute"]!,
    p["second"]!,
    ((ms % 1000) + 1000) % 1000
  )
}

/** The instant a wall time happens (the later reading of a repeated hour, the shifted one of a skipped hour). */
export const instantOf = (naive: number, timeZone: string): number => {
  const first = naive - (naiveOf(naive, timeZone) - naive)
  return naive - (naiveOf(first, timeZone) - first)
}

const fields = (naive: number) => {
  const d = new Date(naive)
  return { y: d.getUTCFullYear(), m: d.getUTCMonth(), d: d.getUTCDate(), h: d.getUTCHours(), dow: d.getUTCDay() }
}

const truncate = (naive: number, interval: Interval, weekStartDay: 0 | 1): number => {
  const f = fields(naive)
  switch (interval) {
    case "hour":
      return Date.UTC(f.y, f.m, f.d, f.h)
    case "day":
      return Date.UTC(f.y, f.m, f.d)
    case "week":
      return Date.UTC(f.y, f.m, f.d - ((f.dow - weekStartDay + 7) % 7))
    case "month":
      return Date.UTC(f.y, f.m, 1)
  }
}

type Unit = Interval | "year" | "quarter"

/** `naive` moved by `n` units on the calendar. */
export const shift = (naive: number, unit: Unit, n: number): number => {
  const f = fields(naive)
  const d = new Date(naive)
  switch (unit) {
    case "hour":
      return naive + n * HOUR
    case "day":
      return naive + n * DAY
    case "week":
      return naive + 7 * n * DAY
    case "month":
    case "quarter":
    case "year": {
      const months = unit === "month" ? n : unit === "quarter" ? 3 * n : 12 * n
      // Day of month clamped, as date libraries do (31 Mar - 1 month = 28/29 Feb).
      const last = new Date(Date.UTC(f.y, f.m + months + 1, 0)).getUTCDate()
      return Date.UTC(
        f.y,
        f.m + months,
        Math.min(f.d, last),
        d.getUTCHours(),
        d.getUTCMinutes(),
        d.getUTCSeconds(),
        d.getUTCMilliseconds()
      )
    }
  }
}

const bucketOf = (naive: number, interval: Interval): Bucket => {
  const f = fields(naive)
  const date = `${f.y}-${pad(f.m + 1)}-${pad(f.d)}`
  const label = `${f.d}-${MONTHS[f.m]}-${f.y}`
  return interval === "hour"
    ? { naive, key: `${date} ${pad(f.h)}:00:00`, label: `${label} ${pad(f.h)}:00` }
    : { naive, key: date, label }
}

/**
 * Buckets from the one starting at `first` to the one before `end` (naive, both on boundaries).
 * Hours are the zone's real hours: none for the hour a clock change skips, one for the hour it repeats.
 */
export const bucketsBetween = (first: number, end: number, interval: Interval, timeZone: string): Array<Bucket> => {
  const out: Array<Bucket> = []
  if (interval === "hour") {
    const stop = instantOf(end, timeZone)
    for (let at = instantOf(first, timeZone); at < stop; at += HOUR) {
      const bucket = bucketOf(truncate(naiveOf(at, timeZone), "hour", 0), "hour")
      if (out.at(-1)?.key !== bucket.key) out.push(bucket)
    }
    return out
  }
  for (let at = first; at < end; at = shift(at, interval, 1)) out.push(bucketOf(at, interval))
  return out
}

/** A bucket key (as the statements write it) back to naive milliseconds. */
const naiveOfKey = (key: string): number =>
  Date.parse(`${key.length === 10 ? `${key}T00:00:00` : key.replace(" ", "T")}Z`)

/** How the statements write the bucket of a DateTime expression, matching `Bucket.key`. */
export const bucketKeyExpr = (expr: A.Expr, interval: Interval, weekStartDay: 0 | 1): A.Expr =>
  Q.expr`formatDateTime(${bucketStartExpr(expr, interval, weekStartDay)}, ${interval === "hour" ? "%Y-%m-%d %H:%i:%S" : "%Y-%m-%d"})`

/** The start of the bucket of a DateTime expression (a DateTime by the hour or day, a Date by week or month). */
export const bucketStartExpr = (expr: A.Expr, interval: Interval, weekStartDay: 0 | 1): A.Expr => {
  switch (interval) {
    case "hour":
      return Q.expr`toStartOfHour(${expr})`
    case "day":
      return Q.expr`toStartOfDay(${expr})`
    case "week":
      return Q.expr`toStartOfWeek(${expr}, ${weekStartDay})`
    case "month":
      return Q.expr`toStartOfMonth(${expr})`
  }
}

const RELATIVE = /^-(\d+)([hdwmqy])$/
const RELATIVE_UNITS: Readonly<Record<string, Unit>> = {
  h: "hour",
  d: "day",
  w: "week",
  m: "month",
  q: "quarter",
  y: "year"
}
const STARTS: Readonly<Record<string, Unit>> = {
  dStart: "day",
  wStart: "week",
  mStart: "month",
  qStart: "quarter",
  yStart: "year"
}
const OFFSET = /(?:Z|[+-]\d{2}:?\d{2})$/

/** A relative amount (`-1y`, `-4w`), as a unit and a count; undefined when the text is not one. */
const relative = (text: string): { readonly unit: Unit; readonly n: number } | undefined => {
  const match = RELATIVE.exec(text)
  return match ? { unit: RELATIVE_UNITS[match[2]!]!, n: Number(match[1]) } : undefined
}

const startOfUnit = (naive: number, unit: Unit, ctx: InsightContext): number => {
  if (unit === "quarter" || unit === "year") {
    const f = fields(naive)
    return Date.UTC(f.y, unit === "year" ? 0 : f.m - (f.m % 3), 1)
  }
  return truncate(naive, unit, ctx.weekStartDay)
}

/** A bound's wall time, and whether it names a whole day (a date without a time). */
const point = (text: string, ctx: InsightContext): { readonly naive: number; readonly wholeDay: boolean } => {
  const now = naiveOf(ctx.now.getTime(), ctx.timezone)
  const rel = relative(text)
  if (rel) return { naive: shift(now, rel.unit, -rel.n), wholeDay: false }
  const start = Object.hasOwn(STARTS, text) ? STARTS[text] : undefined
  if (start) return { naive: startOfUnit(now, start, ctx), wholeDay: false }
  const iso = text.replace(" ", "T")
  if (OFFSET.test(iso)) return { naive: naiveOf(Date.parse(iso), ctx.timezone), wholeDay: false }
  if (iso.length === 10) return { naive: Date.parse(`${iso}T00:00:00Z`), wholeDay: true }
  return { naive: Date.parse(`${iso}Z`), wholeDay: false }
}

/** The period a date range covers by an interval: `-7d` by day is the 8 days ending today. */
export const resolvePeriod = (range: DateRange | null | undefined, interval: Interval, ctx: InsightContext): Period => {
  const fromText = range?.date_from == null || range.date_from === "" ? "-7d" : range.date_from
  const toText = range?.date_to == null || range.date_to === "" ? undefined : range.date_to
  const explicit = range?.explicitDate === true
  const toPoint =
    toText === undefined ? { naive: naiveOf(ctx.now.getTime(), ctx.timezone), wholeDay: false } : point(toText, ctx)
  // The end: past the last bucket, or the instant itself when the dates are explicit.
  // A date alone runs to the end of its day.
  const lastNaive = truncate(
    toPoint.wholeDay ? shift(toPoint.naive, "day", 1) - 1 : toPoint.naive,
    interval,
    ctx.weekStartDay
  )
  const endNaive = shift(lastNaive, interval, 1)
  const to = instantOf(explicit && !toPoint.wholeDay ? toPoint.naive : endNaive, ctx.timezone)
  if (fromText === "all") return { from: null, to, buckets: [], interval }
  const fromPoint = point(fromText, ctx)
  const firstNaive = truncate(fromPoint.naive, interval, ctx.weekStartDay)
  const from = instantOf(explicit ? fromPoint.naive : firstNaive, ctx.timezone)
  return { from, to, buckets: bucketsBetween(firstNaive, endNaive, interval, ctx.timezone), interval }
}

/** `compareFilter` of trends and stickiness: also compute the previous period. */
export const CompareFilter = Schema.Struct({
  compare: Schema.optional(Schema.NullOr(Schema.Boolean)),
  compare_to: Schema.optional(Schema.NullOr(Schema.String))
})

/** The periods a query computes: the current one, and the previous one when it compares. */
export const comparedPeriods = (
  current: Period,
  compare: typeof CompareFilter.Type | null | undefined,
  ctx: InsightContext
) => [
  { period: current, label: "current" },
  ...(compare?.compare === true
    ? [{ period: previousPeriod(current, compare.compare_to, ctx), label: "previous" }]
    : [])
]

/**
 * The period of an insight's point: its date range's, or with `compare: "previous"` the period it
 * is compared with.
 */
export const pointPeriod = (
  query: {
    readonly dateRange?: DateRange | null | undefined
    readonly interval?: Interval | null | undefined
    readonly compareFilter?: typeof CompareFilter.Type | null | undefined
  },
  compare: "current" | "previous" | null | undefined,
  ctx: InsightContext
): Period => {
  const current = resolvePeriod(query.dateRange, query.interval ?? "day", ctx)
  return compare === "previous" ? previousPeriod(current, query.compareFilter?.compare_to, ctx) : current
}

/** The previous period to compare with: the same number of buckets before, or shifted by `compare_to` (`-1y`). */
export const previousPeriod = (period: Period, compareTo: string | null | undefined, ctx: InsightContext): Period => {
  const first = period.buckets[0]
  if (first === undefined) return period
  const end = shift(period.buckets.at(-1)!.naive, period.interval, 1)
  const rel = compareTo ? relative(compareTo) : undefined
  const [start, stop] = rel
    ? [
        truncate(shift(first.naive, rel.unit, -rel.n), period.interval, ctx.weekStartDay),
        truncate(shift(end, rel.unit, -rel.n), period.interval, ctx.weekStartDay)
      ]
    : [shift(first.naive, period.interval, -period.buckets.length), first.naive]
  return {
    from: instantOf(start, ctx.timezone),
    to: instantOf(stop, ctx.timezone),
    buckets: bucketsBetween(start, stop, period.interval, ctx.timezone),
    interval: period.interval
  }
}

/**
 * The buckets of a period whose start is "all": from the earliest key the rows have (or the last
 * bucket when there is none).
 */
export const bucketsFrom = (period: Period, keys: Iterable<string>, ctx: InsightContext): ReadonlyArray<Bucket> => {
  if (period.from !== null) return period.buckets
  const end = truncate(naiveOf(period.to - 1, ctx.timezone), period.interval, ctx.weekStartDay)
  let first = end
  for (const key of keys) first = Math.min(first, truncate(naiveOfKey(key), period.interval, ctx.weekStartDay))
  return bucketsBetween(first, shift(end, period.interval, 1), period.interval, ctx.timezone)
}

/** The conditions bounding `timestamp` to a period (or from an earlier instant, for look-backs). */
export const timeBounds = (period: Period, from: number | null = period.from): Array<A.Expr> => [
  ...(from === null ? [] : [Q.expr`timestamp >= ${dateTime(from)}`]),
  Q.expr`timestamp < ${dateTime(period.to)}`
]
