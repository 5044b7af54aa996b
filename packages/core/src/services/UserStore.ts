import { Context, type Effect, type Option } from "effect"
import type { MembershipLevel, User } from "../domain/models.js"
import type { StorageError } from "./StorageError.js"

export interface NewUser {
  readonly organization_id: string
  readonly email: string
  readonly first_name: string
  readonly current_project_id: number | null
  readonly level: MembershipLevel
  /** A digest from `hashPassword`; null for a user who cannot sign in with a password. */
  readonly password_hash?: string | null | undefined
}

export interface UserPatch {
  readonly organization_id?: string | undefined
  readonly first_name?: string | undefined
  readonly last_name?: string | undefined
  readonly email?: string | undefined
  readonly current_project_id?: number | undefined
  readonly level?: MembershipLevel | undefined
  readonly is_active?: boolean | undefined
}

export class UserStore extends Context.Tag("@zed/core/UserStore")<
  UserStore,
  {
    readonly create: (input: NewUser) => Effect.Effect<User, StorageError>
    readonly get: (id: number) => Effect.Effect<Option.Option<User>, StorageError>
    readonly getMany: (ids: ReadonlyArray<number>) => Effect.Effect<ReadonlyArray<User>, StorageError>
    readonly findByEmail: (email: string) => Effect.Effect<Option.Option<User>, StorageError>
    /** The first user created: the admin made at bootstrap. */
    readonly first: Effect.Effect<Option.Option<User>, StorageError>
    /** The organization's active users, oldest first. */
    readonly list: (organizationId: string) => Effect.Effect<ReadonlyArray<User>, StorageError>
    readonly update: (id: number, patch: UserPatch) => Effect.Effect<Option.Option<User>, StorageError>
    /** The stored password digest; null when the user has none. */
    readonly passwordHash: (id: number) => Effect.Effect<string | null, StorageError>
    readonly setPasswordHash: (id: number, hash: string) => Effect.Effect<void, StorageError>
  }
>() {}
