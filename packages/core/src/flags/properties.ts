import { parseDateText, timestampInstant } from "../domain/dateText.js"
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
  if (Array.isArray(value))
    return `[${value.map((item) => (item === undefined ? "null" : canonicalJson(item))).join(",")}]`
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
export const toNumber = (value: unknown): number | undefined =>
  typeof value === "number" ? value : parseRustFloat(toText(value))

const asciiLower = (text: string): string => text.replace(/[A-Z]/g, (c) => c.toLowerCase())

const isBooleanLike = (value: unknown): boolean =>
  typeof value === "boolean" ||
  (typeof value === "string" && ["true", "false"].includes(value.toLowerCase())) ||
  (Array.isArray(value) && value.every(isBooleanLike))

const isTruthy = (value: unknown): boolean =>
  typeof value === "boolean"
    ? value
    : typeof value === "string"
      ? value.toLowerCase() === "true"
      : Array.isArray(value) && value.every(isTruthy)

/** `exact` against one filter value, prepared once: legacy truthiness, or case-blind JSON text. */
const exactMatcher = (target: unknown) => {
  const booleanLike = isBooleanLike(target)
  const truthy = isTruthy(target)
  const emptyArray = Array.isArray(target) && target.length === 0
  const texts = new Set((Array.isArray(target) ? target : [target]).map((item) => toText(item).toLowerCase()))
  return (actual: unknown, version: 1 | 2): boolean => {
    // Legacy matching compares truthiness whenever the filter is boolean-like ("true", false,
    // ["true"], ...); version 2 keeps that only for the empty array.
    if ((version !== 2 && booleanLike) || emptyArray) return truthy === isTruthy(actual)
    if (version === 2 && typeof actual === "number" && booleanLike) return false
    return texts.has(toText(actual).toLowerCase())
  }
}

const compareNumbers = (operator: "gt" | "gte" | "lt" | "lte", left: number, right: number): boolean =>
  operator === "gt"
    ? left > right
    : operator === "gte"
      ? left >= right
      : operator === "lt"
        ? left < right
        : left <= right

/** A property value as a date: numbers (and numeric text) are Unix seconds, other text is parsed. */
const propertyDate = (value: unknown, timezone: string, now: Date): bigint | undefined => {
  if (typeof value === "number") return timestampInstant(value)
  if (typeof value !== "string") return undefined
  const seconds = parseRustFloat(value)
  return seconds !== undefined ? timestampInstant(seconds) : parseDateText(value, timezone, now)
}

/** A date filter; its own date depends on the time zone and, for relative dates, on now: kept for the last pair. */
const dateMatcher = (operator: "is_date_before" | "is_date_after" | "is_date_exact", value: string): Matcher => {
  let last: { readonly timezone: string; readonly now: number; readonly date: bigint | undefined } | undefined
  return (actual, options) => {
    const timezone = options.timezone ?? "UTC"
    const now = options.now ?? new Date()
    const actualDate = propertyDate(actual, timezone, now)
    if (actualDate === undefined) return false
    if (last === undefined || last.timezone !== timezone || last.now !== now.getTime()) {
      last = { timezone, now: now.getTime(), date: parseDateText(value, timezone, now) }
    }
    const filterDate = last.date
    if (filterDate === undefined) return false
    return operator === "is_date_before"
      ? actualDate < filterDate
      : operator === "is_date_after"
        ? actualDate > filterDate
        : actualDate === filterDate
  }
}

const semverMatcher = (operator: string, value: unknown): ((actual: unknown) => boolean) => {
  const versionOf = (actual: unknown) => toVersion(toText(actual))
  if (operator === "semver_tilde" || operator === "semver_caret" || operator === "semver_wildcard") {
    const requirement = parseVersionReq(requirementText(operator, toText(value)))
    if (requirement === undefined) return () => false
    return (actual) => {
      const version = versionOf(actual)
      return version !== undefined && matchesReq(requirement, version)
    }
  }
  const target = toVersion(toText(value))
  if (target === undefined) return () => false
  const accepts = (order: number): boolean => {
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
  return (actual) => {
    const version = versionOf(actual)
    return version !== undefined && accepts(compareVersions(version, target))
  }
}

/**
 * `person_metadata` filters (persons-table columns such as `created_at`) read this prefix plus their
 * key in the person properties, so a column never collides with a user property of the same name.
 */
export const PERSON_METADATA_KEY_PREFIX = "__posthog_person_metadata__"

/** A property value matcher for one filter, its value read once into what the operator compares with. */
type Matcher = (actual: unknown, options: MatchOptions) => boolean

/** The matcher of a filter's operator and value; undefined for operators that never match here. */
const valueMatcher = (operator: string, value: unknown): Matcher | undefined => {
  switch (operator) {
    case "exact":
    case "is_not": {
      const matches = exactMatcher(value)
      return operator === "exact"
        ? (actual, options) => matches(actual, options.propertyMatchingVersion ?? 1)
        : (actual, options) => !matches(actual, options.propertyMatchingVersion ?? 1)
    }
    case "icontains":
    case "not_icontains":
    case "starts_with":
    case "not_starts_with":
    case "ends_with":
    case "not_ends_with": {
      const negated = operator.startsWith("not_")
      const needle = asciiLower(toText(value))
      const test = operator.endsWith("icontains")
        ? (haystack: string) => haystack.includes(needle)
        : operator.endsWith("starts_with")
          ? (haystack: string) => haystack.startsWith(needle)
          : (haystack: string) => haystack.endsWith(needle)
      return (actual) => test(asciiLower(toText(actual))) !== negated
    }
    case "icontains_multi":
    case "not_icontains_multi": {
      const needles = (Array.isArray(value) ? value : [value]).map((item) => asciiLower(toText(item)))
      const negated = operator === "not_icontains_multi"
      return (actual) => {
        const haystack = asciiLower(toText(actual))
        return needles.some((needle) => haystack.includes(needle)) !== negated
      }
    }
    case "regex":
    case "not_regex": {
      const compiled = compilePattern(toText(value))
      if (compiled === null) return () => false
      return (actual) => {
        const found = searchPattern(compiled, toText(actual))
        // Too long to search safely: the service's backtrack limit also ends in no match for both.
        if (found === undefined) return false
        return operator === "regex" ? found : !found
      }
    }
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const right = toNumber(value)
      // [srv] a non-numeric side is an error, hence no match (the SDK compares the strings).
      if (right === undefined) return () => false
      return (actual) => {
        const left = toNumber(actual)
        return left !== undefined && compareNumbers(operator, left, right)
      }
    }
    case "between":
    case "not_between": {
      if (!Array.isArray(value) || value.length !== 2) return () => false
      const low = toNumber(value[0])
      const high = toNumber(value[1])
      if (low === undefined || high === undefined || Number.isNaN(low) || Number.isNaN(high) || low > high)
        return () => false
      return (actual) => {
        const number = toNumber(actual)
        if (number === undefined || Number.isNaN(number)) return false
        return (number >= low && number <= high) === (operator === "between")
      }
    }
    case "is_date_before":
    case "is_date_after":
    case "is_date_exact":
      return typeof value === "string" ? dateMatcher(operator, value) : () => false
    case "semver_eq":
    case "semver_neq":
    case "semver_gt":
    case "semver_gte":
    case "semver_lt":
    case "semver_lte":
    case "semver_tilde":
    case "semver_caret":
    case "semver_wildcard": {
      const matches = semverMatcher(operator, value)
      return (actual) => matches(actual)
    }
    default:
      return undefined
  }
}

/** Operators that match a filter whose key is absent (the negations). */
const ABSENT_MATCHES = new Set([
  "is_not",
  "not_icontains",
  "not_starts_with",
  "not_ends_with",
  "not_icontains_multi",
  "not_regex",
  "not_between",
  "is_not_set"
])

type FilterMatcher = (properties: Readonly<Record<string, unknown>>, options: MatchOptions) => boolean

const compileFilter = (filter: FlagPropertyFilter): FilterMatcher => {
  const operator = filter.operator ?? "exact"
  const key = filter.type === "person_metadata" ? PERSON_METADATA_KEY_PREFIX + filter.key : filter.key
  if (operator === "is_set") return (properties) => Object.hasOwn(properties, key) && properties[key] !== undefined
  if (operator === "is_not_set")
    return (properties) => !(Object.hasOwn(properties, key) && properties[key] !== undefined)
  // The service reads a JSON null filter value as "no value": no match for any other operator.
  const value = filter.value
  const matcher = value === undefined || value === null ? undefined : valueMatcher(operator, value)
  if (matcher === undefined) return () => false
  const absent = ABSENT_MATCHES.has(operator)
  return (properties, options) =>
    Object.hasOwn(properties, key) && properties[key] !== undefined ? matcher(properties[key], options) : absent
}

// Filters are compiled once per filter object: a snapshot's definitions are the same objects for
// every request until the snapshot is replaced, when the old ones are collected with it.
const compiled = new WeakMap<FlagPropertyFilter, FilterMatcher>()

/**
 * Whether `properties` satisfy `filter`. Cohort (`in`/`not_in`) and flag (`flag_evaluates_to`)
 * filters are matched by the evaluator, not here, and give false, as do unknown operators.
 */
export const matchProperty = (
  filter: FlagPropertyFilter,
  properties: Readonly<Record<string, unknown>>,
  options: MatchOptions = {}
): boolean => {
  let matcher = compiled.get(filter)
  if (matcher === undefined) {
    matcher = compileFilter(filter)
    compiled.set(filter, matcher)
  }
  return matcher(properties, options)
}
