import type { Project } from "../domain/models.js"
import { type EventsQueryNode, planEventsQuery } from "./eventsQuery.js"
import { answerPlanned } from "./planned.js"
import { type TableRequest, tableSourceOf } from "./request.js"

// An events table sent to the query API.

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

export const answerEventsTable = (project: Project, request: TableRequest) => {
  const node = overridden(tableSourceOf(request.query), request.filters_override)
  // A table of recent events goes stale as an insight by the minute does.
  return answerPlanned(project, request, { kind: "EventsQuery", node, plan: planEventsQuery(node), interval: "minute" })
}
