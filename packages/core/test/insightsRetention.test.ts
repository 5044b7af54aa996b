import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { planRetention, RetentionQuery } from "../src/insights/planners/retention.js"
import type { SelectLike } from "../src/zedql/ast.js"
import { withValues } from "../src/zedql/build.js"
import { formatSelect } from "../src/zedql/format.js"
import { CONTEXT, compilePlan } from "./insightsPlanning.js"

// The retention planner without a database: the nodes it takes, that its plans compile for every
// period and type, and how rows become the table. What the statements compute is checked against
// the demo data, in New York across a change of the clocks, in @zed/postgres's insightsRetention.

const decode = Schema.decodeUnknownEither(RetentionQuery)
const node = (filter: Partial<RetentionQuery["retentionFilter"]>, dateTo?: string): RetentionQuery => ({
  kind: "RetentionQuery",
  ...(dateTo ? { dateRange: { date_to: dateTo } } : {}),
  retentionFilter: { targetEntity: { id: "$pageview", type: "events" }, ...filter }
})

describe("RetentionQuery", () => {
  it("takes PostHog's node and refuses unknown periods and actions without an id", () => {
    const posthog = {
      kind: "RetentionQuery",
      dateRange: { date_from: "-7d", date_to: null },
      retentionFilter: {
        retentionType: "retention_first_time",
        period: "Week",
        totalIntervals: 8,
        retentionReference: "total",
        targetEntity: { id: "signed_up", type: "events", name: "signed_up", order: 0 },
        returningEntity: { id: "$pageview", type: "events", name: "$pageview" }
      }
    }
    expect(Either.isRight(decode(posthog))).toBe(true)
    expect(Either.isLeft(decode({ ...posthog, retentionFilter: { period: "Fortnight" } }))).toBe(true)
    // An action by its id; an action without one is refused.
    expect(Either.isRight(decode({ ...posthog, retentionFilter: { targetEntity: { id: 3, type: "actions" } } }))).toBe(
      true
    )
    expect(
      Either.isLeft(decode({ ...posthog, retentionFilter: { targetEntity: { id: "signed_up", type: "actions" } } }))
    ).toBe(true)
  })
})

describe("the retention plan", () => {
  it.each(["Hour", "Day", "Week", "Month"] as const)(
    "compiles by %s, first time and recurring, with filters",
    async (period) => {
      for (const retentionType of ["retention_first_time", "retention_recurring"] as const) {
        const plan = Effect.runSync(
          planRetention(
            {
              ...node({
                period,
                retentionType,
                returningEntity: { id: "it's", type: "events", properties: [{ key: "plan", value: "pro" }] }
              }),
              properties: [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }]
            },
            CONTEXT
          )
        )
        expect(plan.queries).toHaveLength(2)
        expect(plan.zedql).toBe(
          plan.queries.map((q) => formatSelect(withValues(q as SelectLike, plan.values ?? {}))).join(";\n")
        )
        const compiled = await compilePlan(plan)
        expect(Either.isRight(compiled), JSON.stringify(compiled)).toBe(true)
      }
    }
  )

  it("ends at the period of date_to, or of the context's now", () => {
    expect(Effect.runSync(planRetention(node({}, "2026-01-10"), CONTEXT)).zedql).toContain(
      "toDate(toDateTime('2026-01-10'))"
    )
    expect(Effect.runSync(planRetention(node({}), CONTEXT)).zedql).toContain(
      "toDate(toDateTime('2026-03-20T15:30:00.000Z'))"
    )
  })

  it("shapes one row per cohort, each with an interval less than the one before, missing counts as zero", () => {
    const plan = Effect.runSync(planRetention(node({ period: "Week", totalIntervals: 3 }), CONTEXT))
    const starts = [
      [0, "2026-03-01T00:00:00.000000-05:00"],
      [1, "2026-03-08T00:00:00.000000-05:00"],
      [2, "2026-03-15T00:00:00.000000-04:00"]
    ]
    const counts = [
      [0, 0, 10],
      [0, 2, 3],
      [1, 0, 7],
      [1, 1, 2]
    ]
    expect(plan.shape([starts, counts])).toEqual([
      { date: "2026-03-01T00:00:00-05:00", label: "Week 0", values: [{ count: 10 }, { count: 0 }, { count: 3 }] },
      { date: "2026-03-08T00:00:00-05:00", label: "Week 1", values: [{ count: 7 }, { count: 2 }] },
      { date: "2026-03-15T00:00:00-04:00", label: "Week 2", values: [{ count: 0 }] }
    ])
  })

  it("writes UTC dates with Z, as PostHog does", () => {
    const plan = Effect.runSync(
      planRetention(node({ period: "Day", totalIntervals: 1 }), { ...CONTEXT, timezone: "UTC" })
    )
    expect(plan.shape([[[0, "2026-03-20T00:00:00.000000+00:00"]], []])).toEqual([
      { date: "2026-03-20T00:00:00Z", label: "Day 0", values: [{ count: 0 }] }
    ])
  })
})
