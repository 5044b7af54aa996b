import { Effect } from "effect"
import type { Project } from "../domain/models.js"
import { QueryFailed } from "../services/QueryExecutor.js"
import { planActorsQuery } from "./actorsQuery.js"
import { answerPlanned } from "./planned.js"
import { type ActorsRequest, actorsQueryOf } from "./request.js"

// A persons list sent to the query API.

export const answerActors = (project: Project, request: ActorsRequest) => {
  const node = actorsQueryOf(request.query)
  const plan = planActorsQuery(node, { timezone: project.timezone, now: new Date(), weekStartDay: 0 }).pipe(
    Effect.mapError((error) => new QueryFailed({ message: `Invalid ${request.query.kind}: ${error.message}` }))
  )
  return answerPlanned(project, request, { kind: "ActorsQuery", node, plan })
}
