import { Deferred, Effect, Exit, FiberId, FiberSet, type Scope } from "effect"
import { makeBoundedMap } from "./bounded.js"

/**
 * A bounded cache in front of a storage read, for lookups on the request path: a kept value is
 * answered synchronously (`peek`), so a request whose every input is kept needs no fiber at all;
 * otherwise concurrent reads of one key share one lookup.
 */
export interface ReadThrough<K, V, E> {
  /**
   * The kept value, without reading: undefined when none is kept or it expired. A value past its
   * time to live but within its stale allowance is answered while a refresh reads it again.
   */
  readonly peek: (key: K) => V | undefined
  /** The kept value, or one read now. */
  readonly get: (key: K) => Effect.Effect<V, E>
  /** Forgets a key; a read under way for it is not kept when it ends. */
  readonly invalidate: (key: K) => void
  readonly invalidateAll: () => void
}

export interface ReadThroughOptions<K, V, E, R> {
  /** Keys kept at most; past it, the one read longest ago goes first. */
  readonly capacity: number
  /**
   * For values that differ a lot in size: their approximate bytes (`approximateBytes`), and the sum
   * kept at most; past it, too, the one read longest ago goes first.
   */
  readonly weigh?: ((value: V) => number) | undefined
  readonly maxBytes?: number | undefined
  readonly lookup: (key: K) => Effect.Effect<V, E, R>
  /** Milliseconds a value is answered without reading it again. */
  readonly timeToLive: (value: V) => number
  /** Milliseconds past that it is still answered while it is read again in the background (default 0). */
  readonly staleFor?: ((value: V) => number) | undefined
}

interface Entry<V> {
  readonly value: V
  readonly freshUntil: number
  readonly servedUntil: number
}

interface Loading<V, E> {
  readonly deferred: Deferred.Deferred<V, E>
  stale: boolean
}

export const makeReadThrough = <K, V, E, R>(
  options: ReadThroughOptions<K, V, E, R>
): Effect.Effect<ReadThrough<K, V, E>, never, R | Scope.Scope> =>
  Effect.gen(function* () {
    // Lookups run in fibers of their own, so a caller that gives up does not cancel the others';
    // they end with the scope.
    const run = yield* FiberSet.makeRuntime<R, void, never>()
    const entries = makeBoundedMap<K, Entry<V>>({
      maxEntries: options.capacity,
      maxWeight: options.maxBytes,
      weigh: options.weigh === undefined ? undefined : (entry) => options.weigh!(entry.value)
    })
    const loading = new Map<K, Loading<V, E>>()

    const keep = (key: K, value: V) => {
      const now = Date.now()
      const freshUntil = now + options.timeToLive(value)
      entries.set(key, { value, freshUntil, servedUntil: freshUntil + (options.staleFor?.(value) ?? 0) })
    }

    const load = (key: K): Deferred.Deferred<V, E> => {
      const running = loading.get(key)
      if (running !== undefined) return running.deferred
      const pending: Loading<V, E> = { deferred: Deferred.unsafeMake<V, E>(FiberId.none), stale: false }
      loading.set(key, pending)
      run(
        Effect.flatMap(Effect.exit(options.lookup(key)), (exit) =>
          Effect.sync(() => {
            if (loading.get(key) === pending) loading.delete(key)
            if (Exit.isSuccess(exit) && !pending.stale) keep(key, exit.value)
            Deferred.unsafeDone(pending.deferred, exit)
          })
        )
      )
      return pending.deferred
    }

    const peek = (key: K): V | undefined => {
      const entry = entries.peek(key)
      if (entry === undefined) return undefined
      const now = Date.now()
      if (now >= entry.servedUntil) {
        entries.delete(key)
        return undefined
      }
      if (now >= entry.freshUntil) load(key)
      return entry.value
    }

    return {
      peek,
      get: (key) =>
        Effect.suspend(() => {
          const kept = peek(key)
          return kept !== undefined ? Effect.succeed(kept) : Deferred.await(load(key))
        }),
      invalidate: (key) => {
        entries.delete(key)
        const running = loading.get(key)
        if (running !== undefined) {
          running.stale = true
          loading.delete(key)
        }
      },
      invalidateAll: () => {
        entries.clear()
        for (const running of loading.values()) running.stale = true
        loading.clear()
      }
    }
  })
