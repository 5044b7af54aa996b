import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { planRetention } from "../src/insights/planners/retention.js"
import type { SelectLike } from "../src/zedql/ast.js"
import { compileZedQLTree } from "../src/zedql/compile.js"
import { CONTEXT } from "./insightsPlanning.js"

// Planned statements are trees with `{now}` a placeholder: nothing is left to parse when they run,
// and a plan made a moment later is the same statements with another value.

describe("planned statements", () => {
  const node = { kind: "RetentionQuery", retentionFilter: { period: "Day", totalIntervals: 3 } }

  it("are trees, the same from one moment to the next, now a value of the plan", async () => {
    const first = Effect.runSync(planRetention(node, CONTEXT))
    const later = Effect.runSync(planRetention(node, { ...CONTEXT, now: new Date(CONTEXT.now.getTime() + 1234) }))
    expect(first.queries.every((q) => typeof q !== "string")).toBe(true)
    expect(later.queries).toEqual(first.queries)
    expect(later.values).toEqual({ now: "2026-03-20T15:30:01.234Z" })
    const compiled = await Effect.runPromise(compileZedQLTree(later.queries[1] as SelectLike, { projectId: 1, timezone: "UTC", values: later.values }))
    expect(compiled.params).toContain("2026-03-20T15:30:01.234Z")
    expect(compiled.sql).not.toContain("2026-03-20T15:30:01.234Z")
  })
})
