import type { CohortDefinition, FlagPropertyFilter, PropertyGroup } from "./model.js"
import { type MatchOptions, matchProperty } from "./properties.js"

// Cohort membership for flag evaluation: static cohorts by membership, the others by matching their
// property groups against the person's properties (nested cohorts recurse).

export interface CohortInputs {
  readonly cohorts: ReadonlyMap<number, CohortDefinition>
  /** Static cohorts the person belongs to. */
  readonly staticCohorts: ReadonlySet<number>
  readonly personProperties: Readonly<Record<string, unknown>>
  readonly options: MatchOptions
  /**
   * Whether the person did what a behavioural filter asks (worked out from events beforehand), when
   * a cohort's membership is being calculated. Without it, a cohort using behaviour (directly or
   * through nested cohorts) is answered from its calculated membership, given in `staticCohorts`.
   */
  readonly performed?: ((filter: FlagPropertyFilter) => boolean) | undefined
}

/** Thrown while resolving a cohort that (transitively) contains itself. */
class CohortCycle extends Error {}

/** Whether a cohort's property entry is a nested group rather than a filter. */
export const isPropertyGroup = (value: PropertyGroup | FlagPropertyFilter): value is PropertyGroup =>
  "values" in value && Array.isArray(value.values)

/** A cohort filter's id: its value, a number or numeric text. */
export const cohortIdOf = (filter: FlagPropertyFilter): number | undefined => {
  const value = filter.value
  const id =
    typeof value === "number"
      ? value
      : typeof value === "string" && /^-?\d+$/.test(value.trim())
        ? Number(value.trim())
        : Number.NaN
  return Number.isSafeInteger(id) ? id : undefined
}

/** Answers "is the person in cohort N" for one evaluation, remembering each answer. */
export class CohortMatcher {
  private readonly memo = new Map<number, boolean>()
  private readonly resolving = new Set<number>()

  constructor(private readonly inputs: CohortInputs) {}

  /**
   * A flag condition's cohort filter (`in`, the default, or `not_in`). A cohort that contains itself
   * cannot be resolved, and the filter does not match whichever the operator.
   */
  matchFilter(filter: FlagPropertyFilter): boolean {
    try {
      return this.membershipFilter(filter)
    } catch (error) {
      if (error instanceof CohortCycle) return false
      throw error
    }
  }

  /** Membership; an unknown cohort (deleted, or not loaded) has no members. Throws on a cycle. */
  private isMember(id: number): boolean {
    const known = this.memo.get(id)
    if (known !== undefined) return known
    if (this.resolving.has(id)) throw new CohortCycle()
    const cohort = this.inputs.cohorts.get(id)
    // Static membership is known even when the definition was not loaded.
    let member = this.inputs.staticCohorts.has(id)
    const listed =
      cohort?.is_static === true ||
      (this.inputs.performed === undefined && behaviouralCohorts(this.inputs.cohorts).has(id))
    if (!member && !listed && cohort?.properties != null) {
      this.resolving.add(id)
      try {
        member = this.matchGroup(cohort.properties)
      } finally {
        this.resolving.delete(id)
      }
    }
    this.memo.set(id, member)
    return member
  }

  private membershipFilter(filter: FlagPropertyFilter): boolean {
    const id = cohortIdOf(filter)
    if (id === undefined) return false
    const operator = filter.operator ?? "in"
    if (operator !== "in" && operator !== "not_in") return false
    const member = this.isMember(id)
    return operator === "in" ? member : !member
  }

  /** AND: every value matches; OR: some value does. No values: AND true, OR false. */
  private matchGroup(group: PropertyGroup): boolean {
    const values = group.values ?? []
    // An empty group object ({}) matches everyone.
    if (group.type === undefined && values.length === 0) return true
    const any = group.type === "OR"
    for (const value of values) {
      const matched = isPropertyGroup(value) ? this.matchGroup(value) : this.matchCohortFilter(value)
      if (any && matched) return true
      if (!any && !matched) return false
    }
    return !any
  }

  private matchCohortFilter(filter: FlagPropertyFilter): boolean {
    // Flag filters inside cohorts never match; behavioural ones only while calculating membership.
    const matched =
      filter.type === "cohort"
        ? this.membershipFilter(filter)
        : filter.type === "behavioral"
          ? (this.inputs.performed?.(filter) ?? false)
          : filter.type === "flag"
            ? false
            : matchProperty(filter, this.inputs.personProperties, this.inputs.options)
    return filter.negation === true ? !matched : matched
  }
}

/** Every filter of a property group, those of nested groups included. */
export const filtersIn = (group: PropertyGroup): Array<FlagPropertyFilter> =>
  (group.values ?? []).flatMap((value) => (isPropertyGroup(value) ? filtersIn(value) : [value]))

/** The cohorts these filters use, directly or through nested cohorts (each visited once). */
export const referencedCohorts = (
  filters: Iterable<FlagPropertyFilter>,
  cohorts: ReadonlyMap<number, CohortDefinition>
): Set<number> => {
  const found = new Set<number>()
  const visitFilter = (filter: FlagPropertyFilter): void => {
    if (filter.type !== "cohort") return
    const id = cohortIdOf(filter)
    if (id === undefined || found.has(id)) return
    found.add(id)
    const properties = cohorts.get(id)?.properties
    if (properties != null) visitGroup(properties)
  }
  const visitGroup = (group: PropertyGroup): void => filtersIn(group).forEach(visitFilter)
  for (const filter of filters) visitFilter(filter)
  return found
}

const behavioural = new WeakMap<ReadonlyMap<number, CohortDefinition>, ReadonlySet<number>>()

/**
 * The dynamic cohorts whose membership needs events: those with a behavioural filter, directly or
 * through the cohorts they nest. Their membership is calculated and stored rather than matched
 * per request. Worked out once per map of cohorts.
 */
export const behaviouralCohorts = (cohorts: ReadonlyMap<number, CohortDefinition>): ReadonlySet<number> => {
  let found = behavioural.get(cohorts)
  if (found === undefined) {
    const direct = (id: number) => {
      const properties = cohorts.get(id)?.properties
      return cohorts.get(id)?.is_static !== true && properties != null
        ? filtersIn(properties).some((f) => f.type === "behavioral")
        : false
    }
    found = new Set(
      [...cohorts.keys()].filter(
        (id) =>
          cohorts.get(id)?.is_static !== true &&
          [...referencedCohorts([{ key: "id", type: "cohort", value: id }], cohorts)].some(direct)
      )
    )
    behavioural.set(cohorts, found)
  }
  return found
}
