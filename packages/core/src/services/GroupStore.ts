import { Context, type Effect, type Option } from "effect"
import type { GroupUpdate } from "../ingest/groups.js"
import type { StorageError } from "./StorageError.js"

export interface Group {
  readonly group_type_index: number
  readonly group_key: string
  readonly properties: Record<string, unknown>
  readonly created_at: Date
  readonly version: number
}

export class GroupStore extends Context.Tag("@zed/core/GroupStore")<
  GroupStore,
  {
    /** The project's group type → index mapping, creating indexes for new types while fewer than five exist. */
    readonly ensureTypes: (
      projectId: number,
      types: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyMap<string, number>, StorageError>
    readonly types: (projectId: number) => Effect.Effect<ReadonlyMap<string, number>, StorageError>
    /** Creates groups, or merges the given properties into existing ones. */
    readonly upsert: (projectId: number, updates: ReadonlyArray<GroupUpdate>) => Effect.Effect<void, StorageError>
    readonly get: (
      projectId: number,
      typeIndex: number,
      key: string
    ) => Effect.Effect<Option.Option<Group>, StorageError>
  }
>() {}
