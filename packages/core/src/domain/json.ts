/** A JSON object (not null, not an array): what property bags, `$set` and query nodes must be. */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
