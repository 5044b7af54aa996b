import { SqlClient } from "@effect/sql"
import { Transactor } from "@zed/core/storage"
import { Effect, Layer } from "effect"
import { orStorageError, transactionFailures } from "./sqlErrors.js"

/**
 * Transactions on the SQL client; `exclusive` ones also hold a transaction-scoped advisory lock, so
 * instances sharing a database take turns. `concurrency` is what the client's session pool allows.
 */
export const TransactorSql = (concurrency: number, soleWriter: boolean) =>
  Layer.effect(
    Transactor,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      return Transactor.of({
        concurrency,
        soleWriter,
        transaction: (effect) => transactionFailures(orStorageError(sql.withTransaction(effect))),
        exclusive: (lock) => (effect) =>
          transactionFailures(
            orStorageError(
              sql.withTransaction(Effect.zipRight(sql`SELECT pg_advisory_xact_lock(hashtext(${lock}))`, effect))
            )
          )
      })
    })
  )
