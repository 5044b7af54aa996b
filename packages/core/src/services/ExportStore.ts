import { Context, type Effect, type Option } from "effect"
import type { ExportOutcome, NewExport, StoredExport } from "../exports/exportEntity.js"
import type { StorageError } from "./StorageError.js"

export type { ExportOutcome, NewExport, StoredExport }

/**
 * Exports and their content. The content is written as it is made, in numbered chunks, so neither
 * a run nor a download holds more than a chunk of it.
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
    /** Records how the run ended. */
    readonly finish: (projectId: number, id: number, outcome: ExportOutcome) => Effect.Effect<void, StorageError>
    /** Appends chunk `seq` (0, 1, …) of an export's content. */
    readonly appendChunk: (exportId: number, seq: number, bytes: Uint8Array) => Effect.Effect<void, StorageError>
    /** Chunk `seq` of an export's content; none past its end. */
    readonly chunk: (exportId: number, seq: number) => Effect.Effect<Option.Option<Uint8Array>, StorageError>
    /** Deletes exports past their `expires_after` and their content; answers how many. */
    readonly removeExpired: (now: Date) => Effect.Effect<number, StorageError>
  }
>() {}
