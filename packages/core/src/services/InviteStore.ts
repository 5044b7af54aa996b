import { Context, type Effect, type Option } from "effect"
import type { Invite } from "../domain/models.js"
import type { StorageError } from "./StorageError.js"

export type NewInvite = Omit<Invite, "id" | "created_at">

export class InviteStore extends Context.Tag("@zed/core/InviteStore")<
  InviteStore,
  {
    readonly create: (input: NewInvite) => Effect.Effect<Invite, StorageError>
    /** The organization's invites, newest first. */
    readonly list: (organizationId: string) => Effect.Effect<ReadonlyArray<Invite>, StorageError>
    readonly get: (id: string) => Effect.Effect<Option.Option<Invite>, StorageError>
    /** Deletes the invite; false when there was none. */
    readonly remove: (id: string) => Effect.Effect<boolean, StorageError>
  }
>() {}
