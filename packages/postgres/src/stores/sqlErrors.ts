import { SqlError } from "@effect/sql/SqlError"
import { StorageError } from "@zed/core/storage"
import { Effect, Option } from "effect"

// unique_violation, serialization_failure, deadlock_detected
const CONFLICTS = new Set(["23505", "40001", "40P01"])

/**
 * Failures of the store rather than of the statement: it cannot be reached, shuts down, is out of
 * disk, memory or connections, or the network failed. The same request can succeed later.
 */
const UNAVAILABLE_CODES = new Set([
  // connection_exception and its kinds
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
  // admin_shutdown, crash_shutdown, cannot_connect_now
  "57P01",
  "57P02",
  "57P03",
  // disk_full, out_of_memory, too_many_connections, io_error
  "53100",
  "53200",
  "53300",
  "58030",
  // the network, as Node reports it
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE"
])

const UNAVAILABLE_MESSAGES =
  /Connection terminated|connection error|Failed to acquire connection|No space left on device|the PGlite thread/i

const storageErrorOf = (error: SqlError): StorageError => {
  const cause = error.cause as { message?: string; code?: string } | undefined
  const message = `${error.message}: ${cause?.message ?? "unknown cause"}`
  return new StorageError({
    message,
    cause: error.cause,
    conflict: cause?.code !== undefined && CONFLICTS.has(cause.code),
    unavailable: (cause?.code !== undefined && UNAVAILABLE_CODES.has(cause.code)) || UNAVAILABLE_MESSAGES.test(message)
  })
}

/** Storage ports speak StorageError; the SQL details travel along as its cause. */
export const orStorageError = <A, E, R>(
  effect: Effect.Effect<A, E | SqlError, R>
): Effect.Effect<A, Exclude<E, SqlError> | StorageError, R> =>
  Effect.mapError(effect, (error) =>
    error instanceof SqlError ? storageErrorOf(error) : (error as Exclude<E, SqlError>)
  )

/**
 * `@effect/sql` makes a failed COMMIT or ROLLBACK a defect; here it is what it is, a storage failure
 * (the connection went away mid-transaction, say), whose outcome the caller cannot know.
 */
export const transactionFailures = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StorageError, R> =>
  Effect.catchSomeDefect(effect, (defect) =>
    defect instanceof SqlError ? Option.some(Effect.fail(storageErrorOf(defect))) : Option.none()
  )
