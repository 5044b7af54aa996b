import { SqlClient } from "@effect/sql"
import {
  EarlyAccessFeature,
  EarlyAccessFeatureInsert,
  EarlyAccessFeatureStore,
  isUuid,
  type StoredEarlyAccessFeature
} from "@zed/core/storage"
import { Array as Arr, Effect, Layer, Option } from "effect"
import { entityColumns } from "./entityColumns.js"
import { orStorageError } from "./sqlErrors.js"

export const EarlyAccessFeatureStoreSql = Layer.effect(
  EarlyAccessFeatureStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const features = entityColumns(sql, EarlyAccessFeature, EarlyAccessFeatureInsert)

    return EarlyAccessFeatureStore.of({
      list: (projectId, page) =>
        orStorageError(
          Effect.all([
            sql<StoredEarlyAccessFeature>`SELECT ${features.columns} FROM early_access_features WHERE project_id = ${projectId}
            ORDER BY created_at DESC, id DESC LIMIT ${page.limit} OFFSET ${page.offset}`,
            sql<{
              total: number
            }>`SELECT count(*)::int AS total FROM early_access_features WHERE project_id = ${projectId}`
          ])
        ).pipe(Effect.map(([results, [count]]) => ({ count: count!.total, results }))),
      atStages: (projectId, stages) =>
        stages.length === 0
          ? Effect.succeed([])
          : orStorageError(sql<StoredEarlyAccessFeature>`SELECT ${features.columns} FROM early_access_features
          WHERE project_id = ${projectId} AND stage IN ${sql.in(stages)} ORDER BY created_at, id`),
      // An id that is no UUID names no feature here, as in memory, rather than failing the uuid cast.
      get: (projectId, id) =>
        !isUuid(id)
          ? Effect.succeed(Option.none())
          : orStorageError(
              sql<StoredEarlyAccessFeature>`SELECT ${features.columns} FROM early_access_features WHERE project_id = ${projectId} AND id = ${id}`
            ).pipe(Effect.map(Arr.head)),
      // clock_timestamp: features created in one transaction still list in the order they were made.
      create: (projectId, f) =>
        orStorageError(sql<StoredEarlyAccessFeature>`
          INSERT INTO early_access_features (project_id, ${features.inserted}, created_at)
          VALUES (${projectId}, ${features.values(f)}, clock_timestamp())
          RETURNING ${features.columns}`).pipe(Effect.map((rows) => rows[0]!)),
      update: (projectId, id, patch) => {
        if (!isUuid(id)) return Effect.succeed(Option.none())
        const sets = features.sets(patch)
        if (sets.length === 0)
          return orStorageError(
            sql<StoredEarlyAccessFeature>`SELECT ${features.columns} FROM early_access_features WHERE project_id = ${projectId} AND id = ${id}`
          ).pipe(Effect.map(Arr.head))
        return orStorageError(sql<StoredEarlyAccessFeature>`UPDATE early_access_features SET ${sql.csv(sets)}
          WHERE project_id = ${projectId} AND id = ${id} RETURNING ${features.columns}`).pipe(Effect.map(Arr.head))
      },
      remove: (projectId, id) =>
        !isUuid(id)
          ? Effect.succeed(false)
          : orStorageError(
              sql`DELETE FROM early_access_features WHERE project_id = ${projectId} AND id = ${id} RETURNING 1`
            ).pipe(Effect.map((rows) => rows.length > 0))
    })
  })
)
