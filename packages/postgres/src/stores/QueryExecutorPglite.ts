import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { postgres } from "@zed/core/domain"
import { type ExecuteRequest, QueryCancelled, QueryExecutor, QueryTimeout } from "@zed/core/storage"
import { Deferred, Effect, Layer } from "effect"
import { PgliteThread, type Results } from "../pgliteThread.js"
import { columnsOf, marker, markerOf, queryFailure } from "./QueryExecutorSql.js"

/**
 * ZedQL on PGlite: in a read-only transaction on the session, in the request's time zone. PGlite has
 * no statement timeout and no way to cancel, so a statement is stopped (past its time limit, by
 * `cancel`, or when its fiber is interrupted) by restarting the PGlite thread. Only one process can
 * open the data directory, so the running execution is known here.
 */
export const QueryExecutorPglite = Layer.effect(
  QueryExecutor,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const thread = yield* PgliteThread
    // The execution whose statement is on the thread: the session runs one at a time.
    let running: { readonly lead: string; readonly cancelled: Deferred.Deferred<never, QueryCancelled> } | undefined

    const execute = (request: ExecuteRequest) =>
      Effect.gen(function* () {
        const lead = yield* markerOf(request.executionId)
        const cancelled = yield* Deferred.make<never, QueryCancelled>()
        const result = yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* sql.unsafe("SET TRANSACTION READ ONLY")
            yield* sql.unsafe("SELECT set_config('TimeZone', $1, true)", [request.timezone])
            const [connection] = yield* Effect.orDie(
              Effect.flatten(Effect.serviceOption(SqlClient.TransactionConnection))
            )
            running = { lead, cancelled }
            return yield* (
              connection.executeRaw(lead + request.sql, request.params) as Effect.Effect<Results, SqlError>
            ).pipe(
              // However it is stopped (past its time limit, cancelled, interrupted), the thread goes and the statement with it.
              Effect.onInterrupt(() => Effect.sync(thread.restart)),
              Effect.timeoutFail({
                duration: request.timeoutMs,
                onTimeout: () => new QueryTimeout({ timeoutMs: request.timeoutMs })
              }),
              Effect.raceFirst(Deferred.await(cancelled)),
              Effect.ensuring(
                Effect.sync(() => {
                  running = undefined
                })
              )
            )
          })
        )
        return { columns: columnsOf(result.fields), rows: result.rows }
      }).pipe(Effect.catchTag("SqlError", (error) => Effect.fail(queryFailure(error.cause))))

    return QueryExecutor.of({
      dialect: postgres,
      execute,
      cancel: (executionId) =>
        Effect.suspend(() => {
          const execution = running
          return execution !== undefined && execution.lead === marker(executionId)
            ? Deferred.fail(execution.cancelled, new QueryCancelled())
            : Effect.succeed(false)
        })
    })
  })
)
