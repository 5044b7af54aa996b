import { Context, type Effect, type Option } from "effect"
import type { PersonalApiKey, User } from "../domain/models.js"
import type { StorageError } from "./StorageError.js"

export type NewPersonalApiKey = Omit<PersonalApiKey, "id" | "created_at" | "last_used_at">

export class ApiKeyStore extends Context.Tag("@zed/core/ApiKeyStore")<
  ApiKeyStore,
  {
    readonly create: (input: NewPersonalApiKey) => Effect.Effect<PersonalApiKey, StorageError>
    /** The key with this digest and its owner, in one round trip: this runs on every API request. */
    readonly findBySecureValue: (
      secureValue: string
    ) => Effect.Effect<Option.Option<{ readonly key: PersonalApiKey; readonly user: User }>, StorageError>
    readonly markUsed: (id: string, at: Date) => Effect.Effect<void, StorageError>
  }
>() {}
