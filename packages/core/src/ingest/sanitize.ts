/** How deep event properties may nest; deeper documents are refused rather than risk the store's stack. */
export const MAX_DEPTH = 64

export class TooDeep extends Error {}

// NUL cannot be stored in a PostgreSQL text or jsonb value, nor can a lone UTF-16 surrogate: both are
// replaced by U+FFFD, so the store can never reject an event that validation accepted.
export const cleanString = (s: string): string => {
  const wellFormed = s.isWellFormed() ? s : s.toWellFormed()
  return wellFormed.includes("\u0000") ? wellFormed.replaceAll("\u0000", "\uFFFD") : wellFormed
}

/**
 * Sets an own property, even one named `__proto__`: plain assignment would call the prototype setter
 * and drop the property (JSON.parse itself creates such keys as own properties).
 */
export const setOwn = (target: Record<string, unknown>, key: string, value: unknown): void => {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  else target[key] = value
}

/** A copy of a parsed JSON value with every string (keys too) made storable; throws TooDeep past MAX_DEPTH. */
export const cleanJson = (value: unknown, depth = 0): unknown => {
  if (typeof value === "string") return cleanString(value)
  if (value === null || typeof value !== "object") return value
  if (depth >= MAX_DEPTH) throw new TooDeep()
  if (Array.isArray(value)) return value.map((item) => cleanJson(item, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) setOwn(out, cleanString(key), cleanJson(item, depth + 1))
  return out
}

/** A name cut to `max` UTF-16 units without leaving half of a surrogate pair behind. */
export const truncate = (s: string, max: number): string => cleanString(s.length > max ? s.slice(0, max) : s)
