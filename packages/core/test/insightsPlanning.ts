import { Effect } from "effect"
import type { InsightContext, InsightPlan } from "../src/insights/plan.js"
import type { SelectLike } from "../src/zedql/ast.js"
import { compileZedQLTree } from "../src/zedql/compile.js"

// Helpers for the insight planners' unit tests: a context, and compiling every statement of a plan.

export const CONTEXT: InsightContext = {
  timezone: "America/New_York",
  now: new Date("2026-03-20T15:30:00.000Z"),
  weekStartDay: 0
}

/** A planned statement compiled for a project with the plan's values. */
export const compileStatement = (query: SelectLike, values: InsightPlan["values"], timezone = CONTEXT.timezone) =>
  compileZedQLTree(query, { projectId: 1, timezone, values })

/** Each statement of the plan compiled for a project, or the first refusal. */
export const compilePlan = (plan: InsightPlan, timezone = CONTEXT.timezone) =>
  Effect.runPromise(
    Effect.either(Effect.forEach(plan.queries, (query) => compileStatement(query, plan.values, timezone)))
  )
