import type { ZType } from "./types.js"

// Result values as JSON, the same whichever store and driver produced them: drivers hand back
// big numbers as text, timestamps as Date objects and arrays of either; the column's ZedQL type
// says what each value is.

const number = (value: unknown): unknown => {
  if (typeof value === "number" || value === null) return value
  if (typeof value === "bigint") return Number(value)
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value)
  return value
}

export const jsonValue = (value: unknown, type: ZType): unknown => {
  if (value === null || value === undefined) return null
  switch (type.kind) {
    case "Int":
    case "Float":
      return number(value)
    case "Bool":
      return typeof value === "boolean" ? value : value === "t" || value === "true" || value === 1
    case "Array":
      return Array.isArray(value) ? value.map((v) => jsonValue(v, type.of)) : value
    default:
      if (value instanceof Date) return value.toISOString()
      if (typeof value === "bigint") return Number(value)
      if (Array.isArray(value)) return value.map((v) => jsonValue(v, { kind: "Unknown", nullable: true }))
      return value
  }
}

/** Rows of driver values as JSON rows, by the columns' types. */
export const jsonRows = (
  rows: ReadonlyArray<ReadonlyArray<unknown>>,
  types: ReadonlyArray<ZType>
): Array<Array<unknown>> =>
  rows.map((row) => row.map((value, i) => jsonValue(value, types[i] ?? { kind: "Unknown", nullable: true })))
