import { SqlError } from "@effect/sql/SqlError"
import { StorageError } from "@zed/core"
import { Effect } from "effect"

// unique_violation, serialization_failure, deadlock_detected
const CONFLICTS = new Set(["23505", "40001", "40P01"])

/** Storage ports speak StorageError; the SQL details travel along as its cause. */
export const orStorageError = <A, E, R>(
  effect: Effect.Effect<A, E | SqlError, R>
): Effect.Effect<A, Exclude<E, SqlError> | StorageError, R> =>
  Effect.mapError(effect, (error) => {
    if (!(error instanceof SqlError)) return error as Exclude<E, SqlError>
    const cause = error.cause as { message?: string; code?: string } | undefined
    return new StorageError({
      message: `${error.message}: ${cause?.message ?? "unknown cause"}`,
      cause: error.cause,
      conflict: cause?.code !== undefined && CONFLICTS.has(cause.code)
    })
  })
