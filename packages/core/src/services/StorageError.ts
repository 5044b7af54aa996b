import { Data } from "effect"

/** A storage backend failed; mapped to a 500 at the HTTP edge and logged with its cause. */
export class StorageError extends Data.TaggedError("StorageError")<{
  readonly message: string
  readonly cause?: unknown
  /** Another writer got there first (a unique key, a serialization failure, a deadlock): trying again can succeed. */
  readonly conflict?: boolean
}> {}
