import { Context, type Effect, type Option } from "effect"
import type { ExportOutcome, NewExport, StoredExport } from "../exports/exportEntity.js"
import type { StorageError } from "./StorageError.js"

export type { ExportOutcome, NewExport, StoredExport }

/**
 * The size of every chunk of an export's content but its last (which may be shorter), so that a
 * store may keep the content as one file and find chunk `seq` at `seq * EXPORT_CHUNK_BYTES`.
 *
 * A page of wide rows is megabytes of text; a store such as PGlite writes a value of that size in
 * seconds (about 0.5 s a megabyte), holding its one connection (other requests wait behind it, past
 * their time limit) and growing its memory with the value. Chunks of this size cost a short write each.
 */
export const EXPORT_CHUNK_BYTES = 256 * 1024

/**
 * Exports and their content. The content is written as it is made, in numbered chunks of
 * EXPORT_CHUNK_BYTES, so neither a run nor a download holds more than a chunk of it.
 */
export class ExportStore extends Context.Tag("@zed/core/ExportStore")<
  ExportStore,
  {
    /** Newest first. */
    readonly list: (
      projectId: number,
      query: { readonly limit: number; readonly offset: number }
    ) => Effect.Effect<{ readonly count: number; readonly results: ReadonlyArray<StoredExport> }, StorageError>
    readonly get: (projectId: number, id: number) => Effect.Effect<Option.Option<StoredExport>, StorageError>
    readonly create: (projectId: number, asset: NewExport) => Effect.Effect<StoredExport, StorageError>
    /** Records how the run ended; content it says is there is kept durably from then on. */
    readonly finish: (projectId: number, id: number, outcome: ExportOutcome) => Effect.Effect<void, StorageError>
    /** Writes chunk `seq` (0, 1, …) of an export's content: EXPORT_CHUNK_BYTES long unless it is the last. */
    readonly appendChunk: (exportId: number, seq: number, bytes: Uint8Array) => Effect.Effect<void, StorageError>
    /** Chunk `seq` of an export's content; none past its end. */
    readonly chunk: (exportId: number, seq: number) => Effect.Effect<Option.Option<Uint8Array>, StorageError>
    /** Deletes exports past their `expires_after` and their content; answers how many. */
    readonly removeExpired: (now: Date) => Effect.Effect<number, StorageError>
  }
>() {}
