import { Schema } from "effect"
import { isStorableDate } from "../domain/dates.js"
import type * as A from "./ast.js"

// `{filters}` in a ZedQL query: the request's date range and property filters, as conditions on
// the query's events, built as syntax (never as text), so they are resolved like the rest.

export const PropertyFilter = Schema.Struct({
  key: Schema.String,
  value: Schema.optional(Schema.Unknown),
  operator: Schema.optional(Schema.String),
  type: Schema.optional(Schema.String)
})

const RELATIVE_UNITS: Readonly<Record<string, string>> = { h: "Hour", d: "Day", w: "Week", m: "Month", q: "Quarter", y: "Year" }
const STARTS: Readonly<Record<string, string>> = { dStart: "toStartOfDay", wStart: "toStartOfWeek", mStart: "toStartOfMonth", qStart: "toStartOfQuarter", yStart: "toStartOfYear" }
const RELATIVE = /^-(\d+)([hdwmqy])$/
// A date with an optional time and offset: what toDateTime reads, in the project's time zone when no offset is given.
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:Z|[+-]\d{2}:?\d{2})?$/

// Each unit's length at its longest, so that a relative date found in range is.
const UNIT_MS: Readonly<Record<string, number>> = { h: 3_600_000, d: 86_400_000, w: 604_800_000, m: 2_678_400_000, q: 7_948_800_000, y: 31_622_400_000 }

/** Whether a relative date (`-7d`) names a day stores hold, reckoned from now. */
const relativeInRange = (text: string): boolean => {
  const [, amount, unit] = RELATIVE.exec(text)!
  return isStorableDate(new Date(Date.now() - Number(amount) * UNIT_MS[unit!]!))
}

/** A date range's bound: relative (`-7d`), a start (`mStart`), `all`, or a date, within the years stores hold. */
export const DateBoundText = Schema.String.pipe(Schema.filter(
  (text) => text === "" || text === "all" || (RELATIVE.test(text) && relativeInRange(text)) || Object.hasOwn(STARTS, text) ||
    (ISO_DATE.test(text) && isStorableDate(new Date(text.replace(" ", "T")))),
  { message: () => "Expected a date (2024-01-31, 2024-01-31T12:00:00Z), a relative date (-7d, -24h, -3m), dStart/wStart/mStart/qStart/yStart or all, within the years 1 to 9999" }
))

export const QueryFilters = Schema.Struct({
  dateRange: Schema.optional(Schema.NullOr(Schema.Struct({
    date_from: Schema.optional(Schema.NullOr(DateBoundText)),
    date_to: Schema.optional(Schema.NullOr(DateBoundText))
  }))),
  properties: Schema.optional(Schema.NullOr(Schema.Array(PropertyFilter))),
  filterTestAccounts: Schema.optional(Schema.NullOr(Schema.Boolean))
}).annotations({ identifier: "ZedQLFilters" })
export type QueryFilters = typeof QueryFilters.Type

const constant = (value: A.Constant["value"]): A.Expr => ({ node: "Constant", value })
const field = (...chain: Array<string>): A.Expr => ({ node: "Field", chain })
const call = (name: string, ...args: Array<A.Expr>): A.Expr => ({ node: "Call", name, args })
const compare = (op: A.CompareOp, left: A.Expr, right: A.Expr): A.Expr => ({ node: "CompareOperation", op, left, right })

/** An instant a date range names: `-7d`, `mStart`, `2024-01-01`…; undefined for "all" or nothing. */
export const dateBound = (text: string | null | undefined): A.Expr | undefined => {
  if (text == null || text === "" || text === "all") return undefined
  const relative = RELATIVE.exec(text)
  if (relative) {
    return { node: "ArithmeticOperation", op: "-", left: call("now"), right: call(`toInterval${RELATIVE_UNITS[relative[2]!]}`, constant(Number(relative[1]))) }
  }
  // Own keys only: a date_from of "constructor" is a date to parse, not Object.prototype's.
  const start = Object.hasOwn(STARTS, text) ? STARTS[text] : undefined
  if (start) return call("toDateTime", call(start, call("now")))
  return call("toDateTime", constant(text))
}

const property = (filter: typeof PropertyFilter.Type): A.Expr =>
  filter.type === "person" ? field("person", "properties", filter.key) : field("properties", filter.key)

const values = (value: unknown): Array<A.Expr> =>
  (Array.isArray(value) ? value : [value]).map((v) => constant(typeof v === "number" || typeof v === "boolean" ? v : v == null ? null : String(v)))

/** PostHog's property operators that `propertyCondition` knows. */
export const PROPERTY_OPERATORS = ["exact", "is_not", "icontains", "not_icontains", "regex", "not_regex", "gt", "gte", "lt", "lte", "is_set", "is_not_set", "is_date_before", "is_date_after"] as const

/** The conditions of one property filter, with PostHog's operators. */
export const propertyCondition = (filter: typeof PropertyFilter.Type): A.Expr => {
  const subject = property(filter)
  const text = (e: A.Expr) => call("toString", e)
  const list = values(filter.value)
  switch (filter.operator ?? "exact") {
    case "exact":
      return list.length === 1 ? compare("==", text(subject), text(list[0]!)) : compare("in", text(subject), { node: "Tuple", exprs: list.map(text) })
    case "is_not":
      return list.length === 1 ? compare("!=", text(subject), text(list[0]!)) : compare("not in", text(subject), { node: "Tuple", exprs: list.map(text) })
    case "icontains":
      return compare("ilike", text(subject), call("concat", constant("%"), text(list[0]!), constant("%")))
    case "not_icontains":
      return compare("not ilike", text(subject), call("concat", constant("%"), text(list[0]!), constant("%")))
    case "regex":
      return compare("=~", text(subject), text(list[0]!))
    case "not_regex":
      return compare("!~", text(subject), text(list[0]!))
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const op = { gt: ">", gte: ">=", lt: "<", lte: "<=" }[filter.operator as "gt"] as A.CompareOp
      return compare(op, call("toFloat", subject), call("toFloat", text(list[0]!)))
    }
    case "is_set":
      return call("isNotNull", subject)
    case "is_not_set":
      return call("isNull", subject)
    case "is_date_before":
      return compare("<", call("toDateTime", subject), call("toDateTime", text(list[0]!)))
    case "is_date_after":
      return compare(">", call("toDateTime", subject), call("toDateTime", text(list[0]!)))
    default:
      throw new UnsupportedFilter(filter.operator ?? "")
  }
}

export class UnsupportedFilter extends Error {
  constructor(readonly operator: string) {
    super(`Unsupported property filter operator "${operator}"`)
  }
}

/** The conditions `{filters}` stands for. */
export const filterConditions = (filters: QueryFilters | undefined): ReadonlyArray<A.Expr> => {
  if (filters === undefined) return []
  const from = dateBound(filters.dateRange?.date_from)
  const to = dateBound(filters.dateRange?.date_to)
  return [
    ...(from ? [compare(">=", field("timestamp"), from)] : []),
    ...(to ? [compare("<", field("timestamp"), to)] : []),
    ...(filters.properties ?? []).map(propertyCondition)
  ]
}
