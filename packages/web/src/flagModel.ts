// Feature flags as the feature flags API reads and writes them, and the property filters of their
// release conditions (shared with cohorts and survey targeting).

/** One property filter of a condition: a person property, a group's property (of a flag matching
 * groups, with its `group_type_index`), a cohort (`key: "id"`, `value`: its id) or another flag
 * (`key`: its id, `operator: "flag_evaluates_to"`). */
export interface PropertyFilter {
  readonly key: string
  readonly type: "person" | "group" | "cohort" | "flag"
  readonly group_type_index?: number
  readonly operator?: string
  readonly value?: unknown
}

/** A project's group type as `…/groups_types/` lists it. */
export interface GroupType {
  readonly group_type: string
  readonly group_type_index: number
}

/** A flag matching `groupTypeIndex` (null: persons) filters on that group's properties where it
 * filtered on the person's, and the other way round. */
export const propertiesOfSubject = (
  properties: ReadonlyArray<PropertyFilter>,
  groupTypeIndex: number | null
): ReadonlyArray<PropertyFilter> =>
  properties.map((filter) => {
    if (filter.type !== "person" && filter.type !== "group") return filter
    const { group_type_index: _index, ...rest } = filter
    return groupTypeIndex === null
      ? { ...rest, type: "person" }
      : { ...rest, type: "group", group_type_index: groupTypeIndex }
  })

/** A release condition: its filters ANDed, then the rollout percentage; optionally a variant of its own. */
export interface Condition {
  readonly properties: ReadonlyArray<PropertyFilter>
  readonly rollout_percentage?: number | null
  readonly variant?: string | null
}

export interface Variant {
  readonly key: string
  readonly name?: string | null
  readonly rollout_percentage: number
}

export interface FlagFilters {
  readonly groups?: ReadonlyArray<Condition>
  readonly multivariate?: { readonly variants: ReadonlyArray<Variant> } | null
  readonly payloads?: Readonly<Record<string, unknown>>
  readonly [other: string]: unknown
}

export interface FeatureFlag {
  readonly id: number
  readonly key: string
  readonly name: string
  readonly filters: FlagFilters
  readonly active: boolean
  readonly ensure_experience_continuity: boolean
  readonly version: number
  readonly tags: ReadonlyArray<string>
  readonly is_simple_flag: boolean
  readonly rollout_percentage: number | null
  readonly created_by: { readonly email: string; readonly first_name: string } | null
  readonly created_at: string
  readonly last_called_at: string | null
  /** The ids of the experiments using the flag. */
  readonly experiment_set: ReadonlyArray<number>
}

/** The operators flag evaluation supports for person properties (the API's list; a test keeps them
 * equal), with how the editor names them. `in`/`not_in` are cohorts', `flag_evaluates_to` dependencies'. */
export const PERSON_OPERATORS = {
  exact: "equals",
  is_not: "doesn't equal",
  is_set: "is set",
  is_not_set: "is not set",
  icontains: "contains",
  not_icontains: "doesn't contain",
  icontains_multi: "contains any of",
  not_icontains_multi: "contains none of",
  starts_with: "starts with",
  not_starts_with: "doesn't start with",
  ends_with: "ends with",
  not_ends_with: "doesn't end with",
  regex: "matches regex",
  not_regex: "doesn't match regex",
  gt: ">",
  gte: "≥",
  lt: "<",
  lte: "≤",
  between: "between",
  not_between: "not between",
  is_date_before: "date before",
  is_date_after: "date after",
  is_date_exact: "date is",
  semver_eq: "semver =",
  semver_neq: "semver ≠",
  semver_gt: "semver >",
  semver_gte: "semver ≥",
  semver_lt: "semver <",
  semver_lte: "semver ≤",
  semver_tilde: "semver ~",
  semver_caret: "semver ^",
  semver_wildcard: "semver wildcard"
} as const

export const COHORT_OPERATORS = { in: "in cohort", not_in: "not in cohort" } as const
export const DEPENDENCY_OPERATORS = { flag_evaluates_to: "evaluates to" } as const

/** Operators whose filter has no value. */
const VALUELESS = new Set(["is_set", "is_not_set"])
/** Operators whose value is a list, typed comma-separated. */
const LISTED = new Set(["icontains_multi", "not_icontains_multi", "between", "not_between"])

/** A filter's value as typed in the editor. */
const valueText = (filter: PropertyFilter) =>
  filter.value === undefined || filter.value === null
    ? ""
    : Array.isArray(filter.value)
      ? filter.value.join(", ")
      : String(filter.value)

/** The value the API takes for `text` typed with `operator`: lists (and `between`'s two bounds) split
 * on commas, numbers for numeric comparisons, `true`/`false` for dependencies. */
const valueOf = (operator: string, text: string): unknown => {
  if (VALUELESS.has(operator)) return undefined
  if (LISTED.has(operator))
    return text
      .split(",")
      .map((part) => part.trim())
      .filter((part) => part !== "")
  if (["gt", "gte", "lt", "lte"].includes(operator) && text.trim() !== "" && !Number.isNaN(Number(text)))
    return Number(text)
  if (operator === "flag_evaluates_to") return text === "true" ? true : text === "false" ? false : text
  return text
}

/** A filter as the editor holds it: a person property's or dependency's value as typed. */
export const toDraft = (filter: PropertyFilter): PropertyFilter =>
  filter.type === "cohort" ? filter : { ...filter, value: valueText(filter) }

/** A filter as the API takes it: the typed value read as its operator needs. */
export const fromDraft = (filter: PropertyFilter): PropertyFilter => {
  if (filter.type === "cohort") return filter
  const operator = filter.operator ?? "exact"
  const { value: _typed, ...rest } = filter
  const value = valueOf(operator, String(filter.value ?? ""))
  return value === undefined ? rest : { ...rest, value }
}

export const hasValue = (operator: string) => !VALUELESS.has(operator)

/** How many people a flag's conditions let in, in words. */
export const rolloutSummary = (flag: FeatureFlag) => {
  const groups = flag.filters.groups ?? []
  const variants = flag.filters.multivariate?.variants ?? []
  const kind = variants.length > 0 ? `${variants.length} variants` : "boolean"
  if (groups.length === 0) return `${kind}, nobody`
  if (flag.is_simple_flag) return `${kind}, ${flag.rollout_percentage ?? 100}% of everyone`
  return `${kind}, ${groups.length} condition${groups.length === 1 ? "" : "s"}`
}
