import { Effect, Schema } from "effect"
import type { Project } from "../domain/models.js"
import { FunctionLogger } from "../functions/logs.js"
import {
  FunctionLogStore,
  LOG_SOURCES,
  LOG_TYPES,
  type LogEntry,
  type LogOwner,
  type LogType
} from "../services/FunctionLogStore.js"
import type { StorageError } from "../services/StorageError.js"
import type { Scope } from "../domain/scopes.js"
import type { ApiError } from "./errors.js"
import { ValidationError } from "../schema/ValidationError.js"
import { PageParams, Paginated, paginated, toPage } from "../domain/pagination.js"
import { environmentRoute } from "./route.js"
import { Instant } from "../schema/fields.js"

// The log pages of plugin configs and zed functions: newest first, filtered by type (repeatable or
// comma-separated, any of them), a part of the message, and exclusive time bounds.

const invalid = (detail: string, attr: string) => new ValidationError({ code: "invalid_input", detail, attr })

const LogFields = {
  id: Schema.UUID,
  team_id: Schema.Int,
  timestamp: Schema.Date,
  source: Schema.Literal(...LOG_SOURCES),
  type: Schema.Literal(...LOG_TYPES),
  message: Schema.String,
  instance_id: Schema.UUID
}

const LogQuery = PageParams.pipe(
  Schema.extend(
    Schema.Struct({
      type_filter: Schema.optional(
        Schema.String.annotations({
          description: `${LOG_TYPES.join(", ")}: repeat it, or separate with commas, for any of several.`
        })
      ),
      search: Schema.optional(Schema.String.annotations({ description: "Part of the message, any case." })),
      after: Schema.optional(Instant.annotations({ description: "Entries after this instant (ISO 8601), exclusive." })),
      before: Schema.optional(Instant.annotations({ description: "Entries before this instant, exclusive." }))
    })
  )
)

const isLogType = Schema.is(Schema.Literal(...LOG_TYPES))

const typesOf = (url: URL) =>
  Effect.gen(function* () {
    const types = url.searchParams
      .getAll("type_filter")
      .flatMap((v) => v.split(","))
      .map((v) => v.trim().toUpperCase())
      .filter((v) => v !== "")
    const unknown = types.find((t) => !isLogType(t))
    if (unknown !== undefined)
      return yield* invalid(`"${unknown}" is not a log type: ${LOG_TYPES.join(", ")}.`, "type_filter")
    return types as Array<LogType>
  })

interface LogRouteSpec<P> {
  readonly path: string
  readonly tag: string
  readonly summary: string
  readonly scope: Scope
  readonly params: Schema.Schema<P, any, never>
  /** The log's owner, once it is known to exist in the project. */
  readonly owner: (input: {
    readonly params: P
    readonly project: Project
  }) => Effect.Effect<LogOwner, ApiError | StorageError, any>
  /** The fields naming the owner in each entry. */
  readonly fields: Schema.Struct.Fields
  readonly ownerFields: (entry: LogEntry) => Record<string, unknown>
  readonly identifier: string
}

export const logRoute = <P>(spec: LogRouteSpec<P>) => {
  const Entry = Schema.Struct({ ...LogFields, ...spec.fields }).annotations({ identifier: spec.identifier })
  return environmentRoute({
    method: "GET",
    path: spec.path,
    tag: spec.tag,
    summary: spec.summary,
    description:
      "Newest first. `type_filter` keeps any of the types given (unknown types are refused), `search` a part of the message, `after`/`before` exclusive bounds.",
    scope: spec.scope,
    params: spec.params,
    query: LogQuery,
    response: Paginated(
      Entry as unknown as Schema.Schema<Record<string, unknown>, any, never>,
      `Paginated${spec.identifier}List`
    ),
    handler: ({ params, project, query, request }) =>
      Effect.gen(function* () {
        const owner = yield* spec.owner({ params, project })
        const page = toPage(query)
        // What was logged a moment ago is readable now.
        yield* (yield* FunctionLogger).flush
        const { count, results } = yield* (yield* FunctionLogStore).list(project.id, owner, {
          types: yield* typesOf(request.url),
          search: query.search,
          after: query.after,
          before: query.before,
          ...page
        })
        return paginated(
          request.url,
          page,
          count,
          results.map(
            (entry): Record<string, unknown> => ({
              id: entry.id,
              team_id: entry.project_id,
              timestamp: entry.timestamp,
              source: entry.source,
              type: entry.type,
              message: entry.message,
              instance_id: entry.instance_id,
              ...spec.ownerFields(entry)
            })
          )
        )
      })
  })
}
