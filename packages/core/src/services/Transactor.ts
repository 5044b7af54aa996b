import { Context, type Effect } from "effect"
import type { StorageError } from "./StorageError.js"

/** Transactions across storage ports: every store call inside runs in the same transaction. */
export class Transactor extends Context.Tag("@zed/core/Transactor")<
  Transactor,
  {
    /** How many write transactions the store runs at once to good effect (one for a single-session store). */
    readonly concurrency: number
    /** Whether this process is the store's only writer (embedded stores), so what it wrote may be cached. */
    readonly soleWriter: boolean
    readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StorageError, R>
    /**
     * A transaction that also runs alone among all instances sharing the store (an advisory lock on
     * SQL stores), for check-then-act work such as the first-start bootstrap.
     */
    readonly exclusive: (
      lock: string
    ) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StorageError, R>
  }
>() {}
