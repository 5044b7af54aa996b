import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { planRetention, type RetentionQuery } from "../../core/src/insights/planners/retention.js"
import type { DemoModel, Zone } from "./corpus/model.js"
import { demoZed } from "./demoZed.js"

// Retention tables planned into ZedQL and run on both SQL stores over the demo data, in a project
// in New York (clocks change on 8 March 2026, inside the data), against cohorts worked out here
// from the generated events with the time zone database.

const TIME_ZONE = "America/New_York"
const DEMO = { events: 6000, seed: 11, end: new Date("2026-03-20T00:00:00.000Z"), days: 28 }
const CTX = { timezone: TIME_ZONE, now: DEMO.end, weekStartDay: 0 as const }

interface Options {
  readonly type: "retention_first_time" | "retention_recurring"
  readonly period: "Hour" | "Day" | "Week" | "Month"
  readonly intervals: number
  /** A moment in the last cohort's period. */
  readonly to: string
  readonly target: string
  readonly returning: string
}

const query = (o: Options): RetentionQuery => ({
  kind: "RetentionQuery",
  dateRange: { date_to: o.to },
  retentionFilter: {
    retentionType: o.type,
    period: o.period,
    totalIntervals: o.intervals,
    targetEntity: { id: o.target, type: "events" },
    returningEntity: { id: o.returning, type: "events" }
  }
})

const HOUR_MS = 3_600_000

/** The start of each cohort's period, as instants, worked out with the time zone database. */
const periodStarts = (tz: Zone, o: Options): Array<number> => {
  const anchor = Date.parse(o.to)
  const w = tz.wall(anchor)
  const dayShift = (days: number) => {
    const date = o.period === "Week" ? tz.startOfWeek(anchor) : tz.date(anchor)
    const [y, m, d] = date.split("-").map(Number)
    return tz.at(y!, m!, d! + days)
  }
  return Array.from({ length: o.intervals }, (_, i) => {
    const back = o.intervals - 1 - i
    switch (o.period) {
      case "Hour":
        // New York is a whole number of hours off UTC: its hours start on UTC hours.
        return Math.floor(anchor / HOUR_MS) * HOUR_MS - back * HOUR_MS
      case "Day":
        return dayShift(-back)
      case "Week":
        return dayShift(-7 * back)
      case "Month":
        return tz.at(w.year, w.month - back, 1)
    }
  })
}

const expected = (m: DemoModel, o: Options) => {
  const starts = periodStarts(m.tz, o)
  const end = nextPeriod(m.tz, o, starts.at(-1)!)
  const index = (ms: number) => (ms < starts[0]! || ms >= end ? -1 : starts.filter((start) => start <= ms).length - 1)
  const inTable = (i: number) => i >= 0 && i < o.intervals

  const cohorts = new Map<number, Set<unknown>>()
  const returns = new Map<unknown, Set<number>>()
  const firstTimes = new Map<unknown, number>()
  for (const e of m.events) {
    const person = m.personOf(e.distinctId)
    if (e.event === o.target) {
      firstTimes.set(person, Math.min(e.ms, firstTimes.get(person) ?? Infinity))
      if (o.type === "retention_recurring" && inTable(index(e.ms)))
        cohorts.set(index(e.ms), (cohorts.get(index(e.ms)) ?? new Set()).add(person))
    }
    if (e.event === o.returning && inTable(index(e.ms)))
      returns.set(person, (returns.get(person) ?? new Set()).add(index(e.ms)))
  }
  if (o.type === "retention_first_time") {
    for (const [person, ms] of firstTimes)
      if (inTable(index(ms))) cohorts.set(index(ms), (cohorts.get(index(ms)) ?? new Set()).add(person))
  }
  return starts.map((start, i) => {
    const members = [...(cohorts.get(i) ?? [])]
    return {
      date: m.tz.iso(start).replace(/\.\d+/, ""),
      label: `${o.period} ${i}`,
      values: Array.from({ length: o.intervals - i }, (_, j) => ({
        count: j === 0 ? members.length : members.filter((p) => returns.get(p)?.has(i + j)).length
      }))
    }
  })
}

/** The start of the period after the one starting at `start`. */
const nextPeriod = (tz: Zone, o: Options, start: number): number => {
  const w = tz.wall(start)
  switch (o.period) {
    case "Hour":
      return start + HOUR_MS
    case "Day":
      return tz.at(w.year, w.month, w.day + 1)
    case "Week":
      return tz.at(w.year, w.month, w.day + 7)
    case "Month":
      return tz.at(w.year, w.month + 1, 1)
  }
}

const SCENARIOS: ReadonlyArray<Options> = [
  {
    type: "retention_recurring",
    period: "Week",
    intervals: 4,
    to: "2026-03-19T16:00:00Z",
    target: "$pageview",
    returning: "$pageview"
  },
  {
    type: "retention_first_time",
    period: "Week",
    intervals: 4,
    to: "2026-03-19T16:00:00Z",
    target: "$pageview",
    returning: "document_edited"
  },
  {
    type: "retention_first_time",
    period: "Day",
    intervals: 8,
    to: "2026-03-11T16:00:00Z",
    target: "$pageview",
    returning: "$pageview"
  },
  {
    type: "retention_recurring",
    period: "Hour",
    intervals: 24,
    to: "2026-03-08T20:30:00Z",
    target: "$pageview",
    returning: "$pageview"
  },
  {
    type: "retention_first_time",
    period: "Month",
    intervals: 2,
    to: "2026-03-19T16:00:00Z",
    target: "$pageview",
    returning: "$pageview"
  }
]

describe.each(["pglite", "postgres", "chdb"])("retention on %s", (name) => {
  const demo = demoZed(name, DEMO, TIME_ZONE)

  it("has the clocks change inside the table", () => {
    const offsets = [Date.parse("2026-03-01T12:00:00Z"), Date.parse("2026-03-15T12:00:00Z")].map(
      (ms) => demo.model.tz.wall(ms).offsetMinutes
    )
    expect(offsets).toEqual([-300, -240])
  })

  it.each(SCENARIOS)("$type by $period to $to: $target then $returning", async (o) => {
    const want = expected(demo.model, o)
    // Each table must say something: returning persons after the first interval.
    expect(want.some((row) => row.values.slice(1).some((v) => v.count > 0))).toBe(true)
    expect(await demo.run(Effect.runSync(planRetention(query(o), CTX)))).toEqual(want)
  })
})
