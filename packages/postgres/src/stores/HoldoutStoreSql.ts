import { SqlClient } from "@effect/sql"
import { Holdout, HoldoutInsert, HoldoutStore, type StoredHoldout } from "@zed/core/storage"
import { Array as Arr, Effect, Layer } from "effect"
import { entityColumns } from "./entityColumns.js"
import { orStorageError } from "./sqlErrors.js"

export const HoldoutStoreSql = Layer.effect(
  HoldoutStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const holdouts = entityColumns(sql, Holdout, HoldoutInsert)
    return HoldoutStore.of({
      list: (projectId, q) => {
        const where = sql`project_id = ${projectId} AND NOT deleted`
        return orStorageError(
          Effect.all([
            sql<StoredHoldout>`SELECT ${holdouts.columns} FROM experiment_holdouts WHERE ${where} ORDER BY id DESC LIMIT ${q.limit} OFFSET ${q.offset}`,
            sql<{ total: number }>`SELECT count(*)::int AS total FROM experiment_holdouts WHERE ${where}`
          ])
        ).pipe(Effect.map(([results, [count]]) => ({ count: count!.total, results })))
      },
      get: (projectId, id) =>
        orStorageError(
          sql<StoredHoldout>`SELECT ${holdouts.columns} FROM experiment_holdouts WHERE project_id = ${projectId} AND id = ${id} AND NOT deleted`
        ).pipe(Effect.map(Arr.head)),
      create: (projectId, h) =>
        orStorageError(sql<StoredHoldout>`
          INSERT INTO experiment_holdouts (project_id, ${holdouts.inserted}) VALUES (${projectId}, ${holdouts.values(h)})
          RETURNING ${holdouts.columns}`).pipe(Effect.map((rows) => rows[0]!)),
      update: (projectId, id, patch) =>
        orStorageError(sql<StoredHoldout>`UPDATE experiment_holdouts SET ${sql.csv([...holdouts.sets(patch), sql`updated_at = now()`])}
          WHERE project_id = ${projectId} AND id = ${id} AND NOT deleted RETURNING ${holdouts.columns}`).pipe(
          Effect.map(Arr.head)
        )
    })
  })
)
