import * as Reactivity from "@effect/experimental/Reactivity"
import * as Client from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import { makeCompiler } from "@effect/sql-pg/PgClient"
import { Effect, Layer, Stream } from "effect"
import { PgliteThread, type Results, type Thread } from "./pgliteThread.js"

type Guard = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

/**
 * An `@effect/sql` client over PGlite on its own thread, with the same SQL compiler as
 * `@effect/sql-pg`, so one set of queries serves the embedded store and a PostgreSQL server.
 *
 * PGlite is a single session: while a transaction is open, no other statement may run or it would
 * join that transaction. A one-permit semaphore gives the transaction the session to itself; its
 * own statements go through unguarded. A transaction is bound to the thread it began on: once the
 * thread is restarted its BEGIN and writes are gone, and its later statements, COMMIT included,
 * fail rather than run in autocommit on the new thread.
 *
 * `executeRaw` answers PGlite's result with rows as arrays, so columns keep their order and
 * duplicate names, with each field's type OID.
 */
export const make = (thread: Thread) =>
  Effect.gen(function* () {
    const session = yield* Effect.makeSemaphore(1)

    const attempt = <A>(run: () => Promise<A>) =>
      Effect.tryPromise({ try: run, catch: (cause) => new SqlError({ cause, message: "Failed to execute statement" }) })

    const connection = (guard: Guard, generation?: number): Connection => {
      const query = (sql: string, params: ReadonlyArray<unknown>, rowMode: "object" | "array") =>
        guard(attempt(() => thread.query(sql, params, rowMode, generation)))
      const execute: Connection["execute"] = (sql, params, transformRows) =>
        Effect.map(query(sql, params, "object"), (result) => (transformRows ? transformRows(result.rows) : result.rows))
      // Without parameters a script may hold several statements (migrations): run it as one.
      const script = (sql: string) =>
        guard(attempt(() => thread.exec(sql, generation))).pipe(
          Effect.map((results): Array<any> => results.at(-1)?.rows ?? [])
        )
      return {
        execute,
        executeRaw: (sql, params) => query(sql, params, "array") as Effect.Effect<Results, SqlError>,
        executeValues: (sql, params) => Effect.map(query(sql, params, "array"), (result) => result.rows),
        executeUnprepared: (sql, params, transformRows) => {
          if (params.length > 0) return execute(sql, params, transformRows)
          const ran = Effect.map(script(sql), (rows) => (transformRows ? transformRows(rows) : rows))
          // A transaction whose thread was restarted is already rolled back: its ROLLBACK succeeds.
          return generation !== undefined && sql.startsWith("ROLLBACK")
            ? Effect.catchIf(
                ran,
                () => thread.generation() !== generation,
                () => Effect.succeed([])
              )
            : ran
        },
        executeStream: (sql, params, transformRows) => Stream.fromIterableEffect(execute(sql, params, transformRows))
      }
    }

    return yield* Client.make({
      acquirer: Effect.succeed(connection(session.withPermits(1))),
      transactionAcquirer: Effect.acquireRelease(session.take(1), () => session.release(1)).pipe(
        Effect.andThen(() => connection((effect) => effect, thread.generation()))
      ),
      compiler: makeCompiler(),
      spanAttributes: [["db.system.name", "postgresql"]]
    })
  })

/** The SqlClient service over the PGlite thread. */
export const layer: Layer.Layer<Client.SqlClient, never, PgliteThread> = Layer.effect(
  Client.SqlClient,
  Effect.flatMap(PgliteThread, make)
).pipe(Layer.provide(Reactivity.layer))
