import { SqlClient } from "@effect/sql"
import { FunctionMetricStore, type MetricCount } from "@zed/core/storage"
import { Effect, Layer } from "effect"
import { orStorageError } from "./sqlErrors.js"

export const FunctionMetricStoreSql = Layer.effect(
  FunctionMetricStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return FunctionMetricStore.of({
      // One statement; the counts given are one per key, as ON CONFLICT needs.
      add: (counts) =>
        counts.length === 0
          ? Effect.void
          : Effect.asVoid(
              orStorageError(sql`INSERT INTO function_metrics (function_id, hour, name, project_id, kind, count)
              VALUES ${sql.csv(
                counts.map((c) => sql`(${c.function_id}, ${c.hour}, ${c.name}, ${c.project_id}, ${c.kind}, ${c.count})`)
              )}
              ON CONFLICT (function_id, hour, name) DO UPDATE SET count = function_metrics.count + EXCLUDED.count`)
            ),
      counts: (projectId, functionId, range) =>
        orStorageError(
          sql<MetricCount>`SELECT project_id, function_id, hour, name, kind, count::float8 AS count FROM function_metrics
          WHERE ${sql.and([
            sql`function_id = ${functionId}`,
            sql`project_id = ${projectId}`,
            ...(range.after === undefined ? [] : [sql`hour >= ${range.after}`]),
            ...(range.before === undefined ? [] : [sql`hour <= ${range.before}`])
          ])}
          ORDER BY hour`
        )
    })
  })
)
