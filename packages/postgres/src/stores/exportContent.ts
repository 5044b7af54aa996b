import { type FileHandle, mkdir, open, rm } from "node:fs/promises"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import { EXPORT_CHUNK_BYTES, StorageError } from "@zed/core/storage"
import { Array as Arr, Context, Effect, Layer, Option } from "effect"
import { PgliteThread } from "../pgliteThread.js"
import { orStorageError } from "./sqlErrors.js"

// Where an export's content is kept, beside its row in `exported_assets` (decision 0016): as rows of
// the database on a server, which every instance reads; as a file beside an embedded database, which
// only this process opens and which takes the content as fast as the disk does.

export interface ExportContent {
  /** Writes chunk `seq`; every chunk but the last is EXPORT_CHUNK_BYTES long. */
  readonly write: (exportId: number, seq: number, bytes: Uint8Array) => Effect.Effect<void, StorageError>
  /** Chunk `seq`; none past the end. */
  readonly read: (exportId: number, seq: number) => Effect.Effect<Option.Option<Uint8Array>, StorageError>
  /** Makes what was written durable: the export is about to be recorded as complete. */
  readonly seal: (exportId: number) => Effect.Effect<void, StorageError>
  /** Drops the content of exports whose rows were deleted. */
  readonly remove: (exportIds: ReadonlyArray<number>) => Effect.Effect<void, StorageError>
}

export class ExportContentStore extends Context.Tag("@zed/postgres/ExportContentStore")<
  ExportContentStore,
  ExportContent
>() {}

/** In `exported_asset_chunks`, deleted with their export by the foreign key. */
export const ExportContentRows = Layer.effect(
  ExportContentStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      // A chunk travels as base64 text, decoded by the database: PGlite's own bytea encoding costs about
      // 0.2 s a megabyte each way, base64 a tenth of that.
      write: (exportId, seq, bytes) =>
        orStorageError(
          sql`INSERT INTO exported_asset_chunks (export_id, seq, bytes)
            VALUES (${exportId}, ${seq}, decode(${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64")}, 'base64'))`
        ).pipe(Effect.asVoid),
      read: (exportId, seq) =>
        orStorageError(
          sql<{
            text: string
          }>`SELECT encode(bytes, 'base64') AS text FROM exported_asset_chunks WHERE export_id = ${exportId} AND seq = ${seq}`
        ).pipe(
          Effect.map((rows) => Option.map(Arr.head(rows), (row) => new Uint8Array(Buffer.from(row.text, "base64"))))
        ),
      seal: () => Effect.void,
      remove: () => Effect.void
    }
  })
)

const fileError = (what: string) => (cause: unknown) =>
  new StorageError({ message: `could not ${what} an export's content: ${(cause as Error).message}`, cause })

/** `use` of the file opened with `flags`, closed after; null when the file does not exist. */
const withFile = async <A>(path: string, flags: string, use: (handle: FileHandle) => Promise<A>) => {
  const handle = await open(path, flags).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null
    throw error
  })
  if (handle === null) return null
  try {
    return await use(handle)
  } finally {
    await handle.close()
  }
}

/**
 * One file an export in `dir`, chunk `seq` at `seq * EXPORT_CHUNK_BYTES`. An export without a file
 * was written before files were used: its content is read from `before`.
 */
export const exportContentFiles = (dir: string, before: ExportContent): ExportContent => {
  const file = (exportId: number) => join(dir, `${exportId}`)
  return {
    write: (exportId, seq, bytes) =>
      Effect.tryPromise({
        try: async () => {
          // The first chunk starts the file afresh: nothing of an earlier run stays past its end.
          if (seq === 0) await mkdir(dir, { recursive: true })
          const written = await withFile(file(exportId), seq === 0 ? "w" : "r+", (handle) =>
            handle.write(bytes, 0, bytes.length, seq * EXPORT_CHUNK_BYTES)
          )
          if (written === null) throw new Error(`the file of export ${exportId} is gone`)
        },
        catch: fileError("write")
      }),
    read: (exportId, seq) =>
      Effect.tryPromise({
        try: () =>
          withFile(file(exportId), "r", async (handle) => {
            const buffer = Buffer.allocUnsafe(EXPORT_CHUNK_BYTES)
            const { bytesRead } = await handle.read(buffer, 0, EXPORT_CHUNK_BYTES, seq * EXPORT_CHUNK_BYTES)
            return bytesRead === 0 ? Option.none() : Option.some<Uint8Array>(buffer.subarray(0, bytesRead))
          }),
        catch: fileError("read")
      }).pipe(Effect.flatMap((chunk) => (chunk === null ? before.read(exportId, seq) : Effect.succeed(chunk)))),
    seal: (exportId) =>
      Effect.tryPromise({
        try: () => withFile(file(exportId), "r+", (handle) => handle.sync()),
        catch: fileError("keep")
      }).pipe(Effect.asVoid),
    remove: (exportIds) =>
      Effect.tryPromise({
        try: () => Promise.all(exportIds.map((id) => rm(file(id), { force: true }))),
        catch: fileError("remove")
      })
  }
}

/** Files beside the embedded database's directory; earlier exports' rows still read. */
export const ExportContentFiles = Layer.effect(
  ExportContentStore,
  Effect.gen(function* () {
    const thread = yield* PgliteThread
    const rows = yield* ExportContentStore
    return exportContentFiles(`${thread.dataDir}.exports`, rows)
  })
).pipe(Layer.provide(ExportContentRows))
