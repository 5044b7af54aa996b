import { Effect } from "effect"
import type { Project } from "../domain/models.js"
import type { InsightPlan } from "../insights/plan.js"
import { refreshMode } from "./cachePolicy.js"
import type { QueryRequest } from "./request.js"
import { QueryRunner } from "./runner.js"

// Kinds other than ZedQL and the insights (events tables, persons lists, web analytics) are
// planned when asked, so that a mistake is answered at once rather than from a background run,
// then answered through the runner as an insight's plan is: same cache, refresh modes and runs.

export const answerPlanned = <E>(
  project: Project,
  request: QueryRequest,
  planned: {
    readonly kind: string
    /** The node as the result depends on it: it names the result in the cache. */
    readonly node: Readonly<Record<string, unknown>>
    readonly plan: Effect.Effect<InsightPlan, E>
    /** Sets how soon a result goes stale, as an insight's interval does. */
    readonly interval?: string
  }
) =>
  Effect.gen(function* () {
    const plan = yield* planned.plan
    const runner = yield* QueryRunner
    return yield* runner.runPlan(project, {
      kind: planned.kind,
      query: planned.node,
      plan: Effect.succeed(plan),
      interval: planned.interval,
      refresh: refreshMode(request.refresh, request.async),
      client_query_id: request.client_query_id
    })
  })
