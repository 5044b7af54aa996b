import { SqlClient } from "@effect/sql"
import { ProbeFailed, type ProbeFailureReason, type StorageError, StorageProbe } from "@zed/core/storage"
import { Effect, Layer } from "effect"
import { orStorageError } from "./sqlErrors.js"

const reasonOf = (error: StorageError): ProbeFailureReason => {
  const code = (error.cause as { code?: unknown } | undefined)?.code
  // read_only_sql_transaction: a standby, or default_transaction_read_only
  if (code === "25006") return "read_only"
  if (code === "53100" || /No space left on device/i.test(error.message)) return "full"
  return error.unavailable === true ? "unreachable" : "failed"
}

export const StorageProbeSql = Layer.effect(
  StorageProbe,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return StorageProbe.of({
      probe: orStorageError(sql`
        INSERT INTO readiness_probe (id, checked_at) VALUES (1, now())
        ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at
        RETURNING checked_at`).pipe(
        Effect.mapError(
          (error) => new ProbeFailed({ reason: reasonOf(error), message: error.message, cause: error.cause })
        ),
        Effect.filterOrFail(
          (rows) => rows.length === 1,
          () => new ProbeFailed({ reason: "failed", message: "the probe's row was not read back" })
        ),
        Effect.asVoid
      )
    })
  })
)
