import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { intervalStart, METRIC_INTERVALS, metricSeries, metricTotals } from "../src/functions/metricSeries.js"
import { makeMetricCounts } from "../src/functions/metrics.js"

// Invocations counted per hour in memory, then laid out per interval as PostHog's app metrics: each
// invocation lands in the label of the interval holding it, and nothing is lost or counted twice.

const HOUR = 3_600_000
const START = Date.UTC(2024, 0, 1)

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
        (invocations, interval) => {
          const counts = makeMetricCounts()
          for (const { at, ok, fn } of invocations) counts.add(1, fn, ok, START + at)
          const drained = counts.drain().filter((c) => c.function_id === "a")
          expect(counts.drain()).toEqual([])
          const mine = invocations.filter((i) => i.fn === "a")
          const range = { after: new Date(START), before: new Date(START + 60 * 24 * HOUR) }
          const { labels, series } = metricSeries(drained, range, interval, "name")
          // The label of the interval holding each invocation (weeks start on Monday).
          const labelOf = (at: number) => {
            const start = new Date(START + at)
            if (interval === "hour") start.setUTCMinutes(0, 0, 0)
            else start.setUTCHours(0, 0, 0, 0)
            if (interval === "week") start.setUTCDate(start.getUTCDate() - ((start.getUTCDay() + 6) % 7))
            return start.toISOString().slice(0, interval === "hour" ? 16 : 10)
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
    expect(new Date(intervalStart(wednesday, "week")).toISOString()).toBe("2024-01-01T00:00:00.000Z")
    expect(
      metricSeries([], { after: new Date(wednesday), before: new Date(wednesday + HOUR) }, "hour", "kind").labels
    ).toEqual(["2024-01-03T15:00", "2024-01-03T16:00"])
  })
})
