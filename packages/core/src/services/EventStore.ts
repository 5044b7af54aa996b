import { Context, type Effect } from "effect"
import type { PropertyFilter } from "../filters/property.js"
import type { StorageError } from "./StorageError.js"

/** An event as stored: normalized, with the person it belonged to when ingested. */
export interface StoredEvent {
  readonly uuid: string
  readonly event: string
  readonly distinct_id: string
  readonly person_id: string
  readonly properties: Record<string, unknown>
  readonly timestamp: Date
  /** When Zed received it. */
  readonly created_at: Date
  /** Keys of the event's groups by type index (`$group_0`…`$group_4`). */
  readonly groups: ReadonlyArray<string | null>
}

export interface EventQuery {
  readonly uuid?: string | undefined
  readonly event?: string | undefined
  readonly distinct_id?: string | undefined
  readonly person_id?: string | undefined
  readonly after?: Date | undefined
  readonly before?: Date | undefined
  /** Only events after this one in the list's order (older, or as old with a smaller uuid): keyset paging. */
  readonly beyond?: { readonly timestamp: Date; readonly uuid: string } | undefined
  readonly properties?: ReadonlyArray<PropertyFilter> | undefined
  readonly limit: number
  readonly offset: number
}

export class EventStore extends Context.Tag("@zed/core/EventStore")<
  EventStore,
  {
    /**
     * Stores events and answers the uuids it stored: an event whose uuid the project already has is
     * skipped, never stored twice (ingestion is idempotent on project and uuid).
     */
    readonly insert: (
      projectId: number,
      events: ReadonlyArray<StoredEvent>
    ) => Effect.Effect<ReadonlySet<string>, StorageError>
    /** Events stored under person `from` now belong to `to` (after a merge or an identify). */
    readonly repoint: (
      projectId: number,
      moves: ReadonlyArray<{ readonly from: string; readonly to: string }>
    ) => Effect.Effect<void, StorageError>
    /** Newest first. */
    readonly list: (projectId: number, query: EventQuery) => Effect.Effect<ReadonlyArray<StoredEvent>, StorageError>
    /** When each of these flags was last reported called (`$feature_flag_called`), for those ever called. */
    readonly lastFlagCalls: (
      projectId: number,
      keys: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyMap<string, Date>, StorageError>
    /** How many events of each of these names happened at `since` or later, for the names with any. */
    readonly volumes: (
      projectId: number,
      names: ReadonlyArray<string>,
      since: Date
    ) => Effect.Effect<ReadonlyMap<string, number>, StorageError>
    readonly deleteByPerson: (projectId: number, personId: string) => Effect.Effect<number, StorageError>
  }
>() {}
