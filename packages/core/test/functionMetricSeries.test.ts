import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { intervalStart, METRIC_INTERVALS, metricSeries, metricTotals } from "../src/functions/metricSeries.js"
import { makeMetricCounts } from "../src/functions/metrics.js"

// Invocations counted per hour in memory, then laid out per interval as PostHog's app metrics: each
// invocation lands in the label of the interval holding it, and nothing is lost or counted twice.

const HOUR = 3_600_000
const START = Date.UTC(2024, 0, 1)
// UTC, one with clock changes (inside the 60 days: 10 March 2024), one half an hour off.
const ZONES = ["UTC", "America/New_York", "Asia/Kolkata"]

/** An instant's date and time of day on a zone's clock, through Intl (not Zed's zone code). */
const wallClock = (ms: number, timeZone: string) => {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit"
    })
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value])
  )
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}` }
}

describe("function metric series", () => {
  it("puts every invocation in its interval's label, and the totals agree", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            at: fc.integer({ min: 0, max: 60 * 24 * HOUR }),
            ok: fc.boolean(),
            fn: fc.constantFrom("a", "b")
          }),
          {
            maxLength: 200
          }
        ),
        fc.constantFrom(...METRIC_INTERVALS),
        fc.constantFrom(...ZONES),
        (invocations, interval, timezone) => {
          const counts = makeMetricCounts()
          for (const { at, ok, fn } of invocations) counts.add(1, fn, ok, START + at)
          const drained = counts.drain().filter((c) => c.function_id === "a")
          expect(counts.drain()).toEqual([])
          const mine = invocations.filter((i) => i.fn === "a")
          const range = { after: new Date(START), before: new Date(START + 60 * 24 * HOUR) }
          const { labels, series } = metricSeries(drained, range, interval, "name", timezone)
          // The label of the interval holding each invocation's hour, read on the zone's clock
          // (weeks start on Monday).
          const labelOf = (at: number) => {
            const { date, time } = wallClock(Math.floor((START + at) / HOUR) * HOUR, timezone)
            if (interval === "hour") return `${date}T${time}`
            const day = new Date(`${date}T00:00:00Z`)
            if (interval === "week") day.setUTCDate(day.getUTCDate() - ((day.getUTCDay() + 6) % 7))
            return day.toISOString().slice(0, 10)
          }
          for (const name of ["succeeded", "failed"]) {
            const expected = new Map<string, number>()
            for (const i of mine.filter((i) => i.ok === (name === "succeeded")))
              expected.set(labelOf(i.at), (expected.get(labelOf(i.at)) ?? 0) + 1)
            const values = series.find((s) => s.name === name)?.values ?? labels.map(() => 0)
            expect(Object.fromEntries(labels.map((l, i) => [l, values[i]]).filter(([, v]) => v !== 0))).toEqual(
              Object.fromEntries(expected)
            )
          }
          expect(metricTotals(drained, "kind")).toEqual(
            Object.fromEntries(
              (
                [
                  ["success", mine.filter((i) => i.ok).length],
                  ["failure", mine.filter((i) => !i.ok).length]
                ] as const
              ).filter(([, n]) => n > 0)
            )
          )
        }
      )
    )
  })

  it("starts weeks on Monday and labels hours to the minute", () => {
    // 2024-01-03 was a Wednesday.
    const wednesday = Date.UTC(2024, 0, 3, 15, 30)
    expect(new Date(intervalStart(wednesday, "week", "UTC")).toISOString()).toBe("2024-01-01T00:00:00.000Z")
    expect(
      metricSeries([], { after: new Date(wednesday), before: new Date(wednesday + HOUR) }, "hour", "kind", "UTC").labels
    ).toEqual(["2024-01-03T15:00", "2024-01-03T16:00"])
  })

  it("reads days on the project's clock: New York's Monday starts at 05:00 UTC, and a day around the clock change", () => {
    const wednesday = Date.UTC(2024, 0, 3, 3)
    expect(new Date(intervalStart(wednesday, "week", "America/New_York")).toISOString()).toBe(
      "2024-01-01T05:00:00.000Z"
    )
    const range = { after: new Date(Date.UTC(2024, 2, 9, 12)), before: new Date(Date.UTC(2024, 2, 11, 12)) }
    const counts = [Date.UTC(2024, 2, 10, 4), Date.UTC(2024, 2, 11, 3)].map((at) => ({
      project_id: 1,
      function_id: "f",
      hour: new Date(at),
      name: "succeeded",
      kind: "success",
      count: 1
    }))
    // 04:00 UTC on the 10th is 23:00 on the 9th in New York; 03:00 UTC on the 11th, 23:00 on the 10th
    // (a day of 23 hours).
    expect(metricSeries(counts, range, "day", "name", "America/New_York")).toEqual({
      labels: ["2024-03-09", "2024-03-10", "2024-03-11"],
      series: [{ name: "succeeded", values: [1, 1, 0] }]
    })
  })
})
