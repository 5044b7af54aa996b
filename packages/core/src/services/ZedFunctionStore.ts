import { Context, type Effect, type Option } from "effect"
import type {
  FunctionPatch,
  FunctionType,
  NewFunction,
  StoredFunction,
  StoredInput
} from "../functions/functionEntity.js"
import type { StorageError } from "./StorageError.js"

// Zed functions (PostHog's hog_functions): Hog code run on events, as transformations before
// storage or destinations after it. A project has few of them, so the store hands out whole lists
// and the API filters, orders and pages them.

export type { FunctionPatch, FunctionType, NewFunction, StoredFunction, StoredInput }

export class ZedFunctionStore extends Context.Tag("@zed/core/ZedFunctionStore")<
  ZedFunctionStore,
  {
    /** The project's functions (deleted ones only with `includeDeleted`), by `execution_order` (nulls last), then `created_at`. */
    readonly list: (
      projectId: number,
      includeDeleted?: boolean
    ) => Effect.Effect<ReadonlyArray<StoredFunction>, StorageError>
    readonly get: (
      projectId: number,
      id: string,
      includeDeleted?: boolean
    ) => Effect.Effect<Option.Option<StoredFunction>, StorageError>
    readonly create: (projectId: number, fn: NewFunction) => Effect.Effect<StoredFunction, StorageError>
    /** Changes the given fields and moves `updated_at`; none when the function does not exist. */
    readonly update: (
      projectId: number,
      id: string,
      patch: FunctionPatch
    ) => Effect.Effect<Option.Option<StoredFunction>, StorageError>
  }
>() {}
