import { SqlClient } from "@effect/sql"
import { ExportedAsset, ExportInsert, ExportStore, type StoredExport } from "@zed/core/storage"
import { Array as Arr, Effect, Layer, Option } from "effect"
import { entityColumns } from "./entityColumns.js"
import { orStorageError } from "./sqlErrors.js"

export const ExportStoreSql = Layer.effect(
  ExportStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
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
        orStorageError(
          sql`UPDATE exported_assets SET ${sql.csv(assets.sets(outcome))} WHERE project_id = ${projectId} AND id = ${id}`
        ).pipe(Effect.asVoid),
      // A chunk travels as base64 text, decoded by the database: PGlite's own bytea encoding costs about
      // 0.2 s a megabyte each way, base64 a tenth of that.
      appendChunk: (exportId, seq, bytes) =>
        orStorageError(
          sql`INSERT INTO exported_asset_chunks (export_id, seq, bytes)
            VALUES (${exportId}, ${seq}, decode(${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64")}, 'base64'))`
        ).pipe(Effect.asVoid),
      chunk: (exportId, seq) =>
        orStorageError(
          sql<{
            text: string
          }>`SELECT encode(bytes, 'base64') AS text FROM exported_asset_chunks WHERE export_id = ${exportId} AND seq = ${seq}`
        ).pipe(
          Effect.map((rows) => Option.map(Arr.head(rows), (row) => new Uint8Array(Buffer.from(row.text, "base64"))))
        ),
      removeExpired: (now) =>
        orStorageError(
          sql<{ id: number }>`DELETE FROM exported_assets WHERE expires_after <= ${now} RETURNING id`
        ).pipe(Effect.map((rows) => rows.length))
    })
  })
)
