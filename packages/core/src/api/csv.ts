import { Effect, Schema } from "effect"
import { csvCell } from "../domain/csv.js"
import { Reply } from "./reply.js"

// CSV renderings of API responses: nested objects are flattened into dotted column names
// (`created_by.email`), lists and other values written as JSON.

export { csvCell }

const flatten = (value: Record<string, unknown>, prefix = "", into: Map<string, unknown> = new Map()) => {
  for (const [key, v] of Object.entries(value)) {
    if (typeof v === "object" && v !== null && !Array.isArray(v))
      flatten(v as Record<string, unknown>, `${prefix}${key}.`, into)
    else into.set(`${prefix}${key}`, v)
  }
  return into
}

/** One row per object; the columns are every flattened key, in order of first appearance. */
export const csvRows = (rows: ReadonlyArray<Record<string, unknown>>): string => {
  const flat = rows.map((row) => flatten(row))
  const columns = [...new Set(flat.flatMap((row) => [...row.keys()]))]
  const lines = [
    columns.map(csvCell).join(","),
    ...flat.map((row) => columns.map((c) => csvCell(row.get(c))).join(","))
  ]
  return lines.join("\r\n") + "\r\n"
}

/** The `format` query parameter of endpoints that answer CSV as well as JSON. */
export const Format = Schema.optional(Schema.Literal("json", "csv"))

/** Rows as `schema` encodes them for JSON, as one CSV line each. */
export const csvReply = <A, I>(schema: Schema.Schema<A, I>, rows: ReadonlyArray<A>, status = 200) =>
  Effect.map(
    Effect.orDie(Schema.encode(Schema.Array(schema))(rows)),
    (encoded) =>
      new Reply(status, csvRows(encoded as ReadonlyArray<Record<string, unknown>>), {
        "content-type": "text/csv; charset=utf-8"
      })
  )
