import { Effect } from "effect"

/**
 * Rollback for the in-memory stores: inside a transaction every write records how to undo itself,
 * and a transaction that fails undoes them in reverse, so memory behaves like SQL when it fails.
 */
export interface Journal {
  readonly set: <K, V>(map: Map<K, V>, key: K, value: V) => void
  readonly delete: <K, V>(map: Map<K, V>, key: K) => void
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

export const makeJournal = (): Journal => {
  let undo: Array<() => void> | undefined
  const record = <K, V>(map: Map<K, V>, key: K) => {
    if (undo === undefined) return
    const had = map.has(key)
    const previous = map.get(key)
    undo.push(() => (had ? map.set(key, previous as V) : map.delete(key)))
  }
  return {
    set: (map, key, value) => {
      record(map, key)
      map.set(key, value)
    },
    delete: (map, key) => {
      record(map, key)
      map.delete(key)
    },
    // Callers serialize transactions; one inside another joins it.
    transaction: (effect) =>
      Effect.suspend(() => {
        if (undo !== undefined) return effect
        undo = []
        return Effect.onExit(effect, (exit) =>
          Effect.sync(() => {
            const log = undo!
            undo = undefined
            if (exit._tag === "Failure") for (const step of log.reverse()) step()
          })
        )
      })
  }
}
