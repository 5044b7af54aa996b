import { Context, type Effect, type Option } from "effect"
import type { StorageError } from "./StorageError.js"

// Session recordings: the rrweb events posthog-js sends to `/s/`, kept per session in bounded,
// compressed chunks, and one metadata row per session kept up to date as chunks arrive.

/** Interactions closer than this are one stretch of activity (PostHog's threshold), within and across chunks. */
export const ACTIVITY_THRESHOLD_MS = 5_000

/** What one chunk adds to its recording's metadata (computed from its rrweb events). */
export interface ChunkSummary {
  readonly firstTimestamp: Date
  readonly lastTimestamp: Date
  /** rrweb events in the chunk. */
  readonly eventCount: number
  /** Bytes of the chunk's JSONL before compression. */
  readonly bytes: number
  readonly clickCount: number
  readonly keypressCount: number
  readonly mouseActivityCount: number
  readonly consoleLogCount: number
  readonly consoleWarnCount: number
  readonly consoleErrorCount: number
  /** Active time inside the chunk: gaps shorter than the activity threshold between user interactions. */
  readonly activeMs: number
  /** First and last user interaction of the chunk, to join activity across chunk boundaries. */
  readonly firstActive: Date | null
  readonly lastActive: Date | null
  /** The chunk's first page URL (from rrweb Meta events) and when it was seen. */
  readonly firstUrl: { readonly url: string; readonly at: Date } | null
}

export interface NewChunk {
  readonly sessionId: string
  /** Idempotency key: a retried request carries the same key and is stored once. */
  readonly key: string
  readonly distinctId: string
  /** `web` (posthog-js) or `mobile`. */
  readonly source: string
  /** `$lib` of the sender, when it said. */
  readonly library: string | null
  /** gzip of JSONL lines `[window_id, rrweb event]`, in timestamp order. */
  readonly data: Uint8Array
  readonly summary: ChunkSummary
}

/** A stored chunk without its data: what the snapshot sources list. */
export interface ChunkInfo {
  /** Stable, increasing within the project: the blob key the snapshots API hands out. */
  readonly seq: number
  readonly firstTimestamp: Date
  readonly lastTimestamp: Date
  readonly eventCount: number
  readonly bytes: number
}

/** One session's recording metadata (PostHog's `session_replay_events` row). */
export interface RecordingMeta {
  readonly session_id: string
  readonly distinct_id: string
  readonly start_time: Date
  readonly end_time: Date
  readonly active_ms: number
  readonly last_active: Date | null
  readonly first_url: string | null
  readonly first_url_at: Date | null
  readonly click_count: number
  readonly keypress_count: number
  readonly mouse_activity_count: number
  readonly console_log_count: number
  readonly console_warn_count: number
  readonly console_error_count: number
  /** Uncompressed bytes of all chunks. */
  readonly size: number
  /** Chunks stored. */
  readonly message_count: number
  /** rrweb events stored. */
  readonly event_count: number
  readonly snapshot_source: string
  readonly snapshot_library: string | null
  readonly created_at: Date
}

export class RecordingStore extends Context.Tag("@zed/core/RecordingStore")<
  RecordingStore,
  {
    /**
     * Stores a chunk and folds its summary into the session's metadata, atomically. Answers false,
     * changing nothing, when the session already holds a chunk with this key (a retry).
     */
    readonly append: (projectId: number, chunk: NewChunk) => Effect.Effect<boolean, StorageError>
    readonly get: (projectId: number, sessionId: string) => Effect.Effect<Option.Option<RecordingMeta>, StorageError>
    /** The metadata of those of these sessions that have a recording, in no particular order. */
    readonly getMany: (
      projectId: number,
      sessionIds: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyArray<RecordingMeta>, StorageError>
    /** The session's chunks, by first timestamp then seq (replay order). */
    readonly chunks: (projectId: number, sessionId: string) => Effect.Effect<ReadonlyArray<ChunkInfo>, StorageError>
    /** The compressed data of these chunks of the session, in the order asked for; unknown seqs are left out. */
    readonly chunkData: (
      projectId: number,
      sessionId: string,
      seqs: ReadonlyArray<number>
    ) => Effect.Effect<ReadonlyArray<{ readonly seq: number; readonly data: Uint8Array }>, StorageError>
    /** The sessions whose recording was made under one of these distinct ids. */
    readonly sessionsOf: (
      projectId: number,
      distinctIds: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyArray<string>, StorageError>
    /** Removes the recording, its chunks and its views; false when there was none. */
    readonly remove: (projectId: number, sessionId: string) => Effect.Effect<boolean, StorageError>
    /** Records that the user watched the recording (first view kept). */
    readonly markViewed: (projectId: number, sessionId: string, userId: number) => Effect.Effect<void, StorageError>
    /** Those of these sessions the user has watched. */
    readonly viewed: (
      projectId: number,
      userId: number,
      sessionIds: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlySet<string>, StorageError>
  }
>() {}
