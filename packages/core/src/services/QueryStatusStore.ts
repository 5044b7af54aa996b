import { Context, type Effect, type Option } from "effect"
import type { StorageError } from "./StorageError.js"

/** Progress of a running query, as PostHog reports it. */
export interface QueryProgress {
  readonly bytes_read: number
  readonly rows_read: number
  readonly estimated_rows_total: number
  readonly time_elapsed: number
  readonly active_cpu_time: number
}

/** A background query's status, persisted so any instance can answer a poll. */
export interface QueryStatus {
  readonly id: string
  readonly team_id: number
  readonly query_async: boolean
  readonly complete: boolean
  readonly error: boolean
  readonly error_message: string | null
  /** The full query response once complete. */
  readonly results: unknown
  readonly start_time: Date | null
  readonly pickup_time: Date | null
  readonly end_time: Date | null
  readonly expiration_time: Date | null
  /** The execution id of the statement computing it (what `QueryExecutor.cancel` takes). */
  readonly task_id: string | null
  readonly insight_id: number | null
  readonly dashboard_id: number | null
  readonly labels: ReadonlyArray<string> | null
  readonly query_progress: QueryProgress | null
}

export class QueryStatusStore extends Context.Tag("@zed/core/QueryStatusStore")<
  QueryStatusStore,
  {
    /** Creates or replaces the status under (team_id, id). */
    readonly put: (status: QueryStatus) => Effect.Effect<void, StorageError>
    /**
     * Replaces the status under (team_id, id) only while it is there; answers whether it was. A run
     * reports through this, so that a status forgotten by a cancel stays forgotten.
     */
    readonly update: (status: QueryStatus) => Effect.Effect<boolean, StorageError>
    /** Unknown and expired statuses are none. */
    readonly get: (projectId: number, id: string, now: Date) => Effect.Effect<Option.Option<QueryStatus>, StorageError>
    readonly remove: (projectId: number, id: string) => Effect.Effect<void, StorageError>
    /** Drops statuses whose expiration_time has passed; answers how many. */
    readonly removeExpired: (now: Date) => Effect.Effect<number, StorageError>
  }
>() {}
