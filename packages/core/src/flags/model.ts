// Feature flag definitions and evaluation inputs and outputs, in PostHog's shapes (the same JSON is
// stored, served to SDKs for local evaluation, and evaluated here).

export interface FlagPropertyFilter {
  readonly key: string
  readonly value?: unknown
  /** Defaults to "exact". */
  readonly operator?: string | undefined
  /** "person" (default), "group", "cohort", "flag", "person_metadata". */
  readonly type?: string | undefined
  readonly group_type_index?: number | null | undefined
  /** Cohort definitions only: inverts the filter. */
  readonly negation?: boolean | undefined
  /** Flag filters as served for local evaluation: transitive dependency keys, direct one last. */
  readonly dependency_chain?: ReadonlyArray<string> | undefined
}

export interface FlagCondition {
  readonly properties?: ReadonlyArray<FlagPropertyFilter> | undefined
  /** null or absent = 100; may be fractional. */
  readonly rollout_percentage?: number | null | undefined
  readonly variant?: string | null | undefined
  /** Present (even null) overrides the flag's aggregation for this condition. */
  readonly aggregation_group_type_index?: number | null | undefined
}

export interface FlagVariant {
  readonly key: string
  readonly name?: string | null | undefined
  readonly rollout_percentage: number
}

export interface FlagFilters {
  /** null = a person flag; N = aggregated by group type index N. */
  readonly aggregation_group_type_index?: number | null | undefined
  readonly groups?: ReadonlyArray<FlagCondition> | undefined
  readonly multivariate?: { readonly variants: ReadonlyArray<FlagVariant> } | null | undefined
  /** Variant key (or "true" for boolean flags) → payload, usually a JSON-encoded string. */
  readonly payloads?: Readonly<Record<string, unknown>> | undefined
  readonly super_groups?: ReadonlyArray<FlagCondition> | undefined
  readonly feature_enrollment?: boolean | undefined
  readonly holdout?: { readonly id: number; readonly exclusion_percentage: number } | null | undefined
  readonly holdout_groups?: ReadonlyArray<FlagCondition> | null | undefined
}

export type { FlagDefinition } from "./flagEntity.js"

/** A cohort's definition: nested AND/OR groups of person property filters (and nested cohorts). */
export interface PropertyGroup {
  readonly type: "AND" | "OR"
  readonly values: ReadonlyArray<PropertyGroup | FlagPropertyFilter>
}

export interface CohortDefinition {
  readonly id: number
  readonly is_static: boolean
  /** Absent for static cohorts, whose members are listed instead. */
  readonly properties: PropertyGroup | null
}

/** Everything one evaluation needs, gathered before it starts (evaluation does no I/O). */
export interface EvaluationContext {
  readonly distinctId: string
  /** Stored person properties overlaid by the request's, `$initial_*` filled, GeoIP added. */
  readonly personProperties: Readonly<Record<string, unknown>>
  /** Group type name → group key sent with the request. */
  readonly groups: Readonly<Record<string, string>>
  /** Group type name → properties (stored overlaid by the request's, with `$group_key`). */
  readonly groupProperties: Readonly<Record<string, Readonly<Record<string, unknown>>>>
  /** Group type index → name. */
  readonly groupTypes: ReadonlyMap<number, string>
  readonly cohorts: ReadonlyMap<number, CohortDefinition>
  /** Static cohorts the person belongs to. */
  readonly staticCohorts: ReadonlySet<number>
  /** Cohorts whose membership could not be read (e.g. a storage timeout): flags needing them fail. */
  readonly unavailableCohorts: ReadonlySet<number>
  /** Experience continuity: flag key → stored hash key. */
  readonly hashKeyOverrides: Readonly<Record<string, string>>
  /** `$anon_distinct_id` of the request, for experience-continuity flags without an override yet. */
  readonly anonDistinctId: string | undefined
  readonly deviceId: string | undefined
  /** 1 (legacy, default) or 2. */
  readonly propertyMatchingVersion: 1 | 2
  /** The project's time zone, for date filters without an offset. */
  readonly timezone: string
  readonly now: Date
  /** Request filters: runtime ("server"/"client"), evaluation contexts (tags), keys to evaluate. */
  readonly runtime: "server" | "client" | undefined
  readonly evaluationContexts: ReadonlyArray<string> | undefined
  readonly flagKeys: ReadonlyArray<string> | undefined
}

export type ReasonCode =
  | "condition_match"
  | "no_condition_match"
  | "out_of_rollout_bound"
  | "no_group_type"
  | "super_condition_value"
  | "holdout_condition_value"
  | "flag_disabled"
  | "missing_dependency"
  /** The flag could not be evaluated (its inputs were unavailable). */
  | "evaluation_error"

export interface FlagResult {
  readonly key: string
  readonly enabled: boolean
  readonly variant: string | null
  readonly reason: { readonly code: ReasonCode; readonly condition_index: number | null; readonly description: string }
  /** The stored payload of the matched variant (or "true"), raw; null when none. */
  readonly payload: unknown
  /** True when the flag could not be evaluated; `enabled` is then false. */
  readonly failed: boolean
}
