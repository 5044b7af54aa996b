import { Context, type Effect } from "effect"
import type { StorageError } from "./StorageError.js"

export interface FlagInputsQuery {
  readonly distinctId: string
  /** Groups the request names, by type index. */
  readonly groups: ReadonlyArray<{ readonly index: number; readonly key: string }>
  /** Static and behavioural cohorts the flags refer to: is the person listed in, or calculated into, them? */
  readonly staticCohortIds: ReadonlyArray<number>
  /**
   * Experience continuity: for these flag keys, persons of `distinctId` and `anonDistinctId` that
   * have no override yet get one hashing on the anonymous id.
   */
  readonly continuity: { readonly flagKeys: ReadonlyArray<string>; readonly anonDistinctId: string } | undefined
}

export interface FlagInputsResult {
  /** The person's stored properties; null when the distinct id has no person. */
  readonly personProperties: Readonly<Record<string, unknown>> | null
  /** Stored properties of the groups found, by type index then key. */
  readonly groupProperties: ReadonlyMap<number, ReadonlyMap<string, Readonly<Record<string, unknown>>>>
  readonly staticCohorts: ReadonlySet<number>
  /** Flag key → hash key override of the person. */
  readonly hashKeyOverrides: Readonly<Record<string, string>>
}

/** What flag evaluation reads about persons, each in one storage round trip. */
export class FlagInputs extends Context.Tag("@zed/core/FlagInputs")<
  FlagInputs,
  {
    readonly load: (projectId: number, query: FlagInputsQuery) => Effect.Effect<FlagInputsResult, StorageError>
    /** The stored properties of these distinct ids' persons, by distinct id; ids without a person are left out. */
    readonly persons: (
      projectId: number,
      distinctIds: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyMap<string, Readonly<Record<string, unknown>>>, StorageError>
  }
>() {}
