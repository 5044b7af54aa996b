import { Data } from "effect"

/**
 * A storage backend failed; logged with its cause and answered at the HTTP edge as a 503 with
 * `Retry-After` when the store is unavailable, else as a 500.
 */
export class StorageError extends Data.TaggedError("StorageError")<{
  readonly message: string
  readonly cause?: unknown
  /** Another writer got there first (a unique key, a serialization failure, a deadlock): trying again can succeed. */
  readonly conflict?: boolean
  /** The store cannot be reached, did not answer in time, or is full: the same request can succeed later. */
  readonly unavailable?: boolean
}> {}
