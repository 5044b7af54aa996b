// chDB binds parameters on one queue for the whole process (a bound statement waits for every other
// one, on any connection) and drops a bound statement's leading comment from its process list. So
// on chDB the `{name:Type}` placeholders are replaced by typed literals, written by a strict escaper,
// and only where a placeholder can be: never inside a quoted string, identifier or comment.

/** ClickHouse string literal: every byte kept, backslash and quote escaped. */
export const quoteString = (text: string): string => `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`

const literal = (value: unknown): string => {
  if (value === null || value === undefined) return "NULL"
  if (typeof value === "string") return quoteString(value)
  if (typeof value === "bigint") return String(value)
  if (typeof value === "boolean") return value ? "true" : "false"
  if (typeof value === "number")
    return Number.isNaN(value) ? "nan" : value === Infinity ? "inf" : value === -Infinity ? "-inf" : String(value)
  if (Array.isArray(value)) return `[${value.map(literal).join(", ")}]`
  const entries =
    value instanceof Map
      ? [...value]
      : typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype
        ? Object.entries(value)
        : undefined
  if (entries !== undefined) return `map(${entries.flatMap(([k, v]) => [literal(k), literal(v)]).join(", ")})`
  throw new Error(`cannot bind ${Object.prototype.toString.call(value)} as a ClickHouse value`)
}

const PLACEHOLDER = /^\{([A-Za-z_][A-Za-z0-9_]*):([^{}]+)\}/

/** The statement with each placeholder replaced by `CAST(<literal> AS <Type>)`. */
export const inlineParams = (sql: string, params: Readonly<Record<string, unknown>>): string => {
  let out = ""
  let i = 0
  while (i < sql.length) {
    const c = sql[i]!
    // Quoted text and comments are copied whole: a brace inside one is not a placeholder.
    if (c === "'" || c === "`" || c === '"') {
      let j = i + 1
      while (j < sql.length && sql[j] !== c) j += sql[j] === "\\" ? 2 : 1
      out += sql.slice(i, j + 1)
      i = j + 1
    } else if (sql.startsWith("/*", i)) {
      const end = sql.indexOf("*/", i + 2)
      const j = end < 0 ? sql.length : end + 2
      out += sql.slice(i, j)
      i = j
    } else if (sql.startsWith("--", i)) {
      const end = sql.indexOf("\n", i)
      const j = end < 0 ? sql.length : end
      out += sql.slice(i, j)
      i = j
    } else if (c === "{") {
      const match = PLACEHOLDER.exec(sql.slice(i))
      if (match === null || !Object.hasOwn(params, match[1]!))
        throw new Error(`no value for ${match?.[0] ?? "a placeholder"}`)
      out += `CAST(${literal(params[match[1]!])} AS ${match[2]})`
      i += match[0].length
    } else {
      out += c
      i++
    }
  }
  return out
}
