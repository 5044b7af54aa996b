import { Context, type Effect } from "effect"
import type { StorageError } from "./StorageError.js"

/**
 * Runs an effect atomically and alone among all instances sharing the store (a transaction
 * holding an advisory lock on SQL stores), for check-then-act work such as the first-start bootstrap.
 */
export class Transactor extends Context.Tag("@zed/core/Transactor")<Transactor, {
  readonly exclusive: (
    lock: string
  ) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StorageError, R>
}>() {}
