import { Schema } from "effect"

// Person property filters, as the persons list takes them: `properties=[{"key", "value", "operator"}]`.

export const OPERATORS = ["exact", "is_not", "icontains", "not_icontains", "gt", "gte", "lt", "lte", "is_set", "is_not_set"] as const
export type Operator = (typeof OPERATORS)[number]

export interface PropertyFilter {
  readonly key: string
  readonly operator: Operator
  readonly value: unknown
}

export const PropertyFilterSchema = Schema.Struct({
  key: Schema.String,
  value: Schema.optional(Schema.Unknown),
  operator: Schema.optional(Schema.Literal(...OPERATORS)),
  type: Schema.optional(Schema.String)
})

export const toFilter = (input: typeof PropertyFilterSchema.Type): PropertyFilter => ({
  key: input.key,
  operator: input.operator ?? "exact",
  value: input.value
})

/** Values as text the way JSON stores them: strings bare, everything else as JSON. */
export const asText = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value))

/** Numbers, and strings holding a plain decimal number, compare as numbers. */
export const NUMERIC_TEXT = /^\s*-?\d+(\.\d+)?\s*$/

export const asNumber = (value: unknown): number | undefined =>
  typeof value === "number" ? value : typeof value === "string" && NUMERIC_TEXT.test(value) ? Number(value) : undefined

/** The filter's value(s) as text; `exact` and `is_not` take a list meaning any of them. */
export const filterValues = (filter: PropertyFilter): Array<string> =>
  (Array.isArray(filter.value) ? filter.value : [filter.value]).filter((v) => v !== undefined && v !== null).map(asText)

export const matches = (properties: Record<string, unknown>, filter: PropertyFilter): boolean => {
  const present = Object.hasOwn(properties, filter.key)
  const actual = properties[filter.key]
  const text = present && actual !== null ? asText(actual) : undefined
  switch (filter.operator) {
    case "is_set":
      return present
    case "is_not_set":
      return !present
    case "exact":
      return text !== undefined && filterValues(filter).includes(text)
    case "is_not":
      return text === undefined || !filterValues(filter).includes(text)
    case "icontains":
      return text !== undefined && text.toLowerCase().includes(asText(filter.value ?? "").toLowerCase())
    case "not_icontains":
      return text === undefined || !text.toLowerCase().includes(asText(filter.value ?? "").toLowerCase())
    default: {
      const a = asNumber(actual)
      const b = asNumber(filter.value)
      if (a === undefined || b === undefined) return false
      return filter.operator === "gt" ? a > b : filter.operator === "gte" ? a >= b : filter.operator === "lt" ? a < b : a <= b
    }
  }
}
