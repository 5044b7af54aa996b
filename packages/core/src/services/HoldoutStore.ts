import { Context, type Effect, type Option } from "effect"
import type { HoldoutPatch, NewHoldout, StoredHoldout } from "../experiments/holdoutEntity.js"
import type { StorageError } from "./StorageError.js"

export type { HoldoutPatch, NewHoldout, StoredHoldout }

/** Experiment holdouts; deleted ones are kept, marked, and neither listed nor found. */
export class HoldoutStore extends Context.Tag("@zed/core/HoldoutStore")<
  HoldoutStore,
  {
    /** Live holdouts, newest first. */
    readonly list: (
      projectId: number,
      page: { readonly limit: number; readonly offset: number }
    ) => Effect.Effect<{ readonly count: number; readonly results: ReadonlyArray<StoredHoldout> }, StorageError>
    readonly get: (projectId: number, id: number) => Effect.Effect<Option.Option<StoredHoldout>, StorageError>
    readonly create: (projectId: number, holdout: NewHoldout) => Effect.Effect<StoredHoldout, StorageError>
    readonly update: (
      projectId: number,
      id: number,
      patch: HoldoutPatch
    ) => Effect.Effect<Option.Option<StoredHoldout>, StorageError>
  }
>() {}
