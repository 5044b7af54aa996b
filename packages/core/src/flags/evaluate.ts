import { CohortMatcher, referencedCohorts } from "./cohorts.js"
import { flagHash, holdoutHash } from "./hash.js"
import type {
  EvaluationContext,
  FlagCondition,
  FlagDefinition,
  FlagPropertyFilter,
  FlagResult,
  ReasonCode
} from "./model.js"
import { type MatchOptions, matchProperty } from "./properties.js"

// Flag evaluation as the flags service's `get_match` does it, in order: early access, holdout,
// then conditions in array order (first match wins), with the most telling reason on no match.

/** A flag's value: false, true, or the variant key. */
export type FlagValue = boolean | string

/** Values of the flags evaluated so far, for `type: "flag"` filters naming them by id or by key. */
export interface EvaluatedFlags {
  readonly byId: ReadonlyMap<number, FlagValue>
  readonly byKey: ReadonlyMap<string, FlagValue>
}

export interface EvaluationResults {
  /** The requested flags (active, not filtered out by the request), in definition order. */
  readonly results: ReadonlyMap<string, FlagResult>
  /** Some evaluated flag failed (its inputs were unavailable). */
  readonly errors: boolean
}

/** The sentinel posthog-js sends as `$anon_distinct_id` for cookieless users: never a hash key. */
const COOKIELESS_ID = "$posthog_cookieless"

/** The service's reasons; the groups-not-evaluated one is reported as `no_condition_match`. */
type Reason = Exclude<ReasonCode, "evaluation_error"> | "no_condition_match_groups_not_evaluated"

const SCORES: Readonly<Record<Reason, number>> = {
  super_condition_value: 6,
  holdout_condition_value: 5,
  condition_match: 4,
  out_of_rollout_bound: 3,
  no_condition_match: 2,
  no_condition_match_groups_not_evaluated: 2,
  no_group_type: 1,
  flag_disabled: 0,
  missing_dependency: -1
}

const describe = (reason: Reason, index: number | null): string => {
  switch (reason) {
    case "condition_match":
      return `Matched condition set ${(index ?? 0) + 1}`
    case "no_condition_match":
      return "No matching condition set"
    case "no_condition_match_groups_not_evaluated":
      return "No matching condition set (group conditions were not evaluated because no group type was provided)"
    case "out_of_rollout_bound":
      return "Out of rollout bound"
    case "no_group_type":
      return "No group type"
    case "super_condition_value":
      return "Super condition value"
    case "holdout_condition_value":
      return "Holdout condition value"
    case "flag_disabled":
      return "Feature flag is disabled"
    case "missing_dependency":
      return "Flag cannot be evaluated due to missing dependency"
  }
}

const makeResult = (
  flag: FlagDefinition,
  enabled: boolean,
  variant: string | null,
  reason: Reason,
  index: number | null,
  payload: unknown
): FlagResult => ({
  key: flag.key,
  enabled,
  variant,
  reason: {
    code: reason === "no_condition_match_groups_not_evaluated" ? "no_condition_match" : reason,
    condition_index: index,
    description: describe(reason, index)
  },
  payload,
  failed: false
})

const failedResult = (flag: FlagDefinition): FlagResult => ({
  key: flag.key,
  enabled: false,
  variant: null,
  reason: {
    code: "evaluation_error",
    condition_index: null,
    description: "Could not evaluate: cohort data unavailable"
  },
  payload: null,
  failed: true
})

const NO_FLAGS: EvaluatedFlags = { byId: new Map(), byKey: new Map() }
const NO_PROPERTIES: Readonly<Record<string, unknown>> = {}

/** The stored payload of a value, `payloads[variant ?? "true"]`, raw. */
const payloadOf = (flag: FlagDefinition, variant: string | null): unknown => {
  const payloads = flag.filters.payloads
  const key = variant ?? "true"
  return payloads !== undefined && Object.hasOwn(payloads, key) ? (payloads[key] ?? null) : null
}

/** The dependency a flag filter names: by key when served with `dependency_chain`, else as stored (the id). */
const dependencyValue = (filter: FlagPropertyFilter, evaluated: EvaluatedFlags): FlagValue | undefined => {
  if (filter.dependency_chain !== undefined)
    return filter.dependency_chain.length === 0 ? undefined : evaluated.byKey.get(filter.key)
  if (/^\d+$/.test(filter.key) && evaluated.byId.has(Number(filter.key))) return evaluated.byId.get(Number(filter.key))
  return evaluated.byKey.get(filter.key)
}

/** `flag_evaluates_to`: true = any enabled value, false = disabled, a string = that variant. */
const dependencyMatches = (filter: FlagPropertyFilter, evaluated: EvaluatedFlags): boolean => {
  // The service requires `flag_evaluates_to`; an absent operator (hand-written filters) means it too.
  if (filter.operator !== undefined && filter.operator !== "flag_evaluates_to") return false
  // A dependency without a value (missing, failed) matches nothing, not even `false`.
  const value = dependencyValue(filter, evaluated)
  if (value === undefined) return false
  if (filter.value === true) return value !== false
  if (filter.value === false) return value === false
  return typeof filter.value === "string" && value === filter.value
}

const matchers = new WeakMap<EvaluationContext, CohortMatcher>()

/** One cohort matcher per context, so membership is worked out once per request. */
const cohortMatcherFor = (context: EvaluationContext, options: MatchOptions): CohortMatcher => {
  let matcher = matchers.get(context)
  if (matcher === undefined) {
    matcher = new CohortMatcher({
      cohorts: context.cohorts,
      staticCohorts: context.staticCohorts,
      personProperties: context.personProperties,
      options
    })
    matchers.set(context, matcher)
  }
  return matcher
}

const conditionFilters = (flag: FlagDefinition): Array<FlagPropertyFilter> =>
  [...(flag.filters.groups ?? []), ...(flag.filters.super_groups ?? [])].flatMap(
    (condition) => condition.properties ?? []
  )

const needsUnavailableCohort = (flag: FlagDefinition, context: EvaluationContext): boolean => {
  if (context.unavailableCohorts.size === 0) return false
  for (const id of referencedCohorts(conditionFilters(flag), context.cohorts))
    if (context.unavailableCohorts.has(id)) return true
  return false
}

type Outcome = "match" | "no_condition_match" | "out_of_rollout_bound"

/**
 * One flag for one context. `evaluated` holds the values of the flags it depends on (see
 * `evaluateFlags`, which also handles missing and circular dependencies).
 */
export const evaluateFlag = (
  flag: FlagDefinition,
  context: EvaluationContext,
  evaluated: EvaluatedFlags = NO_FLAGS
): FlagResult => {
  if (flag.deleted || !flag.active) return makeResult(flag, false, null, "flag_disabled", null, null)
  if (needsUnavailableCohort(flag, context)) return failedResult(flag)

  const filters = flag.filters
  const person = context.personProperties
  const options: MatchOptions = {
    propertyMatchingVersion: context.propertyMatchingVersion,
    timezone: context.timezone,
    now: context.now
  }
  const flagAggregation = filters.aggregation_group_type_index ?? null
  const deviceBucketing = flag.bucketing_identifier === "device_id"
  const deviceId = context.deviceId !== undefined && context.deviceId !== "" ? context.deviceId : undefined
  const anonId = context.anonDistinctId !== COOKIELESS_ID ? context.anonDistinctId : undefined

  const groupKey = (index: number): string | undefined => {
    const name = context.groupTypes.get(index)
    const key = name === undefined ? undefined : context.groups[name]
    // Numeric keys arrive as JSON numbers from some clients: hash their decimal text.
    return key === undefined || key === null || key === "" ? undefined : String(key)
  }
  const groupProperties = (index: number | null | undefined): Readonly<Record<string, unknown>> => {
    const name = index == null ? undefined : context.groupTypes.get(index)
    return (name === undefined ? undefined : context.groupProperties[name]) ?? NO_PROPERTIES
  }

  /** Person bucketing: $device_id (device flags), stored continuity key, $anon_distinct_id (continuity flags), distinct id. */
  const personBucketing = (): string => {
    if (deviceBucketing && deviceId !== undefined) return deviceId
    if (Object.hasOwn(context.hashKeyOverrides, flag.key)) return context.hashKeyOverrides[flag.key]!
    if (flag.ensure_experience_continuity && anonId !== undefined) return anonId
    return context.distinctId
  }

  /** Person filters read person properties, group filters their group's, untyped ones the condition's. */
  const matchFilter = (filter: FlagPropertyFilter, aggregation: number | null): boolean => {
    const source =
      filter.type === "person" || filter.type === "person_metadata"
        ? person
        : filter.type === "group"
          ? groupProperties(filter.group_type_index ?? aggregation)
          : aggregation === null
            ? person
            : groupProperties(aggregation)
    return matchProperty(filter, source, options)
  }

  /** Flag and property filters in order (short-circuiting), then cohort filters, then the rollout. */
  const conditionOutcome = (condition: FlagCondition, aggregation: number | null, bucketing: string): Outcome => {
    const cohortFilters: Array<FlagPropertyFilter> = []
    for (const filter of condition.properties ?? []) {
      if (filter.type === "flag") {
        if (!dependencyMatches(filter, evaluated)) return "no_condition_match"
      } else if (filter.type === "cohort") cohortFilters.push(filter)
      else if (!matchFilter(filter, aggregation)) return "no_condition_match"
    }
    if (cohortFilters.length > 0) {
      const cohorts = cohortMatcherFor(context, options)
      if (!cohortFilters.every((filter) => cohorts.matchFilter(filter))) return "no_condition_match"
    }
    const percentage = condition.rollout_percentage ?? 100
    if (percentage === 100) return "match"
    return flagHash(flag.key, bucketing) <= percentage / 100 ? "match" : "out_of_rollout_bound"
  }

  /** Walk the variants with a running total; past the last bucket the flag is plain `true`. */
  const computedVariant = (bucketing: string): string | null => {
    const hash = flagHash(flag.key, bucketing, "variant")
    let cumulative = 0
    for (const variant of filters.multivariate?.variants ?? []) {
      cumulative += variant.rollout_percentage / 100
      if (hash < cumulative) return variant.key
    }
    return null
  }

  // Early access: the person's enrollment decides, when they have one. Always person-level.
  if (filters.feature_enrollment === true) {
    const key = `$feature_enrollment/${flag.key}`
    if (Object.hasOwn(person, key) && person[key] !== undefined) {
      const value = person[key]
      return makeResult(
        flag,
        value === true || value === "true",
        null,
        "super_condition_value",
        0,
        payloadOf(flag, null)
      )
    }
  } else {
    const superCondition = filters.super_groups?.[0]
    const keys = (superCondition?.properties ?? []).map((filter) => filter.key)
    if (superCondition !== undefined && keys.some((key) => Object.hasOwn(person, key))) {
      const matched = conditionOutcome(superCondition, null, personBucketing()) === "match"
      return makeResult(flag, matched, null, "super_condition_value", 0, payloadOf(flag, null))
    }
  }

  // Holdout, bucketed at the flag's own aggregation. The service passes no stored continuity keys
  // here and hashes an absent group key as "".
  const holdoutBucketing = (): string => {
    if (flagAggregation !== null) return groupKey(flagAggregation) ?? ""
    if (deviceBucketing && deviceId !== undefined) return deviceId
    return flag.ensure_experience_continuity && anonId !== undefined ? anonId : context.distinctId
  }
  if (filters.holdout != null) {
    const raw = filters.holdout.exclusion_percentage
    const percentage = Number.isFinite(raw) ? Math.min(Math.max(raw, 0), 100) : 0
    if (percentage >= 100 || holdoutHash(holdoutBucketing()) <= percentage / 100) {
      const variant = `holdout-${filters.holdout.id}`
      return makeResult(flag, true, variant, "holdout_condition_value", null, payloadOf(flag, variant))
    }
  } else {
    // Legacy holdout: its first group's rollout is the exclusion; a group with properties is ignored.
    const legacy = filters.holdout_groups?.[0]
    if (legacy != null && (legacy.properties ?? []).length === 0) {
      const percentage = legacy.rollout_percentage
      if (percentage == null || holdoutHash(holdoutBucketing()) <= percentage / 100) {
        const bucketing = flagAggregation === null ? personBucketing() : (groupKey(flagAggregation) ?? "")
        const variant = legacy.variant ?? computedVariant(bucketing)
        return makeResult(flag, true, variant, "holdout_condition_value", null, payloadOf(flag, variant))
      }
    }
  }

  let best = "no_group_type" as Reason
  let bestIndex = null as number | null
  let skippedGroups = false as boolean
  // Ties go to the later condition.
  const note = (reason: Reason, index: number): void => {
    if (SCORES[best] <= SCORES[reason]) {
      best = reason
      bestIndex = index
    }
  }

  for (const [index, condition] of (filters.groups ?? []).entries()) {
    // A condition's own aggregation applies when the field is present, even as null (= person).
    const aggregation =
      condition.aggregation_group_type_index !== undefined
        ? (condition.aggregation_group_type_index ?? null)
        : flagAggregation
    let bucketing: string
    if (aggregation === null) {
      if (deviceBucketing && deviceId === undefined) {
        note("out_of_rollout_bound", index)
        continue
      }
      bucketing = personBucketing()
    } else {
      const key = groupKey(aggregation)
      if (key === undefined) {
        skippedGroups = true
        note("no_group_type", index)
        continue
      }
      bucketing = key
    }
    const outcome = conditionOutcome(condition, aggregation, bucketing)
    if (outcome === "match") {
      const override = condition.variant
      const variants = filters.multivariate?.variants ?? []
      const variant =
        override != null && override !== "" && variants.some((v) => v.key === override)
          ? override
          : computedVariant(bucketing)
      return makeResult(flag, true, variant, "condition_match", index, payloadOf(flag, variant))
    }
    note(outcome, index)
  }

  const reason: Reason =
    best === "no_condition_match" && skippedGroups ? "no_condition_match_groups_not_evaluated" : best
  return makeResult(flag, false, null, reason, bestIndex, null)
}

const runtimeMatches = (flag: FlagDefinition, runtime: EvaluationContext["runtime"]): boolean =>
  runtime === undefined ||
  (flag.evaluation_runtime !== "server" && flag.evaluation_runtime !== "client") ||
  flag.evaluation_runtime === runtime

const contextsMatch = (flag: FlagDefinition, requested: EvaluationContext["evaluationContexts"]): boolean => {
  if (requested === undefined || requested.length === 0) return true
  const tags = flag.evaluation_contexts ?? []
  return tags.length === 0 || tags.some((tag) => requested.includes(tag))
}

/** What evaluating a set of flags needs regardless of the request, worked out once per set. */
interface Prepared {
  readonly byId: ReadonlyMap<number, FlagDefinition>
  readonly byKey: ReadonlyMap<string, FlagDefinition>
  /** The flags each flag's conditions depend on; null for one that cannot be found. */
  readonly dependencies: ReadonlyMap<number, ReadonlyArray<FlagDefinition | null>>
  /** Plans of requests without runtime, contexts or keys to filter by (the usual SDK call). */
  unfiltered: Plan | undefined
}

/** Which flags a request evaluates, in what order, and which of them have broken dependencies. */
interface Plan {
  /** Evaluable flags, each after its dependencies. */
  readonly order: ReadonlyArray<FlagDefinition>
  readonly broken: ReadonlySet<number>
  /** Flags not evaluated: `false` for the flags depending on them. */
  readonly skipped: ReadonlyArray<FlagDefinition>
  readonly requested: ReadonlySet<number>
}

const prepare = (flags: ReadonlyArray<FlagDefinition>): Prepared => {
  const byId = new Map<number, FlagDefinition>()
  const byKey = new Map<string, FlagDefinition>()
  for (const flag of flags) {
    byId.set(flag.id, flag)
    // Keys are unique among non-deleted flags; a deleted flag may share one.
    const existing = byKey.get(flag.key)
    if (existing === undefined || (existing.deleted && !flag.deleted)) byKey.set(flag.key, flag)
  }
  const dependencies = new Map(
    flags.map((flag) => [
      flag.id,
      (flag.filters.groups ?? [])
        .flatMap((condition) => condition.properties ?? [])
        .filter((filter) => filter.type === "flag")
        .map((filter) => {
          // Served definitions mark cycles and missing flags with an empty chain.
          if (filter.dependency_chain !== undefined)
            return filter.dependency_chain.length === 0 ? null : (byKey.get(filter.key) ?? null)
          if (/^\d+$/.test(filter.key) && byId.has(Number(filter.key))) return byId.get(Number(filter.key))!
          return byKey.get(filter.key) ?? null
        })
    ])
  )
  return { byId, byKey, dependencies, unfiltered: undefined }
}

const plan = (flags: ReadonlyArray<FlagDefinition>, prepared: Prepared, context: EvaluationContext): Plan => {
  const evaluable = (flag: FlagDefinition): boolean =>
    flag.active &&
    !flag.deleted &&
    runtimeMatches(flag, context.runtime) &&
    contextsMatch(flag, context.evaluationContexts)
  const dependenciesOf = (flag: FlagDefinition) => prepared.dependencies.get(flag.id) ?? []

  // Broken: a missing dependency, a cycle, or a dependency that is broken itself. Flags that are
  // not evaluated are plain `false` leaves.
  const state = new Map<number, "visiting" | "ok" | "broken">()
  const isSound = (flag: FlagDefinition): boolean => {
    if (!evaluable(flag)) return true
    const known = state.get(flag.id)
    if (known !== undefined) return known === "ok"
    state.set(flag.id, "visiting")
    let sound = true
    for (const dependency of dependenciesOf(flag)) if (dependency === null || !isSound(dependency)) sound = false
    state.set(flag.id, sound ? "ok" : "broken")
    return sound
  }

  const requested = new Set<number>()
  const wanted =
    context.flagKeys === undefined ? flags : context.flagKeys.flatMap((key) => prepared.byKey.get(key) ?? [])
  for (const flag of wanted) if (evaluable(flag)) requested.add(flag.id)

  // Topological order: each flag after its dependencies.
  const order: Array<FlagDefinition> = []
  const placed = new Set<number>()
  const place = (flag: FlagDefinition): void => {
    if (placed.has(flag.id) || !evaluable(flag)) return
    placed.add(flag.id)
    for (const dependency of dependenciesOf(flag)) if (dependency !== null) place(dependency)
    order.push(flag)
  }
  for (const id of requested) place(prepared.byId.get(id)!)
  return {
    order,
    broken: new Set(order.filter((flag) => !isSound(flag)).map((flag) => flag.id)),
    skipped: flags.filter((flag) => !evaluable(flag)),
    requested
  }
}

// Prepared once per array of definitions: a snapshot's array is the same for every request until
// the snapshot is replaced.
const preparedSets = new WeakMap<ReadonlyArray<FlagDefinition>, Prepared>()

const planFor = (
  flags: ReadonlyArray<FlagDefinition>,
  context: EvaluationContext
): { readonly prepared: Prepared; readonly plan: Plan } => {
  let prepared = preparedSets.get(flags)
  if (prepared === undefined) {
    prepared = prepare(flags)
    preparedSets.set(flags, prepared)
  }
  const unfiltered =
    context.runtime === undefined && context.flagKeys === undefined && (context.evaluationContexts ?? []).length === 0
  if (!unfiltered) return { prepared, plan: plan(flags, prepared, context) }
  prepared.unfiltered ??= plan(flags, prepared, context)
  return { prepared, plan: prepared.unfiltered }
}

/**
 * Every flag the request asks for, dependencies first. Inactive, deleted and request-filtered flags
 * are not returned, but count as `false` for flags depending on them; a flag with a missing or
 * circular dependency is `false` with reason `missing_dependency`.
 */
export const evaluateFlags = (flags: ReadonlyArray<FlagDefinition>, context: EvaluationContext): EvaluationResults => {
  const { plan, prepared } = planFor(flags, context)
  const valuesById = new Map<number, FlagValue>()
  const valuesByKey = new Map<string, FlagValue>()
  const record = (flag: FlagDefinition, value: FlagValue): void => {
    valuesById.set(flag.id, value)
    if (prepared.byKey.get(flag.key) === flag) valuesByKey.set(flag.key, value)
  }
  for (const flag of plan.skipped) record(flag, false)

  const evaluated: EvaluatedFlags = { byId: valuesById, byKey: valuesByKey }
  const outcomes = new Map<number, FlagResult>()
  let errors = false
  for (const flag of plan.order) {
    const result = plan.broken.has(flag.id)
      ? makeResult(flag, false, null, "missing_dependency", null, null)
      : evaluateFlag(flag, context, evaluated)
    outcomes.set(flag.id, result)
    // A failed flag has no value: flags depending on it do not match on it at all.
    if (result.failed) errors = true
    else record(flag, result.enabled ? (result.variant ?? true) : false)
  }

  const results = new Map<string, FlagResult>()
  for (const flag of flags) if (plan.requested.has(flag.id)) results.set(flag.key, outcomes.get(flag.id)!)
  return { results, errors }
}
