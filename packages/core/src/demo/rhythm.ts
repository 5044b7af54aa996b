import type { Chance } from "./random.js"

// How busy the product is over time: weekdays over weekends, working hours (of an audience spread
// over Europe and the Americas, so in UTC) over nights, growth across the span, and day-to-day noise.

const HOUR_MS = 3_600_000

/** Relative activity by UTC hour. */
const HOURS = [
  0.3, 0.22, 0.16, 0.12, 0.11, 0.14, 0.25, 0.45, 0.7, 0.88, 0.95, 1.0, 1.0, 1.05, 1.15, 1.2, 1.15, 1.05, 0.95, 0.85,
  0.75, 0.62, 0.5, 0.4
]

/** Relative activity by UTC weekday, Sunday first. */
const WEEKDAYS = [0.42, 1.0, 1.05, 1.05, 1.0, 0.85, 0.4]

/** The last day is this much busier than the first. */
const GROWTH = 0.8

/** Maps a fraction of the span's total activity to the moment it is reached. */
export interface Rhythm {
  readonly start: number
  readonly end: number
  readonly at: (fraction: number) => number
}

export const rhythm = (start: number, end: number, chance: Chance): Rhythm => {
  const hours = Math.ceil((end - start) / HOUR_MS)
  const cumulative: Array<number> = []
  let total = 0
  let noise = 1
  for (let h = 0; h < hours; h++) {
    const from = start + h * HOUR_MS
    const date = new Date(from)
    if (h === 0 || date.getUTCHours() === 0) noise = 0.85 + 0.3 * chance.number()
    const width = Math.min(HOUR_MS, end - from) / HOUR_MS
    const growth = 1 + GROWTH * (h / hours)
    total += width * HOURS[date.getUTCHours()]! * WEEKDAYS[date.getUTCDay()]! * growth * noise
    cumulative.push(total)
  }
  return {
    start,
    end,
    at: (fraction) => {
      const target = fraction * total
      let lo = 0
      let hi = hours - 1
      while (lo < hi) {
        const mid = (lo + hi) >> 1
        if (cumulative[mid]! < target) lo = mid + 1
        else hi = mid
      }
      const before = lo === 0 ? 0 : cumulative[lo - 1]!
      const within = (target - before) / (cumulative[lo]! - before)
      const from = start + lo * HOUR_MS
      return Math.min(end - 1, Math.floor(from + within * Math.min(HOUR_MS, end - from)))
    }
  }
}
