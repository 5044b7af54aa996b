import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import type { InsightContext, InsightPlan } from "../src/insights/plan.js"
import { bucketsFrom, instantOf, naiveOf, previousPeriod, resolvePeriod } from "../src/insights/planners/dateRange.js"
import { applyFormula, FormulaInvalid, parseFormula } from "../src/insights/planners/formula.js"
import { planLifecycle } from "../src/insights/planners/lifecycle.js"
import { planStickiness } from "../src/insights/planners/stickiness.js"
import * as Q from "../src/zedql/build.js"
import { compileZedQLTree } from "../src/zedql/compile.js"
import { compileStatement } from "./insightsPlanning.js"
import { BREAKDOWN_OTHER, planTrends } from "../src/insights/planners/trends.js"

// The pure parts of the trends, stickiness and lifecycle planners: date ranges as buckets in a
// zone with clock changes, literals, formulas, decoding errors and how rows become results.
// Their statements against real data are tested in @zed/postgres (insightsTrends.test.ts).

const NEW_YORK = "America/New_York"
// 10 March 2026, 12:00 in New York (EDT, two days after the clocks went forward).
const CTX: InsightContext = { timezone: NEW_YORK, now: new Date("2026-03-10T16:00:00Z"), weekStartDay: 0 }
const HOUR = 3_600_000
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())
const plan = (effect: Effect.Effect<InsightPlan, unknown>) => Effect.runPromise(effect)
const refusal = (effect: Effect.Effect<InsightPlan, { readonly message: string }>) =>
  Effect.runPromise(Effect.flip(effect))
const pageviews = { kind: "EventsNode", event: "$pageview" }

describe("insight date ranges", () => {
  it("makes -7d by day the 8 days ending today, bounded at the zone's midnights across a clock change", () => {
    const period = resolvePeriod({ date_from: "-7d" }, "day", CTX)
    expect(period.buckets.map((b) => b.key)).toEqual(
      ["03", "04", "05", "06", "07", "08", "09", "10"].map((d) => `2026-03-${d}`)
    )
    expect(period.buckets.map((b) => b.label).slice(0, 2)).toEqual(["3-Mar-2026", "4-Mar-2026"])
    // Midnight EST (UTC-5) to midnight EDT (UTC-4).
    expect([iso(period.from), iso(period.to)]).toEqual(["2026-03-03T05:00:00.000Z", "2026-03-11T04:00:00.000Z"])
  })

  it("has the zone's real hours by the hour: 23 on the day the clocks go forward, the repeated hour once in the fall", () => {
    const spring = resolvePeriod({ date_from: "2026-03-08", date_to: "2026-03-08" }, "hour", CTX)
    expect(spring.buckets.length).toBe(23)
    expect(spring.buckets.map((b) => b.key)).not.toContain("2026-03-08 02:00:00")
    expect(spring.buckets[3]).toMatchObject({ key: "2026-03-08 04:00:00", label: "8-Mar-2026 04:00" })
    expect((spring.to - spring.from!) / HOUR).toBe(23)
    const fall = resolvePeriod({ date_from: "2026-11-01", date_to: "2026-11-01" }, "hour", CTX)
    expect((fall.to - fall.from!) / HOUR).toBe(25)
    expect(fall.buckets.map((b) => b.key)).toEqual(
      Array.from({ length: 24 }, (_, h) => `2026-11-01 ${String(h).padStart(2, "0")}:00:00`)
    )
  })

  it("starts weeks on Sunday or Monday, as the project says", () => {
    // 4 March 2026 is a Wednesday.
    expect(resolvePeriod({ date_from: "2026-03-04" }, "week", CTX).buckets.map((b) => b.key)).toEqual([
      "2026-03-01",
      "2026-03-08"
    ])
    expect(
      resolvePeriod({ date_from: "2026-03-04" }, "week", { ...CTX, weekStartDay: 1 }).buckets.map((b) => b.key)
    ).toEqual(["2026-03-02", "2026-03-09"])
  })

  it("reads mStart, fixed dates with offsets, explicit dates and all", () => {
    const month = resolvePeriod({ date_from: "mStart" }, "month", CTX)
    expect([month.buckets.map((b) => b.key), iso(month.from), iso(month.to)]).toEqual([
      ["2026-03-01"],
      "2026-03-01T05:00:00.000Z",
      "2026-04-01T04:00:00.000Z"
    ])
    const fixed = resolvePeriod({ date_from: "2026-02-27T03:00:00Z", date_to: "2026-03-01" }, "day", CTX)
    // 03:00 UTC on the 27th is the 26th in New York.
    expect(fixed.buckets.map((b) => b.key)).toEqual(["2026-02-26", "2026-02-27", "2026-02-28", "2026-03-01"])
    const explicit = resolvePeriod(
      { date_from: "2026-03-02 10:30", date_to: "2026-03-03 08:00", explicitDate: true },
      "day",
      CTX
    )
    expect([iso(explicit.from), iso(explicit.to), explicit.buckets.length]).toEqual([
      "2026-03-02T15:30:00.000Z",
      "2026-03-03T13:00:00.000Z",
      2
    ])
    const all = resolvePeriod({ date_from: "all" }, "month", CTX)
    expect(all.from).toBeNull()
    expect(bucketsFrom(all, ["2026-02-03", "2026-01-15"], CTX).map((b) => b.key)).toEqual([
      "2026-01-01",
      "2026-02-01",
      "2026-03-01"
    ])
    expect(bucketsFrom(all, [], CTX).map((b) => b.key)).toEqual(["2026-03-01"])
  })

  it("compares with the same number of intervals before, or with a shifted range", () => {
    const current = resolvePeriod({ date_from: "-2d" }, "day", CTX)
    expect(previousPeriod(current, null, CTX).buckets.map((b) => b.key)).toEqual([
      "2026-03-05",
      "2026-03-06",
      "2026-03-07"
    ])
    expect(previousPeriod(current, "-1y", CTX).buckets.map((b) => b.key)).toEqual([
      "2025-03-08",
      "2025-03-09",
      "2025-03-10"
    ])
  })

  it("gives back any wall time it read from an instant", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(NEW_YORK, "Europe/London", "Asia/Kolkata", "Australia/Lord_Howe", "UTC"),
        fc.integer({ min: Date.parse("2015-01-01"), max: Date.parse("2035-01-01") }),
        (zone, ms) => {
          const wall = naiveOf(ms, zone)
          expect(naiveOf(instantOf(wall, zone), zone)).toBe(wall)
        }
      ),
      { numRuns: 300 }
    )
  })
})

describe("insight statements", () => {
  it("quote any text as one literal, whatever quotes and backslashes it holds", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 20 }), async (text) => {
        const compiled = await Effect.runPromise(
          compileZedQLTree(Q.select`SELECT ${text} AS v`, { projectId: 1, timezone: "UTC" })
        )
        expect(compiled.params).toContain(text)
      }),
      { numRuns: 100 }
    )
  })

  it("compile, for every math and with nested property groups", async () => {
    const maths = [
      "total",
      "dau",
      "weekly_active",
      "monthly_active",
      "unique_session",
      "sum",
      "avg",
      "min",
      "max",
      "median",
      "p75",
      "p90",
      "p95",
      "p99",
      "avg_count_per_actor",
      "min_count_per_actor",
      "max_count_per_actor",
      "median_count_per_actor"
    ]
    const properties = {
      type: "AND",
      values: [
        {
          type: "OR",
          values: [
            { key: "$browser", value: ["Chrome", "it's"], operator: "exact" },
            { key: "email", type: "person", operator: "icontains", value: "\\" }
          ]
        }
      ]
    }
    const plans = [
      await plan(
        planTrends(
          { kind: "TrendsQuery", series: maths.map((math) => ({ ...pageviews, math, math_property: "price" })) },
          CTX
        )
      ),
      await plan(
        planTrends(
          {
            kind: "TrendsQuery",
            series: [{ ...pageviews, math: "weekly_active", properties }],
            breakdownFilter: { breakdown: "plan", breakdown_type: "person" },
            compareFilter: { compare: true },
            trendsFilter: { display: "BoldNumber" }
          },
          CTX
        )
      )
    ]
    expect(plans.flatMap((p) => p.queries).length).toBe(maths.length + 2)
    for (const p of plans)
      for (const query of p.queries) await Effect.runPromise(compileStatement(query, p.values, NEW_YORK))
  }, 60_000)

  it("refuse what they cannot plan, saying why", async () => {
    expect(
      (await refusal(planTrends({ kind: "TrendsQuery", series: [{ ...pageviews, math: "sum" }] }, CTX))).message
    ).toMatch(/needs a math_property/)
    expect(
      (
        await refusal(
          planTrends(
            { kind: "TrendsQuery", series: [{ ...pageviews, properties: [{ key: "x", type: "group" }] }] },
            CTX
          )
        )
      ).message
    ).toMatch(/type "group" are not supported/)
    expect(
      (
        await refusal(
          planTrends(
            { kind: "TrendsQuery", series: [{ ...pageviews, properties: [{ key: "id", type: "cohort" }] }] },
            CTX
          )
        )
      ).message
    ).toMatch(/cohort filter's value is the cohort's id/)
    expect(
      (await refusal(planTrends({ kind: "TrendsQuery", series: [pageviews], interval: "fortnight" }, CTX))).message
    ).toMatch(/interval/)
    expect(
      (await refusal(planTrends({ kind: "TrendsQuery", series: [pageviews], trendsFilter: { formula: "A + C" } }, CTX)))
        .message
    ).toMatch(/names a series/)
    expect(
      (
        await refusal(
          planTrends({ kind: "TrendsQuery", series: [pageviews], trendsFilter: { formula: "A +* 2" } }, CTX)
        )
      ).message
    ).toMatch(/Invalid formula/)
    expect(
      (await refusal(planLifecycle({ kind: "LifecycleQuery", series: [pageviews, pageviews] }, CTX))).message
    ).toMatch(/series/)
    expect(
      (
        await refusal(
          planStickiness({ kind: "StickinessQuery", series: [pageviews], dateRange: { date_from: "all" } }, CTX)
        )
      ).message
    ).toMatch(/all/)
  })
})

describe("formulas", () => {
  type Tree = { n: number } | { ref: number } | { op: "+" | "-" | "*" | "/"; l: Tree; r: Tree }
  const tree: fc.Memo<Tree> = fc.memo((depth) =>
    depth <= 1
      ? fc.oneof(fc.record({ n: fc.integer({ min: 0, max: 9 }) }), fc.record({ ref: fc.integer({ min: 0, max: 2 }) }))
      : fc.oneof(
          tree(1),
          fc.record({ op: fc.constantFrom("+", "-", "*", "/" as const), l: tree(depth - 1), r: tree(depth - 1) })
        )
  )
  const text = (t: Tree): string =>
    "n" in t ? String(t.n) : "ref" in t ? "ABC"[t.ref]! : `(${text(t.l)} ${t.op} ${text(t.r)})`
  const value = (t: Tree, v: ReadonlyArray<number>): number => {
    if ("n" in t) return t.n
    if ("ref" in t) return v[t.ref]!
    const [l, r] = [value(t.l, v), value(t.r, v)]
    return t.op === "+" ? l + r : t.op === "-" ? l - r : t.op === "*" ? l * r : l / r
  }

  it("evaluate as arithmetic does, with 0 for a division by zero", () => {
    fc.assert(
      fc.property(tree(4), fc.array(fc.integer({ min: -50, max: 50 }), { minLength: 3, maxLength: 3 }), (t, values) => {
        const expected = value(t, values)
        expect(applyFormula(parseFormula(text(t)), values)).toBeCloseTo(Number.isFinite(expected) ? expected : 0, 6)
      })
    )
    expect(applyFormula(parseFormula("-a*2 + b"), [3, 1])).toBe(-5)
    expect(() => parseFormula("A; drop")).toThrow(FormulaInvalid)
  })
})

describe("trends results", () => {
  const dayQuery = { kind: "TrendsQuery", series: [pageviews], dateRange: { date_from: "-3d" } }
  const DAYS = ["2026-03-07", "2026-03-08", "2026-03-09", "2026-03-10"]

  it("fill buckets without rows with zeros, and count their sum (or the last value, cumulative)", async () => {
    const planned = await plan(planTrends(dayQuery, CTX))
    const [series] = planned.shape([
      [
        ["2026-03-08", 4],
        ["2026-03-10", 2],
        ["2026-02-01", 99]
      ]
    ]) as Array<Record<string, unknown>>
    expect(series).toMatchObject({
      data: [0, 4, 0, 2],
      days: DAYS,
      labels: ["7-Mar-2026", "8-Mar-2026", "9-Mar-2026", "10-Mar-2026"],
      count: 6,
      label: "$pageview"
    })
    expect(series!["action"]).toMatchObject({ id: "$pageview", math: "total", order: 0 })
    const cumulative = await plan(
      planTrends({ ...dayQuery, trendsFilter: { display: "ActionsLineGraphCumulative" } }, CTX)
    )
    expect(
      cumulative.shape([
        [
          ["2026-03-08", 4],
          ["2026-03-10", 2]
        ]
      ])
    ).toMatchObject([{ data: [0, 4, 4, 6], count: 6 }])
  })

  it("give a series per breakdown value, the largest first, empty as none and the others last", async () => {
    const planned = await plan(planTrends({ ...dayQuery, breakdownFilter: { breakdown: "$browser" } }, CTX))
    const rows = [
      ["2026-03-07", BREAKDOWN_OTHER, 50],
      ["2026-03-07", "Safari", 1],
      ["2026-03-08", "", 2],
      ["2026-03-09", "Chrome", 3]
    ]
    expect(
      (planned.shape([rows]) as Array<Record<string, unknown>>).map(({ breakdown_value, data, label }) => ({
        breakdown_value,
        data,
        label
      }))
    ).toEqual([
      { breakdown_value: "Chrome", label: "Chrome", data: [0, 0, 3, 0] },
      { breakdown_value: "none", label: "none", data: [0, 2, 0, 0] },
      { breakdown_value: "Safari", label: "Safari", data: [1, 0, 0, 0] },
      { breakdown_value: BREAKDOWN_OTHER, label: BREAKDOWN_OTHER, data: [50, 0, 0, 0] }
    ])
    const hidden = await plan(
      planTrends(
        { ...dayQuery, breakdownFilter: { breakdown: "$browser", breakdown_hide_other_aggregation: true } },
        CTX
      )
    )
    expect((hidden.shape([rows]) as Array<Record<string, unknown>>).map((s) => s["breakdown_value"])).toEqual([
      "Chrome",
      "none",
      "Safari"
    ])
  })

  it("label compared periods, and give totals as aggregated values", async () => {
    const compared = await plan(planTrends({ ...dayQuery, compareFilter: { compare: true } }, CTX))
    expect(compared.queries.length).toBe(2)
    expect(compared.shape([[["2026-03-10", 1]], [["2026-03-03", 5]]])).toMatchObject([
      { compare: true, compare_label: "current", data: [0, 0, 0, 1] },
      {
        compare: true,
        compare_label: "previous",
        days: ["2026-03-03", "2026-03-04", "2026-03-05", "2026-03-06"],
        data: [5, 0, 0, 0]
      }
    ])
    const bold = await plan(
      planTrends(
        {
          ...dayQuery,
          series: [pageviews, { ...pageviews, math: "dau" }],
          trendsFilter: { display: "BoldNumber", formula: "A / B" }
        },
        CTX
      )
    )
    expect(bold.shape([[[12]], [[4]]])).toMatchObject([
      { aggregated_value: 3, data: [], days: [], count: 0, label: "A / B" }
    ])
  })

  it("apply formulas per breakdown value, a value missing from a series counting 0", async () => {
    const planned = await plan(
      planTrends(
        {
          ...dayQuery,
          series: [pageviews, pageviews],
          breakdownFilter: { breakdown: "$browser" },
          trendsFilter: { formulaNodes: [{ formula: "A - B" }] }
        },
        CTX
      )
    )
    const shaped = planned.shape([
      [
        ["2026-03-07", "Chrome", 5],
        ["2026-03-07", "Safari", 2]
      ],
      [["2026-03-07", "Chrome", 1]]
    ]) as Array<Record<string, unknown>>
    expect(shaped.map(({ breakdown_value, data, label }) => ({ breakdown_value, data, label }))).toEqual([
      { breakdown_value: "Chrome", label: "Chrome", data: [4, 0, 0, 0] },
      { breakdown_value: "Safari", label: "Safari", data: [2, 0, 0, 0] }
    ])
  })
})

describe("stickiness and lifecycle results", () => {
  it("count persons per number of intervals, or at least that many when cumulative", async () => {
    const query = { kind: "StickinessQuery", series: [pageviews], dateRange: { date_from: "-2d" } }
    const rows = [
      [1, 10],
      [3, 2]
    ]
    expect((await plan(planStickiness(query, CTX))).shape([rows])).toMatchObject([
      { days: [1, 2, 3], labels: ["1 day", "2 days", "3 days"], data: [10, 0, 2], count: 12 }
    ])
    const cumulative = await plan(planStickiness({ ...query, stickinessFilter: { computedAs: "cumulative" } }, CTX))
    expect(cumulative.shape([rows])).toMatchObject([{ data: [12, 2, 2] }])
  })

  it("give each status a series, dormant negative, only the toggled ones", async () => {
    const query = { kind: "LifecycleQuery", series: [pageviews], dateRange: { date_from: "-1d" } }
    const rows = [
      ["2026-03-09", "new", 3],
      ["2026-03-10", "returning", 2],
      ["2026-03-10", "dormant", 1],
      ["2026-03-11", "dormant", 7]
    ]
    const shaped = (await plan(planLifecycle(query, CTX))).shape([rows]) as Array<Record<string, unknown>>
    expect(shaped.map(({ data, status }) => ({ status, data }))).toEqual([
      { status: "new", data: [3, 0] },
      { status: "returning", data: [0, 2] },
      { status: "resurrecting", data: [0, 0] },
      { status: "dormant", data: [0, -1] }
    ])
    const toggled = await plan(
      planLifecycle({ ...query, lifecycleFilter: { toggledLifecycles: ["dormant", "new"] } }, CTX)
    )
    expect((toggled.shape([rows]) as Array<Record<string, unknown>>).map((s) => s["status"])).toEqual([
      "new",
      "dormant"
    ])
  })
})
