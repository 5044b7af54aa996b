import { Context, type Effect, type Option } from "effect"
import type { StorageError } from "./StorageError.js"

// Zed functions (PostHog's hog_functions): Hog code run on events, as transformations before
// storage or destinations after it. A project has few of them, so the store hands out whole lists
// and the API filters, orders and pages them.

export type FunctionType = "transformation" | "destination"

/** One input's stored value; `bytecode` is its compiled template. */
export interface StoredInput {
  readonly value: unknown
  readonly templating?: "hog" | "liquid" | undefined
  readonly bytecode?: unknown
  readonly order?: number | undefined
}

export interface StoredFunction {
  readonly id: string
  readonly type: FunctionType
  readonly name: string
  readonly description: string
  readonly enabled: boolean
  readonly deleted: boolean
  readonly code: string
  readonly bytecode: ReadonlyArray<unknown>
  /** As the client sent it (validated). */
  readonly inputs_schema: ReadonlyArray<unknown>
  /** Values of inputs that are not secret. */
  readonly inputs: Readonly<Record<string, StoredInput>>
  /** Values of secret inputs: kept apart so that no response can carry them. */
  readonly secrets: Readonly<Record<string, StoredInput>>
  readonly filters: unknown
  readonly masking: unknown
  readonly mappings: ReadonlyArray<unknown> | null
  readonly icon_url: string | null
  readonly template_id: string | null
  readonly execution_order: number | null
  readonly created_by: number | null
  readonly created_at: Date
  readonly updated_at: Date
}

export type NewFunction = Omit<StoredFunction, "id" | "created_at" | "updated_at" | "execution_order"> & {
  /** Null for a transformation takes the project's highest order plus one. */
  readonly execution_order: number | null
}

type Editable = Omit<StoredFunction, "id" | "type" | "created_by" | "created_at" | "updated_at">
export type FunctionPatch = { readonly [K in keyof Editable]?: Editable[K] | undefined }

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
