import { parseDateText, timestampInstant } from "./dates.js"
import type { FlagPropertyFilter } from "./model.js"
import { compilePattern, searchPattern } from "./regex.js"
import { compareVersions, matchesReq, parseVersionReq, requirementText, toVersion } from "./semver.js"

// One property filter against one set of properties, with the flags service's semantics: an absent
// key gives a definite answer (no "inconclusive" as in SDK local evaluation).

/** Every operator a flag definition may use; the API validates definitions against this list. */
export const FLAG_OPERATORS = [
  "exact",
  "is_not",
  "is_set",
  "is_not_set",
  "icontains",
  "not_icontains",
  "icontains_multi",
  "not_icontains_multi",
  "starts_with",
  "not_starts_with",
  "ends_with",
  "not_ends_with",
  "regex",
  "not_regex",
  "gt",
  "gte",
  "lt",
  "lte",
  "between",
  "not_between",
  "is_date_before",
  "is_date_after",
  "is_date_exact",
  "semver_eq",
  "semver_neq",
  "semver_gt",
  "semver_gte",
  "semver_lt",
  "semver_lte",
  "semver_tilde",
  "semver_caret",
  "semver_wildcard",
  "in",
  "not_in",
  "flag_evaluates_to"
] as const
export type FlagOperator = (typeof FLAG_OPERATORS)[number]

const KNOWN = new Set<string>(FLAG_OPERATORS)
export const isFlagOperator = (operator: string): operator is FlagOperator => KNOWN.has(operator)

export interface MatchOptions {
  /** 1 (legacy, default) or 2: version 2 drops the boolean-like handling of `exact`. */
  readonly propertyMatchingVersion?: 1 | 2 | undefined
  /** The team's time zone, for date values without an offset. Defaults to UTC. */
  readonly timezone?: string | undefined
  /** "Now" for relative dates such as "-7d". Defaults to the current time. */
  readonly now?: Date | undefined
}

/** JSON of a value with object keys sorted, as serde_json prints its (ordered) maps. */
const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? "null" : canonicalJson(item))).join(",")}]`
  if (typeof value === "object" && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .flatMap((key) => {
        const item = (value as Record<string, unknown>)[key]
        return item === undefined ? [] : [`${JSON.stringify(key)}:${canonicalJson(item)}`]
      })
    return `{${entries.join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

/** The service's `to_string_representation`: strings as they are, anything else as compact JSON. */
export const toText = (value: unknown): string => (typeof value === "string" ? value : canonicalJson(value))

// Rust's `str::parse::<f64>`: the whole string, no whitespace; "inf"/"infinity"/"nan" in any case.
const RUST_FLOAT = /^[+-]?(?:inf|infinity|nan|(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)$/i

export const parseRustFloat = (text: string): number | undefined => {
  if (!RUST_FLOAT.test(text)) return undefined
  const unsigned = text.replace(/^[+-]/, "").toLowerCase()
  const sign = text.startsWith("-") ? -1 : 1
  if (unsigned === "nan") return Number.NaN
  if (unsigned === "inf" || unsigned === "infinity") return sign * Number.POSITIVE_INFINITY
  return Number(text)
}

/** The service's `to_f64_representation`: numbers, or text that parses entirely as a float. */
export const toNumber = (value: unknown): number | undefined => (typeof value === "number" ? value : parseRustFloat(toText(value)))

const asciiLower = (text: string): string => text.replace(/[A-Z]/g, (c) => c.toLowerCase())

const isBooleanLike = (value: unknown): boolean =>
  typeof value === "boolean" ||
  (typeof value === "string" && ["true", "false"].includes(value.toLowerCase())) ||
  (Array.isArray(value) && value.every(isBooleanLike))

const isTruthy = (value: unknown): boolean =>
  typeof value === "boolean" ? value : typeof value === "string" ? value.toLowerCase() === "true" : Array.isArray(value) && value.every(isTruthy)

const exactMatch = (target: unknown, actual: unknown, version: 1 | 2): boolean => {
  // Legacy matching compares truthiness whenever the filter is boolean-like ("true", false,
  // ["true"], ...); version 2 keeps that only for the empty array.
  if ((version !== 2 && isBooleanLike(target)) || (Array.isArray(target) && target.length === 0)) return isTruthy(target) === isTruthy(actual)
  if (version === 2 && typeof actual === "number" && isBooleanLike(target)) return false
  const actualText = toText(actual).toLowerCase()
  if (Array.isArray(target)) return target.some((item) => toText(item).toLowerCase() === actualText)
  return toText(target).toLowerCase() === actualText
}

const compareNumbers = (operator: "gt" | "gte" | "lt" | "lte", left: number, right: number): boolean =>
  operator === "gt" ? left > right : operator === "gte" ? left >= right : operator === "lt" ? left < right : left <= right

/** A property value as a date: numbers (and numeric text) are Unix seconds, other text is parsed. */
const propertyDate = (value: unknown, timezone: string, now: Date): bigint | undefined => {
  if (typeof value === "number") return timestampInstant(value)
  if (typeof value !== "string") return undefined
  const seconds = parseRustFloat(value)
  return seconds !== undefined ? timestampInstant(seconds) : parseDateText(value, timezone, now)
}

const matchDate = (operator: "is_date_before" | "is_date_after" | "is_date_exact", actual: unknown, value: unknown, options: MatchOptions): boolean => {
  const timezone = options.timezone ?? "UTC"
  const now = options.now ?? new Date()
  const actualDate = propertyDate(actual, timezone, now)
  if (actualDate === undefined || typeof value !== "string") return false
  const filterDate = parseDateText(value, timezone, now)
  if (filterDate === undefined) return false
  return operator === "is_date_before" ? actualDate < filterDate : operator === "is_date_after" ? actualDate > filterDate : actualDate === filterDate
}

const matchSemver = (operator: string, actual: unknown, value: unknown): boolean => {
  const version = toVersion(toText(actual))
  if (version === undefined) return false
  if (operator === "semver_tilde" || operator === "semver_caret" || operator === "semver_wildcard") {
    const requirement = parseVersionReq(requirementText(operator, toText(value)))
    return requirement !== undefined && matchesReq(requirement, version)
  }
  const target = toVersion(toText(value))
  if (target === undefined) return false
  const order = compareVersions(version, target)
  switch (operator) {
    case "semver_eq":
      return order === 0
    case "semver_neq":
      return order !== 0
    case "semver_gt":
      return order > 0
    case "semver_gte":
      return order >= 0
    case "semver_lt":
      return order < 0
    default:
      return order <= 0
  }
}

/**
 * `person_metadata` filters (persons-table columns such as `created_at`) read this prefix plus their
 * key in the person properties, so a column never collides with a user property of the same name.
 */
export const PERSON_METADATA_KEY_PREFIX = "__posthog_person_metadata__"

/**
 * Whether `properties` satisfy `filter`. Cohort (`in`/`not_in`) and flag (`flag_evaluates_to`)
 * filters are matched by the evaluator, not here, and give false, as do unknown operators.
 */
export const matchProperty = (filter: FlagPropertyFilter, properties: Readonly<Record<string, unknown>>, options: MatchOptions = {}): boolean => {
  const operator = filter.operator ?? "exact"
  const key = filter.type === "person_metadata" ? PERSON_METADATA_KEY_PREFIX + filter.key : filter.key
  const present = Object.hasOwn(properties, key) && properties[key] !== undefined
  if (operator === "is_set") return present
  if (operator === "is_not_set") return !present
  // The service reads a JSON null filter value as "no value": no match for any other operator.
  const value = filter.value
  if (value === undefined || value === null) return false
  const actual = properties[key]

  switch (operator) {
    case "exact":
    case "is_not": {
      if (!present) return operator === "is_not"
      const matched = exactMatch(value, actual, options.propertyMatchingVersion ?? 1)
      return operator === "exact" ? matched : !matched
    }
    case "icontains":
    case "not_icontains":
    case "starts_with":
    case "not_starts_with":
    case "ends_with":
    case "not_ends_with": {
      const negated = operator.startsWith("not_")
      if (!present) return negated
      const haystack = asciiLower(toText(actual))
      const needle = asciiLower(toText(value))
      const test = operator.endsWith("icontains") ? haystack.includes(needle) : operator.endsWith("starts_with") ? haystack.startsWith(needle) : haystack.endsWith(needle)
      return negated ? !test : test
    }
    case "icontains_multi":
    case "not_icontains_multi": {
      if (!present) return operator === "not_icontains_multi"
      const haystack = asciiLower(toText(actual))
      const any = (Array.isArray(value) ? value : [value]).some((item) => haystack.includes(asciiLower(toText(item))))
      return operator === "icontains_multi" ? any : !any
    }
    case "regex":
    case "not_regex": {
      if (!present) return operator === "not_regex"
      const compiled = compilePattern(toText(value))
      if (compiled === null) return false
      const found = searchPattern(compiled, toText(actual))
      // Too long to search safely: the service's backtrack limit also ends in no match for both.
      if (found === undefined) return false
      return operator === "regex" ? found : !found
    }
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      if (!present) return false
      const left = toNumber(actual)
      const right = toNumber(value)
      // [srv] a non-numeric side is an error, hence no match (the SDK compares the strings).
      if (left === undefined || right === undefined) return false
      return compareNumbers(operator, left, right)
    }
    case "between":
    case "not_between": {
      if (!present) return operator === "not_between"
      if (!Array.isArray(value) || value.length !== 2) return false
      const low = toNumber(value[0])
      const high = toNumber(value[1])
      if (low === undefined || high === undefined || Number.isNaN(low) || Number.isNaN(high) || low > high) return false
      const number = toNumber(actual)
      if (number === undefined || Number.isNaN(number)) return false
      const inside = number >= low && number <= high
      return operator === "between" ? inside : !inside
    }
    case "is_date_before":
    case "is_date_after":
    case "is_date_exact":
      return present && matchDate(operator, actual, value, options)
    case "semver_eq":
    case "semver_neq":
    case "semver_gt":
    case "semver_gte":
    case "semver_lt":
    case "semver_lte":
    case "semver_tilde":
    case "semver_caret":
    case "semver_wildcard":
      return present && matchSemver(operator, actual, value)
    default:
      return false
  }
}
