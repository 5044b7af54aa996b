/**
 * A map for caches: at most `maxEntries` entries and, with `weigh`, at most `maxWeight` of their
 * summed weights (approximate bytes, for caches whose entries differ a lot in size). Past either
 * bound the entry set or read longest ago goes first; an entry heavier than `maxWeight` alone is not
 * kept at all.
 */
export interface BoundedMap<K, V> {
  readonly get: (key: K) => V | undefined
  /** The value without counting it as a use. */
  readonly peek: (key: K) => V | undefined
  readonly set: (key: K, value: V) => void
  readonly delete: (key: K) => boolean
  readonly clear: () => void
  readonly keys: () => IterableIterator<K>
  readonly size: () => number
  readonly weight: () => number
}

export interface BoundedMapOptions<K, V> {
  readonly maxEntries: number
  readonly maxWeight?: number | undefined
  readonly weigh?: ((value: V, key: K) => number) | undefined
}

export const makeBoundedMap = <K, V>(options: BoundedMapOptions<K, V>): BoundedMap<K, V> => {
  const entries = new Map<K, { readonly value: V; readonly weight: number }>()
  const maxWeight = options.maxWeight ?? Number.POSITIVE_INFINITY
  let total = 0
  const remove = (key: K) => {
    const entry = entries.get(key)
    if (entry === undefined) return false
    entries.delete(key)
    total -= entry.weight
    return true
  }
  return {
    get: (key) => {
      const entry = entries.get(key)
      if (entry === undefined) return undefined
      entries.delete(key)
      entries.set(key, entry)
      return entry.value
    },
    peek: (key) => entries.get(key)?.value,
    set: (key, value) => {
      remove(key)
      const weight = options.weigh?.(value, key) ?? 0
      if (weight > maxWeight) return
      entries.set(key, { value, weight })
      total += weight
      while (entries.size > options.maxEntries || total > maxWeight) remove(entries.keys().next().value as K)
    },
    delete: remove,
    clear: () => {
      entries.clear()
      total = 0
    },
    keys: () => entries.keys(),
    size: () => entries.size,
    weight: () => total
  }
}

/**
 * Roughly how many bytes a JSON-like value holds in V8: a string its characters plus a header, an
 * object or array a header plus its keys and values. Maps and Sets count as their entries. Values met
 * twice are counted twice; past `budget` nodes the rest is not visited (a cache bound needs the order
 * of magnitude, not the byte).
 */
export const approximateBytes = (value: unknown, budget = 100_000): number => {
  let nodes = 0
  const size = (v: unknown): number => {
    if (++nodes > budget) return 0
    switch (typeof v) {
      case "string":
        return 16 + v.length
      case "number":
      case "boolean":
      case "undefined":
      case "bigint":
      case "symbol":
      case "function":
        return 8
      case "object": {
        if (v === null) return 8
        let bytes = 32
        const add = (extra: number, ...parts: Array<unknown>) => {
          if (nodes > budget) return false
          bytes += extra
          for (const part of parts) bytes += size(part)
          return true
        }
        if (Array.isArray(v) || v instanceof Set) {
          for (const item of v) if (!add(8, item)) break
        } else if (v instanceof Map) {
          for (const [k, item] of v) if (!add(16, k, item)) break
        } else if (v instanceof Date) bytes += 8
        else for (const key in v) if (!add(8, key, (v as Record<string, unknown>)[key])) break
        return bytes
      }
    }
  }
  return size(value)
}
