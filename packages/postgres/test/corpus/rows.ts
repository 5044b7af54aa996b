// Small tools for computing query results by hand, with ClickHouse's rules where they matter:
// text sorts by bytes, NULLs sort last either way, and untyped properties read as text.

export type Row = ReadonlyArray<unknown>

/** ClickHouse's order of two values: numbers by value, text by bytes, false before true, NULL last. */
export const compareValues = (a: unknown, b: unknown): number => {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1
  if (typeof a === "number" && typeof b === "number") return a - b
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b)
  const [x, y] = [String(a), String(b)]
  return x < y ? -1 : x > y ? 1 : 0
}

/** A key of `ordered`: a column, ascending, or `[column, "desc"]`. NULLs stay last when descending. */
type SortKey = number | readonly [number, "desc"]

export const ordered = (rows: ReadonlyArray<Row>, ...keys: ReadonlyArray<SortKey>): Array<Row> =>
  [...rows].sort((a, b) => {
    for (const key of keys) {
      const [column, desc] = typeof key === "number" ? [key, false] : [key[0], true]
      const [x, y] = [a[column], b[column]]
      const order = desc && x !== null && y !== null ? compareValues(y, x) : compareValues(x, y)
      if (order !== 0) return order
    }
    return 0
  })

/** Items by key, in first-seen order. */
export const tally = <T, K>(items: Iterable<T>, key: (item: T) => K): Map<K, Array<T>> => {
  const groups = new Map<K, Array<T>>()
  for (const item of items) {
    const k = key(item)
    const group = groups.get(k)
    if (group === undefined) groups.set(k, [item])
    else group.push(item)
  }
  return groups
}

/** An untyped property as ZedQL reads it: text, JSON text for other values, NULL when missing. */
export const text = (value: unknown): string | null =>
  value === undefined || value === null ? null : typeof value === "string" ? value : JSON.stringify(value)

export const sum = (values: ReadonlyArray<number>): number => values.reduce((a, b) => a + b, 0)
export const avg = (values: ReadonlyArray<number>): number | null =>
  values.length === 0 ? null : sum(values) / values.length
export const min = (values: ReadonlyArray<number>): number => values.reduce((a, b) => Math.min(a, b))
export const max = (values: ReadonlyArray<number>): number => values.reduce((a, b) => Math.max(a, b))
export const sortedText = (values: ReadonlyArray<string>): Array<string> =>
  [...values].sort((a, b) => compareValues(a, b))

/** Equal, with numbers equal up to rounding (sums and averages of floats differ in the last bits). */
export const closeTo = (actual: unknown, expected: unknown): boolean => {
  if (typeof actual === "number" && typeof expected === "number") {
    return Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(actual), Math.abs(expected))
  }
  if (Array.isArray(actual) && Array.isArray(expected)) {
    return actual.length === expected.length && actual.every((value, i) => closeTo(value, expected[i]))
  }
  return Object.is(actual, expected)
}
