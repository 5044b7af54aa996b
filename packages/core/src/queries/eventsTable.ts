import { Effect } from "effect"
import type { Project } from "../domain/models.js"
import { refreshMode } from "./cachePolicy.js"
import { type EventsQueryNode, planEventsQuery } from "./eventsQuery.js"
import { type TableRequest, tableSourceOf } from "./request.js"
import { QueryRunner } from "./runner.js"

// An events table sent to the query API, planned and run through the runner like an insight.

/**
 * `filters_override` on an EventsQuery: the date range replaces `after` and `before`, the
 * properties are added to its own.
 */
const overridden = (node: EventsQueryNode, override: TableRequest["filters_override"]): EventsQueryNode =>
  override == null
    ? node
    : {
        ...node,
        ...(override.date_from != null ? { after: override.date_from } : {}),
        ...(override.date_to != null ? { before: override.date_to } : {}),
        ...(override.properties?.length ? { properties: [...(node.properties ?? []), ...override.properties] } : {})
      }

export const answerEventsTable = (project: Project, request: TableRequest) =>
  Effect.gen(function* () {
    const node = overridden(tableSourceOf(request.query), request.filters_override)
    // Planned now: a mistake in an expression is answered at once, not from a background run.
    const plan = yield* planEventsQuery(node)
    const runner = yield* QueryRunner
    return yield* runner.runPlan(project, {
      kind: "EventsQuery",
      query: node,
      plan: Effect.succeed(plan),
      // A table of recent events goes stale as an insight by the minute does.
      interval: "minute",
      refresh: refreshMode(request.refresh, request.async),
      client_query_id: request.client_query_id
    })
  })
