import { SqlError } from "@effect/sql/SqlError"
import { StorageError } from "@zed/core"
import { Effect } from "effect"

/** Storage ports speak StorageError; the SQL details travel along as its cause. */
export const orStorageError = <A, E, R>(
  effect: Effect.Effect<A, E | SqlError, R>
): Effect.Effect<A, Exclude<E, SqlError> | StorageError, R> =>
  Effect.mapError(effect, (error) =>
    error instanceof SqlError
      ? new StorageError({ message: `${error.message}: ${(error.cause as Error | undefined)?.message ?? "unknown cause"}`, cause: error.cause })
      : (error as Exclude<E, SqlError>))
