import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { makeMetricCounts } from "../src/functions/metrics.js"

// The in-memory counters of zed function invocations: whatever the order of invocations, a drain
// gives one count per function, hour and outcome, equal to the invocations of that kind, and leaves
// nothing behind.

const HOUR = 3_600_000
const START = Date.UTC(2026, 10, 27)

const invocation = fc.record({
  fn: fc.constantFrom("a", "b", "c"),
  succeeded: fc.boolean(),
  at: fc.integer({ min: START, max: START + 5 * HOUR - 1 })
})

describe("function metric counts", () => {
  it("drain one count per function, hour and outcome, summing the invocations", () => {
    fc.assert(
      fc.property(fc.array(invocation, { maxLength: 200 }), (invocations) => {
        const counts = makeMetricCounts()
        for (const { at, fn, succeeded } of invocations) counts.add(7, fn, succeeded, at)
        const expected = new Map<string, number>()
        for (const { at, fn, succeeded } of invocations) {
          const key = `${fn} ${new Date(at - (at % HOUR)).toISOString()} ${succeeded ? "succeeded" : "failed"}`
          expected.set(key, (expected.get(key) ?? 0) + 1)
        }
        const drained = counts.drain()
        expect(
          drained.every((c) => c.project_id === 7 && c.kind === (c.name === "succeeded" ? "success" : "failure"))
        ).toBe(true)
        expect(new Map(drained.map((c) => [`${c.function_id} ${c.hour.toISOString()} ${c.name}`, c.count]))).toEqual(
          expected
        )
        expect(drained).toHaveLength(expected.size)
        expect(counts.drain()).toEqual([])
      })
    )
  })
})
