import { Context, type Effect, type Option } from "effect"
import type { ActionPatch, NewAction, StoredAction } from "../actions/actionEntity.js"
import type { StorageError } from "./StorageError.js"

export type { ActionPatch, NewAction, StoredAction }

/** Actions; deleted ones are kept, marked, and neither listed nor found. */
export class ActionStore extends Context.Tag("@zed/core/ActionStore")<
  ActionStore,
  {
    /** Live actions whose name holds `search` (ignoring case), newest first. */
    readonly list: (
      projectId: number,
      query: { readonly search?: string | undefined; readonly limit: number; readonly offset: number }
    ) => Effect.Effect<{ readonly count: number; readonly results: ReadonlyArray<StoredAction> }, StorageError>
    /** Every live action: what ZedQL's `matchesAction` reads. */
    readonly all: (projectId: number) => Effect.Effect<ReadonlyArray<StoredAction>, StorageError>
    readonly get: (projectId: number, id: number) => Effect.Effect<Option.Option<StoredAction>, StorageError>
    /** The live action of this name, if any. */
    readonly named: (projectId: number, name: string) => Effect.Effect<Option.Option<StoredAction>, StorageError>
    readonly create: (projectId: number, action: NewAction) => Effect.Effect<StoredAction, StorageError>
    readonly update: (
      projectId: number,
      id: number,
      patch: ActionPatch
    ) => Effect.Effect<Option.Option<StoredAction>, StorageError>
  }
>() {}
