// Date text as PostHog's flags service parses it for `is_date_before`/`is_date_after`/`is_date_exact`,
// and the API for date parameters: values with an explicit offset are honoured, naive ones are wall
// clock in the team's time zone.
// Instants are bigint nanoseconds since the epoch because the service compares at that precision.

const NS_PER_MS = 1_000_000n
const NS_PER_S = 1_000_000_000n
const MS_PER_DAY = 86_400_000

/** Days since 1970-01-01 of a proleptic Gregorian date (exact for any year; no Date quirks). */
const daysFromCivil = (year: number, month: number, day: number): number => {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
}

const civilFromDays = (days: number): { year: number; month: number; day: number } => {
  const z = days + 719468
  const era = Math.floor(z / 146097)
  const doe = z - era * 146097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1
  const month = mp + (mp < 10 ? 3 : -9)
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day }
}

const isLeap = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0

const lastDayOfMonth = (year: number, month: number): number =>
  month === 2 ? (isLeap(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31

/** A wall-clock time with no zone: milliseconds as if UTC, plus the sub-millisecond nanoseconds. */
interface Naive {
  readonly ms: number
  readonly subMs: number
}

const naiveOf = (
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  nanos: number
): Naive => ({
  ms:
    daysFromCivil(year, month, day) * MS_PER_DAY +
    ((hour * 60 + minute) * 60 + second) * 1000 +
    Math.floor(nanos / 1e6),
  subMs: nanos % 1e6
})

const instant = (ms: number, subMs: number): bigint => BigInt(ms) * NS_PER_MS + BigInt(subMs)

// Time zone offsets through Intl: the only zone database a dependency-free runtime has.

const formatters = new Map<string, Intl.DateTimeFormat | undefined>()

const formatterFor = (timezone: string): Intl.DateTimeFormat | undefined => {
  if (!formatters.has(timezone)) {
    let formatter: Intl.DateTimeFormat | undefined
    try {
      formatter = new Intl.DateTimeFormat("en-US", {
        timeZone: timezone,
        hourCycle: "h23",
        era: "short",
        year: "numeric",
        month: "numeric",
        day: "numeric",
        hour: "numeric",
        minute: "numeric",
        second: "numeric"
      })
    } catch {
      // An unknown zone reads as UTC, as the service falls back to.
      formatter = undefined
    }
    formatters.set(timezone, formatter)
  }
  return formatters.get(timezone)
}

/** The zone's offset from UTC at an instant, in milliseconds. */
const zoneOffset = (timezone: string, utcMs: number): number => {
  const formatter = formatterFor(timezone)
  if (formatter === undefined || timezone === "UTC") return 0
  const parts: Record<string, string> = {}
  for (const part of formatter.formatToParts(new Date(utcMs))) parts[part.type] = part.value
  const year = parts["era"] === "BC" ? 1 - Number(parts["year"]) : Number(parts["year"])
  const local =
    daysFromCivil(year, Number(parts["month"]), Number(parts["day"])) * MS_PER_DAY +
    ((Number(parts["hour"]) * 60 + Number(parts["minute"])) * 60 + Number(parts["second"])) * 1000
  return local - (utcMs - (((utcMs % 1000) + 1000) % 1000))
}

/**
 * A wall-clock time in a zone as an instant. In a fall-back overlap the earlier instant wins; a
 * spring-forward gap has none (the service then does not match).
 */
const naiveToInstant = (naive: Naive, timezone: string): bigint | undefined => {
  const candidates = new Set([
    naive.ms - zoneOffset(timezone, naive.ms - MS_PER_DAY),
    naive.ms - zoneOffset(timezone, naive.ms + MS_PER_DAY)
  ])
  const valid = [...candidates].filter((utc) => utc + zoneOffset(timezone, utc) === naive.ms).sort((a, b) => a - b)
  return valid.length === 0 ? undefined : instant(valid[0]!, naive.subMs)
}

const wallClock = (utcMs: number, timezone: string): Naive => ({ ms: utcMs + zoneOffset(timezone, utcMs), subMs: 0 })

// Relative dates: "-7d", "3h", "-2w", "-1m", "-1y" (the sign is optional and ignored; N < 10000).

const RELATIVE = /^-?([0-9]+)([hdwmy])$/

/** Calendar arithmetic on the naive wall clock, one month or year at a time like relativedelta. */
const subtractCalendar = (naive: Naive, unit: "m" | "y", count: number): Naive => {
  const days = Math.floor(naive.ms / MS_PER_DAY)
  const timeOfDay = naive.ms - days * MS_PER_DAY
  let { year, month, day } = civilFromDays(days)
  for (let i = 0; i < count; i++) {
    if (unit === "m") {
      ;[year, month] = month === 1 ? [year - 1, 12] : [year, month - 1]
      day = Math.min(day, lastDayOfMonth(year, month))
    } else {
      year -= 1
      if (month === 2) day = Math.min(day, lastDayOfMonth(year, month))
    }
  }
  return { ms: daysFromCivil(year, month, day) * MS_PER_DAY + timeOfDay, subMs: naive.subMs }
}

export const parseRelativeDate = (text: string, timezone: string, now: Date): bigint | undefined => {
  const match = RELATIVE.exec(text)
  if (match === null) return undefined
  const count = Number(match[1])
  if (!(count < 10_000)) return undefined
  const local = wallClock(now.getTime(), timezone)
  const hours = { h: 1, d: 24, w: 24 * 7 } as const
  const unit = match[2] as "h" | "d" | "w" | "m" | "y"
  const shifted =
    unit === "m" || unit === "y"
      ? subtractCalendar(local, unit, count)
      : { ms: local.ms - count * hours[unit] * 3_600_000, subMs: 0 }
  return naiveToInstant(shifted, timezone)
}

const validDate = (year: number, month: number, day: number): boolean =>
  month >= 1 && month <= 12 && day >= 1 && day <= lastDayOfMonth(year, month)

/** Fractional seconds as nanoseconds; digits past the ninth are dropped. */
const nanosOf = (fraction: string | undefined): number =>
  fraction === undefined || fraction === "" ? 0 : Number(fraction.slice(0, 9).padEnd(9, "0"))

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/
const DATE_ONLY = /^(\d{4})-(\d{1,2})-(\d{1,2})$/
const NAIVE_DATETIME = /^(\d{4})-(\d{1,2})-(\d{1,2})[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d+))?)?$/
// Shapes the service's last-resort parser (the `dateparser` crate) also reads, offset explicit.
const OFFSET_DATETIME =
  /^(\d{4})-(\d{1,2})-(\d{1,2})[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d+))?)?\s*(?:(Z|UTC|GMT)|([+-])(\d{2}):?(\d{2}))$/i
const SLASHED = /^(\d{4})\/(\d{1,2})\/(\d{1,2})(?:[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2}))?)?$/

const fields = (match: RegExpExecArray, from: number, count: number): Array<number> =>
  Array.from({ length: count }, (_, i) => Number(match[from + i] ?? 0))

const inRange = (hour: number, minute: number, second: number): boolean => hour <= 23 && minute <= 59 && second <= 60

/** A date string as the service reads filter values (and non-numeric property strings). */
export const parseDateText = (text: string, timezone: string, now: Date): bigint | undefined => {
  const relative = parseRelativeDate(text, timezone, now)
  if (relative !== undefined) return relative

  let match = RFC3339.exec(text)
  if (match !== null) {
    const [year, month, day, hour, minute, second] = fields(match, 1, 6) as [
      number,
      number,
      number,
      number,
      number,
      number
    ]
    const offsetHours = Number(match[10] ?? 0)
    const offsetMinutes = Number(match[11] ?? 0)
    if (!validDate(year, month, day) || !inRange(hour, minute, second) || offsetHours > 23 || offsetMinutes > 59)
      return undefined
    const naive = naiveOf(year, month, day, hour, minute, second, nanosOf(match[7]))
    const offset = (match[9] === "-" ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000
    return instant(naive.ms - offset, naive.subMs)
  }

  match = DATE_ONLY.exec(text)
  if (match !== null) {
    const [year, month, day] = fields(match, 1, 3) as [number, number, number]
    return validDate(year, month, day) ? naiveToInstant(naiveOf(year, month, day, 0, 0, 0, 0), timezone) : undefined
  }

  match = NAIVE_DATETIME.exec(text)
  if (match !== null) {
    const [year, month, day, hour, minute, second] = fields(match, 1, 6) as [
      number,
      number,
      number,
      number,
      number,
      number
    ]
    // chrono takes "%.f" only after seconds; "HH:MM" has neither.
    if (!validDate(year, month, day) || !inRange(hour, minute, second)) return undefined
    return naiveToInstant(naiveOf(year, month, day, hour, minute, second, nanosOf(match[7])), timezone)
  }

  // Fallbacks of the service's generic parser, which reads naive values as UTC.
  match = OFFSET_DATETIME.exec(text)
  if (match !== null) {
    const [year, month, day, hour, minute, second] = fields(match, 1, 6) as [
      number,
      number,
      number,
      number,
      number,
      number
    ]
    if (!validDate(year, month, day) || !inRange(hour, minute, second)) return undefined
    const naive = naiveOf(year, month, day, hour, minute, second, nanosOf(match[7]))
    const offset =
      match[8] !== undefined ? 0 : (match[9] === "-" ? -1 : 1) * (Number(match[10]) * 60 + Number(match[11])) * 60_000
    return instant(naive.ms - offset, naive.subMs)
  }
  match = SLASHED.exec(text)
  if (match !== null) {
    const [year, month, day, hour, minute, second] = fields(match, 1, 6) as [
      number,
      number,
      number,
      number,
      number,
      number
    ]
    if (!validDate(year, month, day) || !inRange(hour, minute, second)) return undefined
    const naive = naiveOf(year, month, day, hour, minute, second, 0)
    return instant(naive.ms, 0)
  }
  return undefined
}

// chrono's representable range (years -262143 through 262142), in seconds.
const MIN_SECONDS = daysFromCivil(-262143, 1, 1) * 86_400
const MAX_SECONDS = daysFromCivil(262142, 12, 31) * 86_400 + 86_399

/** A Unix timestamp in (possibly fractional) seconds, read like the service's `parse_float_timestamp`. */
export const timestampInstant = (seconds: number): bigint | undefined => {
  if (!Number.isFinite(seconds)) return undefined
  const whole = Math.floor(seconds)
  // `(x % 1 * 1e9).round() as u32` saturates: negative fractions become 0.
  const nanos = Math.min(Math.max(Math.round((seconds % 1) * 1e9), 0), 4_294_967_295)
  if (whole < MIN_SECONDS || whole > MAX_SECONDS || nanos >= 2_000_000_000) return undefined
  return BigInt(whole) * NS_PER_S + BigInt(nanos)
}
