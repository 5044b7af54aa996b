import { Effect, Option, Schema } from "effect"
import { InsightCompute } from "../../insights/compute.js"
import { answerEventsTable } from "../../queries/eventsTable.js"
import { answerActors } from "../../queries/actorsTable.js"
import { isActors, isInsight, isTable, isZedQL, QueryRequest } from "../../queries/request.js"
import { answerWebOverview, answerWebStatsTable } from "../../queries/webAnalytics.js"
import { answerExperimentQuery } from "../../queries/experimentQuery.js"
import type { ExperimentStore } from "../../services/ExperimentStore.js"
import type { FlagStore } from "../../services/FlagStore.js"
import type { HoldoutStore } from "../../services/HoldoutStore.js"
import { type QueryAnswer, type QueryRunError, QueryRunner } from "../../queries/runner.js"
import { check } from "../../schema/fields.js"
import { ValidationError } from "../../schema/ValidationError.js"
import { NotFound, NotImplemented } from "../errors.js"
import { answerReply, queryFailure } from "../queryReplies.js"
import { Reply } from "../reply.js"
import { environmentRoute } from "../route.js"

// The query API: ZedQL, the insight kinds, events tables, persons lists and web analytics, synchronously or in the background, through the result cache.

const QueryId = Schema.Struct({ id: Schema.String })

const create = environmentRoute({
  method: "POST",
  path: "/query",
  tag: "query",
  summary: "Run a query",
  description:
    'Runs `{"query": {"kind": "ZedQLQuery", "query": "SELECT …"}}`, or an insight kind (`TrendsQuery`, `FunnelsQuery`, `RetentionQuery`, `StickinessQuery`, `LifecycleQuery`, `PathsQuery`, bare or in an `InsightVizNode`), an events table (`EventsQuery`, bare or in a `DataTableNode`), a persons list (`ActorsQuery`, `InsightActorsQuery`), a `WebOverviewQuery`, a `WebStatsTableQuery` or an `ExperimentQuery` (one metric of an experiment, with its statistics), under the refresh mode asked for (default `blocking`). ' +
    "Answers 200 with the results, or 202 with `query_status` while a background run goes on (poll `GET …/query/:id`).",
  scope: "query:read",
  body: QueryRequest,
  response: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({ identifier: "QueryResponse" }),
  handler: ({ body, project }) => {
    const { query } = body
    const answer: Effect.Effect<
      QueryAnswer,
      QueryRunError,
      QueryRunner | InsightCompute | ExperimentStore | FlagStore | HoldoutStore
    > = isZedQL(query)
      ? Effect.flatMap(QueryRunner, (runner) => runner.run(project, { ...body, query }))
      : isInsight(query)
        ? Effect.flatMap(InsightCompute, (insights) => insights.answer(project, { ...body, query }))
        : isActors(query)
          ? answerActors(project, { ...body, query })
          : isTable(query)
            ? answerEventsTable(project, { ...body, query })
            : query.kind === "WebOverviewQuery"
              ? answerWebOverview(project, { ...body, query })
              : query.kind === "ExperimentQuery"
                ? answerExperimentQuery(project, { ...body, query })
                : answerWebStatsTable(project, { ...body, query })
    return answer.pipe(
      Effect.catchAll(queryFailure),
      Effect.map((answer) => answerReply(answer))
    )
  }
})

const retrieve = environmentRoute({
  method: "GET",
  path: "/query/:id",
  tag: "query",
  summary: "Status of a background query",
  description:
    "202 while it runs, 200 once complete (`results` holds the response), 400 if it failed on the query's account (`error_message`), 500 otherwise; 404 when unknown or expired.",
  scope: "query:read",
  params: QueryId,
  handler: ({ params, project }) =>
    Effect.flatMap(QueryRunner, (runner) => runner.status(project, params.id)).pipe(
      Effect.flatMap(
        Option.match({
          onNone: () => Effect.fail(new NotFound({ detail: "Query not found." })),
          onSome: (answer) => Effect.succeed(answerReply(answer))
        })
      )
    )
})

const cancel = environmentRoute({
  method: "DELETE",
  path: "/query/:id",
  tag: "query",
  summary: "Cancel a background query",
  description: "Stops the statement computing it (the database stops working on it) and forgets the query. 204.",
  scope: "query:read",
  params: QueryId,
  handler: ({ params, project }) =>
    Effect.flatMap(QueryRunner, (runner) => runner.cancel(project, params.id)).pipe(
      Effect.flatMap((found) =>
        found ? Effect.succeed(Reply.empty(204)) : Effect.fail(new NotFound({ detail: "Query not found." }))
      )
    )
})

const checkAuthForAsync = environmentRoute({
  method: "POST",
  path: "/query/check_auth_for_async",
  tag: "query",
  summary: "Check that the caller may run background queries",
  description:
    "A pre-flight check before an async query: 200 with no body when the key holds query:read for the project.",
  scope: "query:read",
  handler: () => Effect.succeed(Reply.empty(200))
})

const Prompt = Schema.String.pipe(
  check((p: string) => p.trim() !== "", "required", "A prompt is required."),
  check((p: string) => p.length <= 400, "too_long", "The prompt is longer than 400 characters.")
)

const draftSql = environmentRoute({
  method: "GET",
  path: "/query/draft_sql",
  tag: "query",
  summary: "Draft ZedQL from a prompt (text-to-SQL)",
  description: "Needs a language model, which this install does not have: a valid request answers 501.",
  scope: "query:read",
  query: Schema.Struct({ prompt: Schema.optional(Prompt), current_query: Schema.optional(Schema.String) }),
  handler: ({ query }) =>
    query.prompt === undefined
      ? Effect.fail(new ValidationError({ code: "required", detail: "A prompt is required.", attr: "prompt" }))
      : Effect.fail(
          new NotImplemented({
            detail: "Drafting SQL from a prompt needs a language model; none is configured in this install."
          })
        )
})

export const queryRoutes = [create, checkAuthForAsync, draftSql, retrieve, cancel]
