import type { PGlite } from "@electric-sql/pglite"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as Client from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import { makeCompiler } from "@effect/sql-pg/PgClient"
import { Effect, Layer, Stream } from "effect"

type Guard = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

/**
 * An `@effect/sql` client over an in-process PGlite, with the same SQL compiler as `@effect/sql-pg`,
 * so one set of queries serves the embedded store and a PostgreSQL server.
 *
 * PGlite is a single session: while a transaction is open, no other statement may run or it would
 * join that transaction. A one-permit semaphore gives the transaction the session to itself; its
 * own statements go through unguarded.
 */
export const make = (db: PGlite) =>
  Effect.gen(function*() {
    const session = yield* Effect.makeSemaphore(1)

    const query = (sql: string, params: ReadonlyArray<unknown>, rowMode: "object" | "array") =>
      Effect.tryPromise({
        try: () => db.query<any>(sql, params as Array<unknown>, { rowMode }),
        catch: (cause) => new SqlError({ cause, message: "Failed to execute statement" })
      })

    const connection = (guard: Guard): Connection => {
      const execute: Connection["execute"] = (sql, params, transformRows) =>
        guard(query(sql, params, "object")).pipe(
          Effect.map((result) => (transformRows ? transformRows(result.rows) : result.rows))
        )
      return {
        execute,
        executeRaw: (sql, params) => guard(query(sql, params, "object")),
        executeValues: (sql, params) => guard(Effect.map(query(sql, params, "array"), (result) => result.rows)),
        // Without parameters a script may hold several statements (migrations): run it as one.
        executeUnprepared: (sql, params, transformRows) =>
          params.length > 0
            ? execute(sql, params, transformRows)
            : guard(Effect.tryPromise({
              try: () => db.exec(sql),
              catch: (cause) => new SqlError({ cause, message: "Failed to execute statement" })
            })).pipe(Effect.map((results) => {
              const rows = (results.at(-1)?.rows ?? []) as Array<any>
              return transformRows ? transformRows(rows) : rows
            })),
        executeStream: (sql, params, transformRows) =>
          Stream.fromIterableEffect(execute(sql, params, transformRows))
      }
    }

    const guarded = connection(session.withPermits(1))
    const owned = connection((effect) => effect)

    return yield* Client.make({
      acquirer: Effect.succeed(guarded),
      transactionAcquirer: Effect.as(Effect.acquireRelease(session.take(1), () => session.release(1)), owned),
      compiler: makeCompiler(),
      spanAttributes: [["db.system.name", "postgresql"]]
    })
  })

/** The SqlClient service for an already-open PGlite. */
export const layer = (db: PGlite): Layer.Layer<Client.SqlClient> =>
  Layer.effect(Client.SqlClient, make(db)).pipe(Layer.provide(Reactivity.layer))
