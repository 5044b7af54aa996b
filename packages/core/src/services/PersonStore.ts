import { Context, type Effect, type Option } from "effect"
import type { Person } from "../persons/model.js"
import type { PersonChanges } from "../persons/processor.js"
import type { PropertyFilter } from "../filters/property.js"
import type { StorageError } from "./StorageError.js"

export interface PersonQuery {
  readonly distinct_id?: string | undefined
  readonly email?: string | undefined
  /** Persons with any of these distinct ids / e-mails (a batch looked up at once). */
  readonly distinct_ids?: ReadonlyArray<string> | undefined
  readonly emails?: ReadonlyArray<string> | undefined
  /** Only persons after this one in the list's order (older, or as old with a smaller id): keyset paging. */
  readonly beyond?: { readonly created_at: Date; readonly id: number } | undefined
  /** A distinct id, or part of an e-mail or name. */
  readonly search?: string | undefined
  readonly properties: ReadonlyArray<PropertyFilter>
  readonly limit: number
  readonly offset: number
}

export class PersonStore extends Context.Tag("@zed/core/PersonStore")<
  PersonStore,
  {
    /** The persons these distinct ids belong to, with all their ids; locked until the transaction ends. */
    readonly load: (
      projectId: number,
      distinctIds: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyArray<Person>, StorageError>
    /** Writes the changes; answers the ids given to the persons it created, by uuid. */
    readonly save: (
      projectId: number,
      changes: PersonChanges
    ) => Effect.Effect<ReadonlyMap<string, number>, StorageError>
    /** Newest first. */
    readonly list: (
      projectId: number,
      query: PersonQuery
    ) => Effect.Effect<{ readonly count: number; readonly results: ReadonlyArray<Person> }, StorageError>
    readonly get: (
      projectId: number,
      ref: { readonly id: number } | { readonly uuid: string }
    ) => Effect.Effect<Option.Option<Person>, StorageError>
    /** The persons with these uuids (those that still exist), in no particular order. */
    readonly getMany: (
      projectId: number,
      uuids: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyArray<Person>, StorageError>
    /** Deletes the person and its distinct ids (which a later event may reuse for a new person). */
    readonly remove: (projectId: number, personId: number) => Effect.Effect<void, StorageError>
    /** The most common values of a person property, optionally containing `search`, with their counts. */
    readonly values: (
      projectId: number,
      key: string,
      search: string | undefined
    ) => Effect.Effect<ReadonlyArray<{ readonly value: unknown; readonly count: number }>, StorageError>
  }
>() {}
