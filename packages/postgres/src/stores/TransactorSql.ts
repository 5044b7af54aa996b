import { SqlClient } from "@effect/sql"
import { Transactor } from "@zed/core"
import { Effect, Layer } from "effect"
import { orStorageError } from "./sqlErrors.js"

/** A transaction holding a transaction-scoped advisory lock, so instances sharing a database take turns. */
export const TransactorSql = Layer.effect(
  Transactor,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return Transactor.of({
      exclusive: (lock) => (effect) =>
        orStorageError(sql.withTransaction(
          Effect.zipRight(sql`SELECT pg_advisory_xact_lock(hashtext(${lock}))`, effect)
        ))
    })
  })
)
