import { Context, type Effect, type Option } from "effect"
import type { Organization } from "../domain/models.js"
import type { StorageError } from "./StorageError.js"

export class OrganizationStore extends Context.Tag("@zed/core/OrganizationStore")<
  OrganizationStore,
  {
    readonly create: (input: { readonly name: string }) => Effect.Effect<Organization, StorageError>
    readonly get: (id: string) => Effect.Effect<Option.Option<Organization>, StorageError>
    readonly update: (
      id: string,
      patch: {
        readonly name?: string | undefined
        readonly flag_evaluation_quota?: number | null | undefined
      }
    ) => Effect.Effect<Option.Option<Organization>, StorageError>
    /** Whether any organization exists: the first start is the one that finds none. */
    readonly any: Effect.Effect<boolean, StorageError>
  }
>() {}
