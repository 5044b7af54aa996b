// Reading a stored query node's fields back into a builder's draft: each field as the type the
// builder edits, or the builder's default when the node has something else (then the builder's
// query differs from the stored one, and the editor says so).

/** A node's object fields; anything else as no fields. */
export type Fields = Readonly<Record<string, unknown>>

export const fields = (value: unknown): Fields =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Fields) : {}

export const list = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])

/** A text field ("" when missing or null); numbers as their text. */
export const text = (value: unknown): string =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : ""

/** `value` when it is one of `options`' keys, else `fallback`. */
export const oneOf = <K extends string>(value: unknown, options: Readonly<Record<K, unknown>>, fallback: K): K =>
  typeof value === "string" && Object.hasOwn(options, value) ? (value as K) : fallback

/** `value`'s JSON with object keys sorted: two nodes with the same fields give the same text. */
export const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, field: unknown) =>
    typeof field === "object" && field !== null && !Array.isArray(field)
      ? Object.fromEntries(Object.entries(field).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : field
  )
