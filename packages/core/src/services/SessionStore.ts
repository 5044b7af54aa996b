import { Context, type Effect, type Option } from "effect"
import type { User } from "../domain/models.js"
import type { StorageError } from "./StorageError.js"

/** Web app sessions, each known by the digest of its cookie value (the value itself is never stored). */
export class SessionStore extends Context.Tag("@zed/core/SessionStore")<
  SessionStore,
  {
    /** Stores a session (and drops expired ones). */
    readonly create: (input: {
      readonly digest: string
      readonly user_id: number
      readonly expires_at: Date
    }) => Effect.Effect<void, StorageError>
    /** The session with this digest, if its user is active; whether it has expired is the caller's to check. */
    readonly find: (
      digest: string
    ) => Effect.Effect<Option.Option<{ readonly user: User; readonly expires_at: Date }>, StorageError>
    readonly remove: (digest: string) => Effect.Effect<void, StorageError>
    /** Ends every session of the user (password changed, removed from the organization). */
    readonly removeForUser: (userId: number) => Effect.Effect<void, StorageError>
  }
>() {}
