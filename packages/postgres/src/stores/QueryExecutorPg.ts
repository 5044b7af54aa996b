import { SqlClient } from "@effect/sql"
import { postgres } from "@zed/core/domain"
import { type ExecuteRequest, QueryCancelled, QueryExecutor, QueryTimeout } from "@zed/core/storage"
import { Effect, Layer } from "effect"
import type pg from "pg"
import { columnsOf, marker, markerOf, QUERY_CANCELED, queryFailure, sqlState } from "./QueryExecutorSql.js"
import { orStorageError } from "./sqlErrors.js"

/**
 * ZedQL on a PostgreSQL server: each execution on a pooled connection of its own, in a read-only
 * transaction with the request's time zone and `statement_timeout`, its statement led by a comment
 * naming the execution so that `cancel` finds it in `pg_stat_activity` from any instance.
 */
export const QueryExecutorPg = Layer.effect(
  QueryExecutor,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // As @effect/sql-pg does for its own statements when their fiber is interrupted: a cancel request
    // from another pooled connection. Best effort: the statement timeout ends it in any case.
    const cancelBackend = (pid: number) => Effect.ignore(sql`SELECT pg_cancel_backend(${pid})`)

    const execute = (request: ExecuteRequest) =>
      Effect.gen(function* () {
        const lead = yield* markerOf(request.executionId)
        // @effect/sql-pg's connection carries its pg client: the statement needs pg's array rows and
        // field types, which @effect/sql's Connection does not give.
        // Uninterruptible: @effect/sql-pg would lose a connection the pool hands over after interruption.
        const client = ((yield* orStorageError(Effect.uninterruptible(sql.reserve))) as { readonly pg?: pg.PoolClient })
          .pg
        if (client === undefined)
          return yield* Effect.dieMessage("@effect/sql-pg's connection no longer exposes its pg client")
        // The backend's pid, once known, to stop its statement if this fiber is interrupted.
        let pid: number | undefined
        const run = (text: string, values: ReadonlyArray<unknown> = [], rowMode?: "array") =>
          Effect.async<pg.QueryResult<any>, Error>((resume) => {
            client.query({ text, values: values as Array<unknown>, ...(rowMode && { rowMode }) }, (error, result) =>
              resume(error ? Effect.fail(error) : Effect.succeed(result))
            )
            return pid === undefined ? Effect.void : cancelBackend(pid)
          })

        yield* Effect.acquireRelease(
          Effect.mapError(run("BEGIN READ ONLY"), queryFailure),
          // A connection whose ROLLBACK failed is in no state to go back to the pool: closed, it is dropped.
          () => Effect.catchAll(run("ROLLBACK"), () => Effect.promise(() => client.end().catch(() => {})))
        )
        const settings = yield* Effect.mapError(
          run(
            "SELECT pg_backend_pid() AS pid, set_config('TimeZone', $1, true), set_config('statement_timeout', $2, true)",
            [
              request.timezone,
              // 0 would mean no limit at all.
              String(Math.max(1, Math.ceil(request.timeoutMs)))
            ]
          ),
          queryFailure
        )
        pid = settings.rows[0].pid
        const started = performance.now()
        const result = yield* Effect.mapError(run(lead + request.sql, request.params, "array"), (error) =>
          sqlState(error) !== QUERY_CANCELED
            ? queryFailure(error)
            : // The server's timeout counts from when the statement began there, after it was sent: a
              // stop short of the time limit was a cancel, from this instance or another.
              performance.now() - started >= request.timeoutMs
              ? new QueryTimeout({ timeoutMs: request.timeoutMs })
              : new QueryCancelled()
        )
        return { columns: columnsOf(result.fields), rows: result.rows }
      }).pipe(Effect.scoped)

    return QueryExecutor.of({
      dialect: postgres,
      execute,
      cancel: (executionId) => {
        const lead = marker(executionId)
        if (lead === undefined) return Effect.succeed(false)
        // The marker is a uuid's: compared as a prefix, it matches that execution's statement only.
        return orStorageError(sql<{ readonly cancelled: boolean }>`
          SELECT pg_cancel_backend(pid) AS cancelled FROM pg_stat_activity
          WHERE datname = current_database() AND state = 'active' AND starts_with(query, ${lead})`).pipe(
          Effect.map((rows) => rows.some((row) => row.cancelled))
        )
      }
    })
  })
)
