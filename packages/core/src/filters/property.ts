import { Schema } from "effect"

// Property filters (`{key, value, operator, type}`) as PostHog's lists, insights and queries take
// them, with one meaning on every store and in ZedQL (packages/postgres/test/propertyFilters.test.ts
// holds each to the same table of cases):
// - a property is set when present and not JSON null; its text is the string itself, or the JSON
//   of any other value (numbers, booleans, arrays, objects);
// - exact and is_not compare that text, case-sensitively, with the value's (a number's digits,
//   `true` as "true"); icontains and not_icontains look for the value in it, ignoring case; regex
//   and not_regex search it for a pattern (one that does not compile matches nothing); the negated
//   operators also match an unset property;
// - gt, gte, lt and lte compare numbers: the text and the value must both read as numbers;
//   is_date_before and is_date_after compare instants: both must read as dates;
// - a list value means any of its values (none of them, for the negated operators); an empty list
//   filters nothing out, as in PostHog.
// Flag evaluation keeps the flags service's own rules (flags/properties.ts): it counts a JSON null
// as set, compares `exact` ignoring case and reads numbers as Unix timestamps in date filters.

export const PROPERTY_OPERATORS = [
  "exact",
  "is_not",
  "icontains",
  "not_icontains",
  "regex",
  "not_regex",
  "gt",
  "gte",
  "lt",
  "lte",
  "is_set",
  "is_not_set",
  "is_date_before",
  "is_date_after"
] as const
export type PropertyOperator = (typeof PROPERTY_OPERATORS)[number]

/** The operator each negated one negates: these match an unset property, and a set one matching none of the values. */
export const NEGATES: Partial<Readonly<Record<PropertyOperator, PropertyOperator>>> = {
  is_not: "exact",
  not_icontains: "icontains",
  not_regex: "regex"
}

export const PropertyFilter = Schema.Struct({
  key: Schema.String,
  value: Schema.optional(Schema.Unknown),
  operator: Schema.optional(Schema.Literal(...PROPERTY_OPERATORS)),
  type: Schema.optional(Schema.String)
})
export type PropertyFilter = typeof PropertyFilter.Type

/** A property's text: the string itself, the JSON of other values; null when unset. */
export const propertyText = (value: unknown): string | null =>
  value === undefined || value === null ? null : typeof value === "string" ? value : JSON.stringify(value)

/** The filter's values, as text: a list's items, or the one value. */
export const filterTexts = (filter: PropertyFilter): ReadonlyArray<string> =>
  (Array.isArray(filter.value) ? filter.value : [filter.value]).flatMap((v) => {
    const text = propertyText(v)
    return text === null ? [] : [text]
  })

/** Text that reads as a number: optional sign, digits, an optional fraction, an optional exponent. */
export const NUMERIC_TEXT = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/

export const asNumber = (text: string): number | undefined => (NUMERIC_TEXT.test(text) ? Number(text) : undefined)

/** Text that reads as a date: a day, optionally with a time and an offset. */
export const DATE_TEXT = /^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/

/** A date text's instant, in milliseconds: a text without an offset is UTC's. */
export const asInstant = (text: string): number | undefined => {
  if (!DATE_TEXT.test(text)) return undefined
  const ms = Date.parse(
    /[ T]/.test(text) && !/(Z|[+-]\d{2}:?\d{2})$/.test(text) ? `${text.replace(" ", "T")}Z` : text.replace(" ", "T")
  )
  return Number.isNaN(ms) ? undefined : ms
}

/** Whether a regex filter's pattern is one: an invalid pattern matches nothing (on every store). */
export const isPattern = (pattern: string): boolean => {
  try {
    new RegExp(pattern)
    return true
  } catch {
    return false
  }
}

/** One value of the filter against the property's text (set). */
const matchesOne = (operator: PropertyOperator, text: string, value: string): boolean => {
  switch (operator) {
    case "exact":
      return text === value
    case "icontains":
      return text.toLowerCase().includes(value.toLowerCase())
    case "regex":
      return isPattern(value) && new RegExp(value).test(text)
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const left = asNumber(text)
      const right = asNumber(value)
      if (left === undefined || right === undefined) return false
      return operator === "gt"
        ? left > right
        : operator === "gte"
          ? left >= right
          : operator === "lt"
            ? left < right
            : left <= right
    }
    case "is_date_before":
    case "is_date_after": {
      const left = asInstant(text)
      const right = asInstant(value)
      if (left === undefined || right === undefined) return false
      return operator === "is_date_before" ? left < right : left > right
    }
    default:
      return false
  }
}

/** Whether `properties` satisfy the filter: the meaning every store gives it. */
export const matches = (properties: Readonly<Record<string, unknown>>, filter: PropertyFilter): boolean => {
  const operator = filter.operator ?? "exact"
  const text = propertyText(Object.hasOwn(properties, filter.key) ? properties[filter.key] : undefined)
  if (operator === "is_set") return text !== null
  if (operator === "is_not_set") return text === null
  if (Array.isArray(filter.value) && filter.value.length === 0) return true
  const positive = NEGATES[operator]
  if (positive !== undefined)
    return text === null || !filterTexts(filter).some((value) => matchesOne(positive, text, value))
  return text !== null && filterTexts(filter).some((value) => matchesOne(operator, text, value))
}
