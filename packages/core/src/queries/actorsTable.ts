import { Effect } from "effect"
import type { Project } from "../domain/models.js"
import { QueryFailed } from "../services/QueryExecutor.js"
import { refreshMode } from "./cachePolicy.js"
import { planActorsQuery } from "./actorsQuery.js"
import { type ActorsRequest, actorsQueryOf } from "./request.js"
import { QueryRunner } from "./runner.js"

// A persons list sent to the query API, planned and run through the runner like an insight.

export const answerActors = (project: Project, request: ActorsRequest) =>
  Effect.gen(function* () {
    const node = actorsQueryOf(request.query)
    // Planned now: an insight point that cannot be planned is answered at once.
    const plan = yield* planActorsQuery(node, { timezone: project.timezone, now: new Date(), weekStartDay: 0 }).pipe(
      Effect.mapError((error) => new QueryFailed({ message: `Invalid ${request.query.kind}: ${error.message}` }))
    )
    const runner = yield* QueryRunner
    return yield* runner.runPlan(project, {
      kind: "ActorsQuery",
      query: node,
      plan: Effect.succeed(plan),
      refresh: refreshMode(request.refresh, request.async),
      client_query_id: request.client_query_id
    })
  })
