import { type Transactor, StorageError } from "@zed/core/storage"
import { Effect, FiberRef } from "effect"
import type { ClickHouseError } from "./ClickHouse.js"

// ClickHouse has no transactions to join, so what a Postgres transaction decides is written to
// ClickHouse only once that transaction has committed: stores inside one stage their writes here,
// and the transactor runs them after the commit. A failure then fails the transaction's caller (an
// ingest request answers 503 and its SDK retries); nothing rolled back ever reaches ClickHouse.

/** The order staged writes run in: rows of persons, groups and recordings first, then the events' new
 * persons, then the events, so a retry after a partial failure finds the events unstored and redoes all. */
export type Phase = "rows" | "repoint" | "events"
const ORDER: ReadonlyArray<Phase> = ["rows", "repoint", "events"]

type Staged = { readonly phase: Phase; readonly write: Effect.Effect<void, ClickHouseError | StorageError> }

const CurrentOutbox = FiberRef.unsafeMake<Array<Staged> | undefined>(undefined)

export const asStorageError = (error: ClickHouseError | StorageError): StorageError =>
  error._tag === "StorageError" ? error : new StorageError({ message: `ClickHouse: ${error.message}`, cause: error })

/** Runs `write` once the enclosing transaction commits, or at once outside one. */
export const afterCommit = (
  phase: Phase,
  write: Effect.Effect<void, ClickHouseError | StorageError>
): Effect.Effect<void, StorageError> =>
  Effect.flatMap(FiberRef.get(CurrentOutbox), (outbox) => {
    if (outbox === undefined) return Effect.mapError(write, asStorageError)
    outbox.push({ phase, write })
    return Effect.void
  })

/** Whether a transaction is staging writes: stores then answer as if their writes were done. */
export const inTransaction = Effect.map(FiberRef.get(CurrentOutbox), (outbox) => outbox !== undefined)

/**
 * The metadata store's transactor, with ClickHouse writes run after each commit. One transaction
 * at a time: the check of which events are new and their insert must not interleave with another's.
 */
export const withOutbox = (transactor: Transactor["Type"]): Transactor["Type"] => {
  // Row versions whose write failed after their commit: a retry of the request would find nothing
  // left to change, so they are written first by the next commit (their versions date from their
  // own transaction, so a newer one written meanwhile still wins).
  let unwritten: Array<Staged> = []
  const flush = (outbox: ReadonlyArray<Staged>) =>
    Effect.forEach(
      ORDER,
      (phase) =>
        Effect.forEach(
          outbox.filter((s) => s.phase === phase),
          (s) => Effect.tapError(s.write, () => Effect.sync(() => phase === "rows" && unwritten.push(s))),
          { discard: true }
        ),
      { discard: true }
    )
  const wrap =
    (run: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StorageError, R>) =>
    <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StorageError, R> =>
      Effect.flatMap(FiberRef.get(CurrentOutbox), (outer) => {
        if (outer !== undefined) return run(effect)
        const outbox: Array<Staged> = []
        return Effect.flatMap(run(Effect.locally(effect, CurrentOutbox, outbox)), (result) => {
          const owed = unwritten
          unwritten = []
          return Effect.as(Effect.mapError(flush([...owed, ...outbox]), asStorageError), result)
        })
      })
  return {
    concurrency: 1,
    soleWriter: transactor.soleWriter,
    transaction: wrap(transactor.transaction),
    exclusive: (lock) => wrap(transactor.exclusive(lock))
  }
}
