import { SqlClient } from "@effect/sql"
import { ExportedAsset, ExportInsert, ExportStore, type StoredExport } from "@zed/core/storage"
import { Array as Arr, Effect, Layer } from "effect"
import { entityColumns } from "./entityColumns.js"
import { ExportContentStore } from "./exportContent.js"
import { orStorageError } from "./sqlErrors.js"

/** Exports' rows, their content where `ExportContentStore` keeps it. */
export const ExportStoreSql = Layer.effect(
  ExportStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const content = yield* ExportContentStore
    const assets = entityColumns(sql, ExportedAsset, ExportInsert)
    return ExportStore.of({
      list: (projectId, q) =>
        orStorageError(
          Effect.all([
            sql<StoredExport>`SELECT ${assets.columns} FROM exported_assets WHERE project_id = ${projectId}
              ORDER BY id DESC LIMIT ${q.limit} OFFSET ${q.offset}`,
            sql<{ total: number }>`SELECT count(*)::int AS total FROM exported_assets WHERE project_id = ${projectId}`
          ])
        ).pipe(Effect.map(([results, [count]]) => ({ count: count!.total, results }))),
      get: (projectId, id) =>
        orStorageError(
          sql<StoredExport>`SELECT ${assets.columns} FROM exported_assets WHERE project_id = ${projectId} AND id = ${id}`
        ).pipe(Effect.map(Arr.head)),
      create: (projectId, asset) =>
        orStorageError(sql<StoredExport>`
          INSERT INTO exported_assets (project_id, ${assets.inserted}) VALUES (${projectId}, ${assets.values(asset)})
          RETURNING ${assets.columns}`).pipe(Effect.map((rows) => rows[0]!)),
      finish: (projectId, id, outcome) =>
        Effect.zipRight(
          outcome.has_content ? content.seal(id) : Effect.void,
          orStorageError(
            sql`UPDATE exported_assets SET ${sql.csv(assets.sets(outcome))} WHERE project_id = ${projectId} AND id = ${id}`
          )
        ).pipe(Effect.asVoid),
      appendChunk: content.write,
      chunk: content.read,
      removeExpired: (now) =>
        orStorageError(
          sql<{ id: number }>`DELETE FROM exported_assets WHERE expires_after <= ${now} RETURNING id`
        ).pipe(
          Effect.tap((rows) => content.remove(rows.map((row) => row.id))),
          Effect.map((rows) => rows.length)
        )
    })
  })
)
