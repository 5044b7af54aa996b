import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import fc from "fast-check"
import { dateRangeConditions } from "../src/insights/planners/conditions.js"
import type { DateRange } from "../src/insights/planners/dateRange.js"
import { planValues } from "../src/insights/planners/statements.js"
import { withValues } from "../src/zedql/build.js"
import { formatExpr, formatSelect } from "../src/zedql/format.js"
import { FunnelsQuery, planFunnels, timeToConvertBins } from "../src/insights/planners/funnels.js"
import { CONTEXT, compilePlan } from "./insightsPlanning.js"

// The funnel planner without a database: which nodes it takes, that every plan it makes compiles,
// and how rows become the result. What the statements compute is checked against the demo data
// in @zed/postgres's insightsFunnels tests.

const decode = Schema.decodeUnknownEither(FunnelsQuery)
const steps = (...events: Array<string>) => events.map((event) => ({ kind: "EventsNode" as const, event }))

describe("FunnelsQuery", () => {
  it("takes PostHog's node, ignoring the fields it does not use", () => {
    const node = {
      kind: "FunnelsQuery",
      series: [
        { kind: "EventsNode", event: "$pageview", name: "$pageview", math: "total" },
        { kind: "EventsNode", event: "signed_up" }
      ],
      interval: "day",
      dateRange: { date_from: "-30d", date_to: null, explicitDate: false },
      funnelsFilter: {
        funnelOrderType: "strict",
        funnelWindowInterval: 2,
        funnelWindowIntervalUnit: "hour",
        layout: "vertical",
        funnelStepReference: "total"
      },
      breakdownFilter: { breakdown_type: "event", breakdown: "$browser" }
    }
    expect(Either.isRight(decode(node))).toBe(true)
  })

  it("refuses fewer than two steps, unknown order types and window units", () => {
    expect(Either.isLeft(decode({ kind: "FunnelsQuery", series: steps("$pageview") }))).toBe(true)
    expect(
      Either.isLeft(
        decode({ kind: "FunnelsQuery", series: steps("a", "b"), funnelsFilter: { funnelOrderType: "random" } })
      )
    ).toBe(true)
    expect(
      Either.isLeft(
        decode({ kind: "FunnelsQuery", series: steps("a", "b"), funnelsFilter: { funnelWindowIntervalUnit: "year" } })
      )
    ).toBe(true)
    expect(
      Either.isLeft(
        decode({ kind: "FunnelsQuery", series: steps("a", "b"), dateRange: { date_from: "yesterday-ish" } })
      )
    ).toBe(true)
  })
})

const arbitraryQuery: fc.Arbitrary<FunnelsQuery> = fc
  .record({
    events: fc.array(fc.constantFrom("$pageview", "signed_up", "it's \\ quoted", "document_created"), {
      minLength: 2,
      maxLength: 5
    }),
    order: fc.constantFrom("ordered", "strict", "unordered"),
    viz: fc.constantFrom("steps", "time_to_convert", "trends"),
    window: fc.integer({ min: 1, max: 90 }),
    unit: fc.constantFrom("second", "minute", "hour", "day", "week", "month"),
    breakdown: fc.option(
      fc.record({
        breakdown_type: fc.constantFrom("event", "person"),
        breakdown: fc.constantFrom("$browser", "plan", "odd 'key'")
      }),
      { nil: undefined }
    ),
    exclusion: fc.option(fc.record({ from: fc.nat(4), to: fc.integer({ min: 1, max: 5 }) }), { nil: undefined }),
    properties: fc.boolean()
  })
  .map((o) => ({
    kind: "FunnelsQuery" as const,
    series: steps(...o.events),
    dateRange: { date_from: "-14d" },
    ...(o.properties
      ? { properties: [{ key: "$browser", value: ["Chrome", "Safari"], operator: "exact", type: "event" }] }
      : {}),
    ...(o.breakdown ? { breakdownFilter: o.breakdown } : {}),
    funnelsFilter: {
      funnelOrderType: o.order,
      funnelVizType: o.viz,
      funnelWindowInterval: o.window,
      funnelWindowIntervalUnit: o.unit,
      ...(o.exclusion
        ? { exclusions: [{ event: "logged_in", funnelFromStep: o.exclusion.from, funnelToStep: o.exclusion.to }] }
        : {})
    }
  }))

describe("the funnel plan", () => {
  it("compiles, whatever the order, steps, window, breakdown and exclusions", async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryQuery, async (query) => {
        const plan = Effect.runSync(planFunnels(query, CONTEXT))
        expect(plan.queries).toHaveLength(1)
        expect(plan.zedql).toBe(formatSelect(withValues(plan.queries[0]!, planValues(CONTEXT))))
        expect(plan.zedql).not.toContain("{now}")
        const compiled = await compilePlan(plan)
        expect(Either.isRight(compiled), JSON.stringify(compiled)).toBe(true)
      }),
      { numRuns: 12 }
    )
  })

  it("counts relative dates from the context's now, and takes a date-only date_to as the whole day", () => {
    // Written out as format.ts writes trees, with the plan's now.
    const conditions = (range: DateRange) =>
      dateRangeConditions(range, "-30d").map((c) => formatExpr(withValues(c, planValues(CONTEXT))))
    expect(conditions({ date_from: "-7d" })).toEqual([
      "greaterOrEquals(timestamp, minus(toDateTime('2026-03-20T15:30:00.000Z'), toIntervalDay(7)))",
      "lessOrEquals(timestamp, toDateTime('2026-03-20T15:30:00.000Z'))"
    ])
    expect(conditions({ date_from: "2026-03-01", date_to: "2026-03-10" })).toEqual([
      "greaterOrEquals(timestamp, toDateTime('2026-03-01'))",
      "less(timestamp, addDays(toDateTime('2026-03-10'), 1))"
    ])
    expect(conditions({ date_from: "all" })).toEqual([
      "lessOrEquals(timestamp, toDateTime('2026-03-20T15:30:00.000Z'))"
    ])
  })

  const query: FunnelsQuery = {
    kind: "FunnelsQuery",
    series: [{ event: "$pageview", custom_name: "Visited" }, { event: "signed_up" }, { event: null }]
  }

  it("answers an invalid node or filter as InsightQueryInvalid", () => {
    for (const input of [
      { ...query, series: [] },
      { ...query, properties: [{ key: "x", operator: "sounds_like", value: "y" }] }
    ]) {
      expect(Effect.runSync(Effect.flip(planFunnels(input, CONTEXT)))._tag).toBe("InsightQueryInvalid")
    }
  })

  it("shapes a row into steps: counts, and conversion times from the second step", () => {
    const result = Effect.runSync(planFunnels(query, CONTEXT)).shape([[["", 10, 4, 1, 12.5, 10, 60, 60]]])
    expect(result).toEqual([
      {
        action_id: "$pageview",
        name: "$pageview",
        custom_name: "Visited",
        order: 0,
        type: "events",
        count: 10,
        people: [],
        average_conversion_time: null,
        median_conversion_time: null
      },
      {
        action_id: "signed_up",
        name: "signed_up",
        custom_name: null,
        order: 1,
        type: "events",
        count: 4,
        people: [],
        average_conversion_time: 12.5,
        median_conversion_time: 10
      },
      {
        action_id: null,
        name: "All events",
        custom_name: null,
        order: 2,
        type: "events",
        count: 1,
        people: [],
        average_conversion_time: 60,
        median_conversion_time: 60
      }
    ])
  })

  it("answers zero counts when nobody entered the funnel", () => {
    const result = Effect.runSync(planFunnels(query, CONTEXT)).shape([[]]) as Array<{
      count: number
      average_conversion_time: unknown
    }>
    expect(result.map((s) => [s.count, s.average_conversion_time])).toEqual([
      [0, null],
      [0, null],
      [0, null]
    ])
  })

  it("answers one list of steps per breakdown value, in the statement's order", () => {
    const plan = Effect.runSync(planFunnels({ ...query, breakdownFilter: { breakdown: "$browser" } }, CONTEXT))
    const result = plan.shape([
      [
        ["Chrome", 5, 2, 0, 1, 1, null, null],
        ["", 3, 0, 0, null, null, null, null]
      ]
    ]) as Array<Array<Record<string, unknown>>>
    expect(result.map((list) => list.map((s) => [s["breakdown"], s["breakdown_value"], s["count"]]))).toEqual([
      [
        ["Chrome", "Chrome", 5],
        ["Chrome", "Chrome", 2],
        ["Chrome", "Chrome", 0]
      ],
      [
        ["", "", 3],
        ["", "", 0],
        ["", "", 0]
      ]
    ])
  })
})

describe("time to convert bins", () => {
  const times = fc
    .uniqueArray(fc.nat(100_000), { minLength: 1, maxLength: 50 })
    .chain((seconds) =>
      fc.tuple(...seconds.sort((a, b) => a - b).map((s) => fc.tuple(fc.constant(s), fc.integer({ min: 1, max: 20 }))))
    )

  it("put every conversion in one bin, from the fastest, and average them", () => {
    fc.assert(
      fc.property(times, fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }), (list, binCount) => {
        const { average_conversion_time, bins } = timeToConvertBins(list, binCount)
        const total = list.reduce((sum, [, n]) => sum + n, 0)
        expect(bins.reduce((sum, [, n]) => sum + n, 0)).toBe(total)
        expect(bins[0]![0]).toBe(list[0]![0])
        if (binCount !== undefined) expect(bins).toHaveLength(binCount)
        for (const [seconds, count] of list) {
          const bin = bins.findIndex(
            ([start], i) => seconds >= start && (i === bins.length - 1 || seconds < bins[i + 1]![0])
          )
          expect(bin).toBeGreaterThanOrEqual(0)
          expect(bins[bin]![1]).toBeGreaterThanOrEqual(count)
        }
        expect(average_conversion_time).toBeCloseTo(list.reduce((sum, [s, n]) => sum + s * n, 0) / total, 6)
      })
    )
  })

  it("are empty without conversions", () => {
    expect(timeToConvertBins([], 5)).toEqual({ bins: [], average_conversion_time: null })
  })
})
