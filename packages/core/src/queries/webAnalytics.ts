import { Effect } from "effect"
import type { Project } from "../domain/models.js"
import { QueryFailed } from "../services/QueryExecutor.js"
import { answerPlanned } from "./planned.js"
import type { QueryRequest } from "./request.js"
import { planWebOverview, type WebOverviewQueryNode } from "./webOverview.js"
import { planWebStatsTable, type WebStatsTableQueryNode } from "./webStatsTable.js"

// The web analytics kinds sent to the query API.

/** A web overview; its figures go stale as a day-interval insight's. */
export const answerWebOverview = (project: Project, request: QueryRequest & { readonly query: WebOverviewQueryNode }) =>
  answerPlanned(project, request, {
    kind: "WebOverviewQuery",
    node: request.query,
    plan: planWebOverview(request.query, { timezone: project.timezone, now: new Date(), weekStartDay: 0 }).pipe(
      Effect.mapError((error) => new QueryFailed({ message: `Invalid WebOverviewQuery: ${error.message}` }))
    )
  })

/** A web stats table; it goes stale as a day-interval insight does. */
export const answerWebStatsTable = (
  project: Project,
  request: QueryRequest & { readonly query: WebStatsTableQueryNode }
) =>
  answerPlanned(project, request, {
    kind: "WebStatsTableQuery",
    node: request.query,
    plan: planWebStatsTable(request.query, { timezone: project.timezone, now: new Date(), weekStartDay: 0 }).pipe(
      Effect.mapError((error) => new QueryFailed({ message: `Invalid WebStatsTableQuery: ${error.message}` }))
    )
  })
