import { Context, type Effect, type Option } from "effect"
import type { FlagDefinition, FlagFilters } from "../flags/model.js"
import type { StorageError } from "./StorageError.js"

/** A flag as stored: its definition plus who made and changed it. */
export interface StoredFlag extends FlagDefinition {
  readonly tags: ReadonlyArray<string>
  readonly created_by: number | null
  readonly last_modified_by: number | null
  readonly created_at: Date
  readonly updated_at: Date
}

export interface NewFlag {
  readonly key: string
  readonly name: string
  readonly filters: FlagFilters
  readonly active: boolean
  readonly ensure_experience_continuity: boolean
  readonly bucketing_identifier: "distinct_id" | "device_id" | null
  readonly evaluation_runtime: "server" | "client" | "all"
  readonly evaluation_contexts: ReadonlyArray<string>
  readonly tags: ReadonlyArray<string>
  readonly created_by: number | null
}

export type FlagPatch = { readonly [K in keyof Omit<NewFlag, "created_by">]?: NewFlag[K] | undefined } & {
  readonly deleted?: boolean | undefined
  readonly last_modified_by: number | null
}

export interface FlagQuery {
  readonly search?: string | undefined
  readonly active?: boolean | undefined
  readonly limit: number
  readonly offset: number
}

export class FlagStore extends Context.Tag("@zed/core/FlagStore")<FlagStore, {
  /** Live (not deleted) flags, newest first. */
  readonly list: (projectId: number, query: FlagQuery) => Effect.Effect<{ readonly count: number; readonly results: ReadonlyArray<StoredFlag> }, StorageError>
  readonly get: (projectId: number, id: number) => Effect.Effect<Option.Option<StoredFlag>, StorageError>
  readonly findByKey: (projectId: number, key: string) => Effect.Effect<Option.Option<StoredFlag>, StorageError>
  /** Fails with a conflict when another live flag of the project has the key. */
  readonly create: (projectId: number, flag: NewFlag) => Effect.Effect<StoredFlag, StorageError>
  /** Bumps the version; fails with a conflict when the new key is another live flag's. */
  readonly update: (projectId: number, id: number, patch: FlagPatch) => Effect.Effect<Option.Option<StoredFlag>, StorageError>
  /** Every live flag, active or not: what evaluation and the SDKs' definitions need. */
  readonly all: (projectId: number) => Effect.Effect<ReadonlyArray<StoredFlag>, StorageError>
}>() {}
