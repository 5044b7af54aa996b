import { randomBytes } from "node:crypto"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { EXPORT_CHUNK_BYTES, ExportStore, type StorageServices } from "@zed/core/storage"
import { Effect, ManagedRuntime, Option } from "effect"
import { bootstrap } from "../../core/src/bootstrap.js"
import { pgliteClient, pgliteStorage, postgresClient } from "../src/index.js"
import { backends, suiteStorage } from "./backends.js"

// Exports' rows and content on each store: sizes past 32 bits (a ten-million-event CSV is 16 GB),
// chunks read back as written and none past the end, content gone with its expired export. The
// embedded store keeps the content as a file beside its directory (decision 0016) and still reads
// exports an earlier version kept as rows; the server keeps it as rows, which every instance reads.

const NEW_EXPORT = {
  export_format: "text/csv",
  export_context: null,
  insight: null,
  dashboard: null,
  filename: "export.csv",
  expires_after: new Date(Date.now() + 86_400_000),
  created_by: null
} as const

const readAll = (exportId: number) =>
  Effect.gen(function* () {
    const store = yield* ExportStore
    const chunks: Array<Uint8Array> = []
    for (;;) {
      const chunk = yield* store.chunk(exportId, chunks.length)
      if (Option.isNone(chunk)) return chunks
      chunks.push(chunk.value)
    }
  })

describe.each(["memory", "pglite", "postgres", "chdb"])("%s export store", (name) => {
  const suite = suiteStorage(backends("export-store")[name]!)

  it("keeps a size and a row count past 32 bits", async () => {
    const outcome = { has_content: true, exception: null, row_count: 3_000_000_123, content_size: 16_516_621_233 }
    const stored = await suite.run(
      Effect.gen(function* () {
        const store = yield* ExportStore
        const asset = yield* store.create(1, NEW_EXPORT)
        yield* store.finish(1, asset.id, outcome)
        return Option.getOrThrow(yield* store.get(1, asset.id))
      })
    )
    expect(stored).toMatchObject(outcome)
  })

  it("reads chunks back as written, none past the end, and drops them with their expired export", async () => {
    const written = [
      randomBytes(EXPORT_CHUNK_BYTES),
      randomBytes(EXPORT_CHUNK_BYTES),
      randomBytes(1 + (EXPORT_CHUNK_BYTES >> 3))
    ]
    const { after, id, read } = await suite.run(
      Effect.gen(function* () {
        const store = yield* ExportStore
        const asset = yield* store.create(1, { ...NEW_EXPORT, expires_after: new Date(Date.now() + 60_000) })
        for (const [seq, bytes] of written.entries()) yield* store.appendChunk(asset.id, seq, bytes)
        yield* store.finish(1, asset.id, {
          has_content: true,
          exception: null,
          row_count: 1,
          content_size: written.reduce((n, b) => n + b.length, 0)
        })
        const read = yield* readAll(asset.id)
        const removed = yield* store.removeExpired(new Date(Date.now() + 120_000))
        expect(removed).toBeGreaterThanOrEqual(1)
        return { id: asset.id, read, after: yield* store.chunk(asset.id, 0) }
      })
    )
    expect(read.map((chunk) => Buffer.from(chunk))).toEqual(written)
    expect(Option.isNone(after)).toBe(true)
    expect(Option.isNone(await suite.run(Effect.flatMap(ExportStore, (s) => s.get(1, id))))).toBe(true)
  })

  it("writes a chunk again in its place: a chunk retried is not stored twice", async () => {
    const first = randomBytes(EXPORT_CHUNK_BYTES)
    const last = randomBytes(100)
    const read = await suite.run(
      Effect.gen(function* () {
        const store = yield* ExportStore
        const asset = yield* store.create(1, NEW_EXPORT)
        yield* store.appendChunk(asset.id, 0, first)
        yield* store.appendChunk(asset.id, 1, last)
        yield* Effect.either(store.appendChunk(asset.id, 1, last))
        return yield* readAll(asset.id)
      })
    )
    expect(Buffer.concat(read)).toEqual(Buffer.concat([first, last]))
  })
})

describe("the embedded store's export content", () => {
  const dir = mkdtempSync(join(tmpdir(), "zed-export-files-"))
  const dataDir = join(dir, "pgdata")
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  const withStore = async <A>(effect: Effect.Effect<A, unknown, StorageServices>) => {
    const runtime = ManagedRuntime.make(pgliteStorage({ dataDir }))
    try {
      return await runtime.runPromise(effect)
    } finally {
      await runtime.dispose()
    }
  }

  it("is a file beside the database, and an export kept as rows by an earlier version still reads", async () => {
    const content = randomBytes(EXPORT_CHUNK_BYTES + 777)
    const ids = await withStore(
      Effect.gen(function* () {
        yield* bootstrap()
        const store = yield* ExportStore
        const asFile = yield* store.create(1, NEW_EXPORT)
        yield* store.appendChunk(asFile.id, 0, content.subarray(0, EXPORT_CHUNK_BYTES))
        yield* store.appendChunk(asFile.id, 1, content.subarray(EXPORT_CHUNK_BYTES))
        const asRows = yield* store.create(1, NEW_EXPORT)
        return { asFile: asFile.id, asRows: asRows.id }
      })
    )
    expect(readFileSync(join(`${dataDir}.exports`, String(ids.asFile)))).toEqual(content)
    expect(existsSync(join(`${dataDir}.exports`, String(ids.asRows)))).toBe(false)

    // What an earlier version wrote: the content in exported_asset_chunks.
    const older = randomBytes(5000)
    await Effect.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM exported_asset_chunks`
        expect(rows[0]!.n).toBe(0)
        yield* sql`INSERT INTO exported_asset_chunks (export_id, seq, bytes)
          VALUES (${ids.asRows}, 0, decode(${older.toString("hex")}, 'hex'))`
      }).pipe(Effect.provide(pgliteClient({ dataDir })))
    )

    const [file, rows] = await withStore(Effect.all([readAll(ids.asFile), readAll(ids.asRows)]))
    expect(Buffer.concat(file)).toEqual(content)
    expect(Buffer.concat(rows)).toEqual(older)
  })
})

describe("the server's export content", () => {
  it("is kept as rows of the database, for every instance to read", async () => {
    const backend = await backends("export-rows").postgres!()
    const runtime = ManagedRuntime.make(backend.storage)
    try {
      const content = randomBytes(3000)
      const id = await runtime.runPromise(
        Effect.gen(function* () {
          yield* bootstrap()
          const store = yield* ExportStore
          const asset = yield* store.create(1, NEW_EXPORT)
          yield* store.appendChunk(asset.id, 0, content)
          return asset.id
        })
      )
      const rows = await Effect.runPromise(
        Effect.flatMap(
          SqlClient.SqlClient,
          (sql) =>
            sql<{ hex: string }>`SELECT encode(bytes, 'hex') AS hex FROM exported_asset_chunks WHERE export_id = ${id}`
        ).pipe(Effect.provide(postgresClient({ url: backend.url! })))
      )
      expect(rows.map((row) => row.hex)).toEqual([content.toString("hex")])
    } finally {
      await runtime.dispose()
      await backend.cleanup()
    }
  })
})
