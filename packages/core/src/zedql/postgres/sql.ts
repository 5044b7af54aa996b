import type { ZType } from "../types.js"

// Identifiers and types as Postgres writes them.

/** An identifier, quoted so any name is safe. */
export const quote = (name: string) => `"${name.replace(/"/g, '""')}"`

export const pgType = (type: ZType): string => {
  switch (type.kind) {
    case "String":
    case "Unknown":
    case "Null":
      return "text"
    case "Int":
      return "int8"
    case "Float":
      return "float8"
    case "Bool":
      return "boolean"
    case "DateTime":
      return "timestamptz"
    case "Date":
      return "date"
    case "UUID":
      return "uuid"
    case "JSON":
    case "Tuple":
      return "jsonb"
    case "Interval":
      return "interval"
    case "Array":
      return `${pgType(type.of)}[]`
  }
}
