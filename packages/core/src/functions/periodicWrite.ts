import { type Duration, Effect, type Scope } from "effect"
import type { StorageError } from "../services/StorageError.js"

/**
 * Writes what `drain` hands over every `every` in the background, and once more when the scope
 * closes, one write at a time (so batches keep their order); a write that fails is logged as
 * `failure` and dropped, never failing whoever buffered it. Answers the serialized write, for readers
 * that want what is pending written first.
 */
export const periodicWrite = <A>(
  drain: () => ReadonlyArray<A>,
  write: (batch: ReadonlyArray<A>) => Effect.Effect<void, StorageError>,
  failure: string,
  every: Duration.DurationInput
): Effect.Effect<Effect.Effect<void>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const flush = Effect.suspend(() => {
      const batch = drain()
      if (batch.length === 0) return Effect.void
      return write(batch).pipe(
        Effect.catchAll((error) => Effect.logWarning(failure, error.message)),
        Effect.withTracerEnabled(false)
      )
    })
    const serialized = Effect.unsafeMakeSemaphore(1).withPermits(1)(flush)
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Effect.sleep(every), serialized)))
    yield* Effect.addFinalizer(() => serialized)
    return serialized
  })
