import { SqlClient } from "@effect/sql"
import { UsageStore } from "@zed/core/storage"
import { Effect, Layer } from "effect"
import { orStorageError } from "./sqlErrors.js"

export const UsageStoreSql = Layer.effect(
  UsageStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return UsageStore.of({
      addFlagEvaluations: (organizationId, period, count) =>
        orStorageError(sql<{ total: number }>`
          INSERT INTO organization_usage (organization_id, period, flag_evaluations) VALUES (${organizationId}, ${period}, ${count})
          ON CONFLICT (organization_id, period) DO UPDATE
            SET flag_evaluations = organization_usage.flag_evaluations + excluded.flag_evaluations
          RETURNING flag_evaluations AS total`).pipe(Effect.map((rows) => Number(rows[0]!.total)))
    })
  })
)
