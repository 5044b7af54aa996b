import { Schema } from "effect"
import { isStorableDate } from "../domain/dates.js"
import { isPattern, NEGATES, type PropertyOperator, PropertyFilter } from "../filters/property.js"
import { cohortIdOf } from "../flags/cohorts.js"
import type * as A from "./ast.js"

// `{filters}` in a ZedQL query: the request's date range and property filters, as conditions on
// the query's events, built as syntax (never as text), so they are resolved like the rest.

const RELATIVE_UNITS: Readonly<Record<string, string>> = {
  h: "Hour",
  d: "Day",
  w: "Week",
  m: "Month",
  q: "Quarter",
  y: "Year"
}
const STARTS: Readonly<Record<string, string>> = {
  dStart: "toStartOfDay",
  wStart: "toStartOfWeek",
  mStart: "toStartOfMonth",
  qStart: "toStartOfQuarter",
  yStart: "toStartOfYear"
}
const RELATIVE = /^-(\d+)([hdwmqy])$/
// A date with an optional time and offset: what toDateTime reads, in the project's time zone when no offset is given.
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:Z|[+-]\d{2}:?\d{2})?$/

// Each unit's length at its longest, so that a relative date found in range is.
const UNIT_MS: Readonly<Record<string, number>> = {
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
  m: 2_678_400_000,
  q: 7_948_800_000,
  y: 31_622_400_000
}

/** Whether a relative date (`-7d`) names a day stores hold, reckoned from now. */
const relativeInRange = (text: string): boolean => {
  const [, amount, unit] = RELATIVE.exec(text)!
  return isStorableDate(new Date(Date.now() - Number(amount) * UNIT_MS[unit!]!))
}

/** A date range's bound: relative (`-7d`), a start (`mStart`), `all`, or a date, within the years stores hold. */
export const DateBoundText = Schema.String.pipe(
  Schema.filter(
    (text) =>
      text === "" ||
      text === "all" ||
      (RELATIVE.test(text) && relativeInRange(text)) ||
      Object.hasOwn(STARTS, text) ||
      (ISO_DATE.test(text) && isStorableDate(new Date(text.replace(" ", "T")))),
    {
      message: () =>
        "Expected a date (2024-01-31, 2024-01-31T12:00:00Z), a relative date (-7d, -24h, -3m), dStart/wStart/mStart/qStart/yStart or all, within the years 1 to 9999"
    }
  )
)

/**
 * A property filter of a query or an insight: on the event's or the person's properties, or a cohort
 * (`{"type": "cohort", "key": "id", "value": N}`, the events of the cohort's persons). Other types
 * are refused rather than ignored.
 */
export const QueryPropertyFilter = PropertyFilter.pipe(
  Schema.filter(
    (f) =>
      f.type === undefined ||
      f.type === "event" ||
      f.type === "person" ||
      (f.type === "cohort" && cohortIdOf(f) !== undefined && f.operator === undefined) ||
      (f.type === "cohort"
        ? "A cohort filter's value is the cohort's id, and it takes no operator"
        : `Property filters of type "${f.type}" are not supported (only event, person and cohort)`)
  )
)

export const QueryFilters = Schema.Struct({
  dateRange: Schema.optional(
    Schema.NullOr(
      Schema.Struct({
        date_from: Schema.optional(Schema.NullOr(DateBoundText)),
        date_to: Schema.optional(Schema.NullOr(DateBoundText))
      })
    )
  ),
  properties: Schema.optional(Schema.NullOr(Schema.Array(QueryPropertyFilter))),
  filterTestAccounts: Schema.optional(Schema.NullOr(Schema.Boolean))
}).annotations({ identifier: "ZedQLFilters" })
export type QueryFilters = typeof QueryFilters.Type

const constant = (value: A.Constant["value"]): A.Expr => ({ node: "Constant", value })
const field = (...chain: Array<string>): A.Expr => ({ node: "Field", chain })
const call = (name: string, ...args: Array<A.Expr>): A.Expr => ({ node: "Call", name, args })
const compare = (op: A.CompareOp, left: A.Expr, right: A.Expr): A.Expr => ({
  node: "CompareOperation",
  op,
  left,
  right
})

/** An instant a date range names: `-7d`, `mStart`, `2024-01-01`…; undefined for "all" or nothing. */
export const dateBound = (text: string | null | undefined): A.Expr | undefined => {
  if (text == null || text === "" || text === "all") return undefined
  const relative = RELATIVE.exec(text)
  if (relative) {
    return {
      node: "ArithmeticOperation",
      op: "-",
      left: call("now"),
      right: call(`toInterval${RELATIVE_UNITS[relative[2]!]}`, constant(Number(relative[1])))
    }
  }
  // Own keys only: a date_from of "constructor" is a date to parse, not Object.prototype's.
  const start = Object.hasOwn(STARTS, text) ? STARTS[text] : undefined
  if (start) return call("toDateTime", call(start, call("now")))
  return call("toDateTime", constant(text))
}

const property = (filter: PropertyFilter): A.Expr =>
  filter.type === "person" ? field("person", "properties", filter.key) : field("properties", filter.key)

const valueOf = (v: unknown): A.Expr =>
  constant(typeof v === "number" || typeof v === "boolean" ? v : v == null ? null : String(v))

const text = (e: A.Expr) => call("toString", e)

const COMPARISONS: Partial<Record<PropertyOperator, A.CompareOp>> = { gt: ">", gte: ">=", lt: "<", lte: "<=" }

/** One value of a filter against its property, for the operators that are not negations. */
const condition = (operator: PropertyOperator, subject: A.Expr, value: A.Expr): A.Expr => {
  switch (operator) {
    case "exact":
      return compare("==", text(subject), text(value))
    case "icontains":
      return compare("ilike", text(subject), call("concat", constant("%"), text(value), constant("%")))
    case "regex":
      return value.node === "Constant" && typeof value.value === "string" && !isPattern(value.value)
        ? constant(false)
        : compare("=~", text(subject), text(value))
    case "is_date_before":
      return compare("<", call("toDateTime", subject), call("toDateTime", text(value)))
    case "is_date_after":
      return compare(">", call("toDateTime", subject), call("toDateTime", text(value)))
    default: {
      const op = COMPARISONS[operator]
      if (op === undefined) throw new UnsupportedFilter(operator)
      return compare(op, call("toFloat", subject), call("toFloat", text(value)))
    }
  }
}

/** The condition of one property filter, with the meaning filters/property.ts gives it. */
export const propertyCondition = (filter: PropertyFilter): A.Expr => {
  const operator = filter.operator ?? "exact"
  const subject = property(filter)
  if (operator === "is_set") return call("isNotNull", subject)
  if (operator === "is_not_set") return call("isNull", subject)
  // An empty list filters nothing out.
  if (Array.isArray(filter.value) && filter.value.length === 0) return constant(true)
  const values = (Array.isArray(filter.value) ? filter.value : [filter.value]).filter((v) => v != null).map(valueOf)
  const any = (op: PropertyOperator) =>
    values.length === 0
      ? constant(false)
      : values.length === 1
        ? condition(op, subject, values[0]!)
        : call("or", ...values.map((v) => condition(op, subject, v)))
  const positive = NEGATES[operator]
  // Negated: unset, or none of the values.
  return positive === undefined ? any(operator) : call("or", call("isNull", subject), call("not", any(positive)))
}

/** The condition of a query's property filter: a cohort's as `person_id IN COHORT N`, the others'
 * as `propertyCondition` gives them. */
export const queryFilterCondition = (filter: PropertyFilter): A.Expr =>
  filter.type === "cohort"
    ? compare("in cohort", field("person_id"), constant(cohortIdOf(filter)!))
    : propertyCondition(filter)

/** The cohorts `{filters}` names, whose members the query needs before it compiles. */
export const filterCohorts = (filters: QueryFilters | undefined): ReadonlyArray<number> =>
  (filters?.properties ?? []).flatMap((f) => (f.type === "cohort" ? [cohortIdOf(f)!] : []))

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
    ...(filters.properties ?? []).map(queryFilterCondition)
  ]
}
