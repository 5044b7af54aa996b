import { Context, type Effect, type Option } from "effect"
import type { User } from "../domain/models.js"
import type { StorageError } from "./StorageError.js"

export interface NewUser {
  readonly organization_id: string
  readonly email: string
  readonly first_name: string
  readonly current_project_id: number | null
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
  }
>() {}
