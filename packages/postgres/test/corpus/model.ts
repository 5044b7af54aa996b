import type { DemoEvent } from "@zed/core"
import { demoCompanies, demoPersons } from "../../../core/test/demoModel.js"

// What the demo events say, worked out in plain TypeScript, without Zed: the persons their
// `$identify` calls make, the sessions their `$session_id`s make, the companies their
// `$groupidentify` calls make, and their times in a time zone. The ZedQL corpus checks its query
// results against these.

export interface Event {
  readonly event: string
  readonly distinctId: string
  /** Milliseconds since the epoch. */
  readonly ms: number
  readonly uuid: string
  readonly properties: Record<string, unknown>
}

export interface Session {
  readonly id: string
  readonly events: Array<Event>
  readonly distinctId: string
  readonly start: number
  readonly end: number
  /** Second boundaries crossed from the first event to the last, as ClickHouse's `dateDiff('second', …)`. */
  readonly duration: number
  readonly pageviews: number
  readonly autocaptures: number
  readonly urls: Array<string>
  /** First and last value of a property among the session's events that have it. */
  readonly entry: (key: string) => unknown
  readonly exit: (key: string) => unknown
  /** PostHog's: none without pageviews, else a bounce unless several pageviews, a click, or 10 seconds. */
  readonly isBounce: boolean | null
}

/** Date and time of day in a time zone, from the IANA database through `Intl`. */
export const zone = (timeZone: string) => {
  const format = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit"
  })
  const pad = (n: number, width = 2) => String(n).padStart(width, "0")
  const wall = (ms: number) => {
    const part = Object.fromEntries(format.formatToParts(new Date(ms)).map((p) => [p.type, Number(p.value)]))
    const millis = ((ms % 1000) + 1000) % 1000
    const asUtc = Date.UTC(
      part["year"]!,
      part["month"]! - 1,
      part["day"]!,
      part["hour"]!,
      part["minute"]!,
      part["second"]!,
      millis
    )
    return {
      year: part["year"]!,
      month: part["month"]!,
      day: part["day"]!,
      hour: part["hour"]!,
      minute: part["minute"]!,
      second: part["second"]!,
      millis,
      offsetMinutes: (asUtc - ms) / 60_000
    }
  }
  /** The moment a wall-clock time happens (times that exist once: none inside a DST change). */
  const at = (year: number, month: number, day: number, hour = 0, minute = 0, second = 0) => {
    const asUtc = Date.UTC(year, month - 1, day, hour, minute, second)
    const first = asUtc - wall(asUtc).offsetMinutes * 60_000
    return asUtc - wall(first).offsetMinutes * 60_000
  }
  const date = (ms: number) => {
    const w = wall(ms)
    return `${w.year}-${pad(w.month)}-${pad(w.day)}`
  }
  /** As the query API writes a DateTime: microseconds and the offset. */
  const iso = (ms: number) => {
    const w = wall(ms)
    const offset = Math.abs(w.offsetMinutes)
    return (
      `${date(ms)}T${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}.${pad(w.millis, 3)}000` +
      `${w.offsetMinutes < 0 ? "-" : "+"}${pad(Math.floor(offset / 60))}:${pad(offset % 60)}`
    )
  }
  /** Monday = 1 … Sunday = 7, as ClickHouse's `toDayOfWeek`. */
  const dayOfWeek = (ms: number) => {
    const w = wall(ms)
    return new Date(Date.UTC(w.year, w.month - 1, w.day)).getUTCDay() || 7
  }
  const startOfDay = (ms: number) => {
    const w = wall(ms)
    return at(w.year, w.month, w.day)
  }
  /** The date of the Sunday starting the week (ClickHouse's `toStartOfWeek`, mode 0). */
  const startOfWeek = (ms: number) => {
    const w = wall(ms)
    const sunday = new Date(Date.UTC(w.year, w.month - 1, w.day - (dayOfWeek(ms) % 7)))
    return sunday.toISOString().slice(0, 10)
  }
  return { wall, at, date, iso, dayOfWeek, startOfDay, startOfWeek }
}

export type Zone = ReturnType<typeof zone>

const sessionsOf = (events: ReadonlyArray<Event>): Array<Session> => {
  const byId = new Map<string, Array<Event>>()
  for (const e of events) {
    const id = e.properties["$session_id"]
    if (typeof id !== "string") continue
    const list = byId.get(id)
    if (list === undefined) byId.set(id, [e])
    else list.push(e)
  }
  return [...byId].map(([id, list]) => {
    const sorted = [...list].sort((a, b) => a.ms - b.ms)
    const start = sorted[0]!.ms
    const end = sorted.at(-1)!.ms
    const duration = Math.floor(end / 1000) - Math.floor(start / 1000)
    const pageviews = sorted.filter((e) => e.event === "$pageview").length
    const autocaptures = sorted.filter((e) => e.event === "$autocapture").length
    const having = (key: string) => sorted.filter((e) => e.properties[key] !== undefined && e.properties[key] !== null)
    return {
      id,
      events: sorted,
      distinctId: sorted[0]!.distinctId,
      start,
      end,
      duration,
      pageviews,
      autocaptures,
      urls: [...new Set(having("$current_url").map((e) => e.properties["$current_url"] as string))],
      entry: (key: string) => having(key)[0]?.properties[key] ?? null,
      exit: (key: string) => having(key).at(-1)?.properties[key] ?? null,
      isBounce: pageviews === 0 ? null : !(pageviews > 1 || autocaptures > 0 || duration >= 10)
    }
  })
}

export const demoModel = (generated: ReadonlyArray<DemoEvent>, timeZone: string) => {
  const events: Array<Event> = generated.map((e) => ({
    event: e.event,
    distinctId: e.distinct_id,
    ms: Date.parse(e.timestamp),
    uuid: e.uuid,
    properties: e.properties
  }))
  return {
    events,
    ...demoPersons(generated),
    sessions: sessionsOf(events),
    companies: demoCompanies(generated),
    tz: zone(timeZone)
  }
}

export type DemoModel = ReturnType<typeof demoModel>
