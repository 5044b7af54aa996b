import { Effect } from "effect"
import type { QueryAnswer, QueryRunError, QueryState } from "../queries/runner.js"
import type { StorageError } from "../services/StorageError.js"
import { QueryInvalid, TooManyRequests } from "./errors.js"
import { Reply } from "./reply.js"

// How the query runner's answers and failures reach HTTP, for the query API and every route that
// runs queries (insights, recordings, surveys).

const STATUS: Record<QueryState, number> = { complete: 200, running: 202, invalid: 400, failed: 500 }

/** An answer as PostHog's query API gives it: 202 while the query runs in the background. */
export const answerReply = (answer: QueryAnswer) => Reply.json(STATUS[answer.state], answer.body)

/** The code of a query over one of the grammar's limits (see `GrammarLimits`). */
const LIMIT_CODES = {
  length: "query_too_long",
  depth: "query_too_deep",
  nodes: "query_too_large",
  time: "query_too_complex"
} as const

/** Query failures the caller can fix become 400s with the message (and where it applies, the position). */
export const queryFailure = (
  error: QueryRunError
): Effect.Effect<never, QueryInvalid | TooManyRequests | StorageError> => {
  switch (error._tag) {
    case "ZedQLSyntaxError":
      return Effect.fail(
        new QueryInvalid({
          code: "zedql_syntax_error",
          detail: error.message,
          start: error.span?.start ?? null,
          end: error.span?.end ?? null
        })
      )
    case "ZedQLQueryError":
      return Effect.fail(
        new QueryInvalid({
          code: "zedql_query_error",
          detail: error.message,
          start: error.span?.start ?? null,
          end: error.span?.end ?? null
        })
      )
    case "GrammarRefused":
      return Effect.fail(
        error.limit === "busy"
          ? new TooManyRequests({ detail: error.message, retryAfter: 1 })
          : new QueryInvalid({ code: LIMIT_CODES[error.limit], detail: error.message, start: null, end: null })
      )
    case "QueryLimitReached":
      return Effect.fail(new TooManyRequests({ detail: error.message, retryAfter: 1 }))
    case "QueryFailed":
      return Effect.fail(new QueryInvalid({ code: "zedql_error", detail: error.message, start: null, end: null }))
    case "QueryTimeout":
      return Effect.fail(
        new QueryInvalid({
          code: "query_timeout",
          detail: `Query took longer than ${Math.round(error.timeoutMs / 1000)} seconds and was stopped: narrow it (a date range, a LIMIT) or run it with refresh=async.`,
          start: null,
          end: null
        })
      )
    case "QueryCancelled":
      return Effect.fail(
        new QueryInvalid({ code: "query_cancelled", detail: "Query was cancelled.", start: null, end: null })
      )
    case "StorageError":
      return Effect.fail(error)
  }
}
