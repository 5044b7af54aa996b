import { Context, type Effect, type Option } from "effect"
import type { FlagPatch, NewFlag, StoredFlag } from "../flags/flagEntity.js"
import type { StorageError } from "./StorageError.js"

export type { FlagPatch, NewFlag, StoredFlag }

export interface FlagQuery {
  readonly search?: string | undefined
  readonly active?: boolean | undefined
  readonly limit: number
  readonly offset: number
}

export class FlagStore extends Context.Tag("@zed/core/FlagStore")<
  FlagStore,
  {
    /** Live (not deleted) flags, newest first. */
    readonly list: (
      projectId: number,
      query: FlagQuery
    ) => Effect.Effect<{ readonly count: number; readonly results: ReadonlyArray<StoredFlag> }, StorageError>
    readonly get: (projectId: number, id: number) => Effect.Effect<Option.Option<StoredFlag>, StorageError>
    readonly findByKey: (projectId: number, key: string) => Effect.Effect<Option.Option<StoredFlag>, StorageError>
    /** Fails with a conflict when another live flag of the project has the key. */
    readonly create: (projectId: number, flag: NewFlag) => Effect.Effect<StoredFlag, StorageError>
    /** Bumps the version; fails with a conflict when the new key is another live flag's. */
    readonly update: (
      projectId: number,
      id: number,
      patch: FlagPatch
    ) => Effect.Effect<Option.Option<StoredFlag>, StorageError>
    /** Every live flag, active or not: what evaluation and the SDKs' definitions need. */
    readonly all: (projectId: number) => Effect.Effect<ReadonlyArray<StoredFlag>, StorageError>
  }
>() {}
