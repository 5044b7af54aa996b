import { Context, type Effect, type Option } from "effect"
import type { PersonalApiKey, User } from "../domain/models.js"
import type { StorageError } from "./StorageError.js"

export type NewPersonalApiKey = Omit<PersonalApiKey, "id" | "created_at" | "last_used_at" | "last_rolled_at">

export type PersonalApiKeyPatch = {
  readonly [K in
    | "label"
    | "scopes"
    | "scoped_teams"
    | "scoped_organizations"
    | "mask_value"
    | "secure_value"
    | "last_rolled_at"]?: PersonalApiKey[K] | undefined
}

export class ApiKeyStore extends Context.Tag("@zed/core/ApiKeyStore")<
  ApiKeyStore,
  {
    readonly create: (input: NewPersonalApiKey) => Effect.Effect<PersonalApiKey, StorageError>
    /** The key with this digest and its owner, in one round trip: this runs on every API request. */
    readonly findBySecureValue: (
      secureValue: string
    ) => Effect.Effect<Option.Option<{ readonly key: PersonalApiKey; readonly user: User }>, StorageError>
    readonly markUsed: (id: string, at: Date) => Effect.Effect<void, StorageError>
    /** The user's keys, newest first. */
    readonly list: (userId: number) => Effect.Effect<ReadonlyArray<PersonalApiKey>, StorageError>
    /** The user's key with this id. */
    readonly get: (userId: number, id: string) => Effect.Effect<Option.Option<PersonalApiKey>, StorageError>
    readonly update: (
      userId: number,
      id: string,
      patch: PersonalApiKeyPatch
    ) => Effect.Effect<Option.Option<PersonalApiKey>, StorageError>
    /** Deletes the user's key; false when there was none. */
    readonly remove: (userId: number, id: string) => Effect.Effect<boolean, StorageError>
  }
>() {}
