import type { StoredFlag } from "../services/FlagStore.js"
import { isPropertyGroup, referencedCohorts } from "./cohorts.js"
import type { FlagSnapshot } from "./definitions.js"
import type { FlagCondition, FlagFilters, FlagPropertyFilter, PropertyGroup } from "./model.js"

// What SDKs download to evaluate flags themselves: PostHog's shape, with flag dependencies named by
// key (stored by id) and their transitive chain, and cohorts served or, when simple, inlined.

const dependencyIds = (flag: StoredFlag): Array<number> =>
  (flag.filters.groups ?? [])
    .flatMap((c) => c.properties ?? [])
    .filter((f) => f.type === "flag")
    .map((f) => Number(f.key))

/** Keys of a flag's transitive dependencies in evaluation order, itself last; empty on a cycle or a missing flag. */
const chainOf = (byId: ReadonlyMap<number, StoredFlag>) => {
  const walk = (id: number, visiting: Set<number>): Array<string> | undefined => {
    const flag = byId.get(id)
    if (flag === undefined || visiting.has(id)) return undefined
    visiting.add(id)
    const chain: Array<string> = []
    for (const dependency of dependencyIds(flag)) {
      const sub = walk(dependency, visiting)
      if (sub === undefined) return undefined
      for (const key of sub) if (!chain.includes(key)) chain.push(key)
    }
    visiting.delete(id)
    chain.push(flag.key)
    return chain
  }
  return (id: number) => walk(id, new Set()) ?? []
}

/** A cohort made of one AND group of plain property filters can be replaced by those filters. */
const inlinable = (group: PropertyGroup | null): ReadonlyArray<FlagPropertyFilter> | undefined => {
  const only = group?.values.length === 1 ? group.values[0] : undefined
  const and =
    only !== undefined && isPropertyGroup(only) && only.type === "AND"
      ? only
      : group?.type === "AND"
        ? group
        : undefined
  if (and === undefined || !and.values.every((v) => !isPropertyGroup(v) && v.type !== "cohort" && v.negation !== true))
    return undefined
  return and.values as ReadonlyArray<FlagPropertyFilter>
}

export const definitionsDocument = (snapshot: FlagSnapshot, projectId: number, sendCohorts: boolean) => {
  const byId = new Map(snapshot.flags.map((f) => [f.id, f]))
  const chain = chainOf(byId)
  const rewrite = (filter: FlagPropertyFilter): ReadonlyArray<FlagPropertyFilter> => {
    if (filter.type === "flag") {
      const dependency = byId.get(Number(filter.key))
      return [{ ...filter, key: dependency?.key ?? filter.key, dependency_chain: chain(Number(filter.key)) }]
    }
    if (filter.type === "cohort" && !sendCohorts) {
      const cohort = snapshot.cohorts.get(Number(filter.value))
      const inline =
        cohort !== undefined && !cohort.is_static && filter.operator !== "not_in"
          ? inlinable(cohort.properties)
          : undefined
      if (inline !== undefined) return inline
    }
    return [filter]
  }
  const conditions = (list: ReadonlyArray<FlagCondition> | null | undefined) =>
    list?.map((c) => (c.properties === undefined ? c : { ...c, properties: c.properties.flatMap(rewrite) }))
  const filters = (f: FlagFilters): FlagFilters => ({
    ...f,
    ...(f.groups === undefined ? {} : { groups: conditions(f.groups) }),
    ...(f.super_groups === undefined ? {} : { super_groups: conditions(f.super_groups) })
  })
  const served = sendCohorts
    ? [
        ...referencedCohorts(
          snapshot.flags.flatMap((f) => (f.filters.groups ?? []).flatMap((c) => c.properties ?? [])),
          snapshot.cohorts
        )
      ].filter((id) => snapshot.cohorts.get(id)?.is_static === false)
    : []
  return {
    flags: snapshot.flags.map((f) => ({
      id: f.id,
      team_id: projectId,
      name: f.name,
      key: f.key,
      filters: filters(f.filters),
      deleted: false,
      active: f.active,
      ensure_experience_continuity: f.ensure_experience_continuity,
      has_encrypted_payloads: false,
      version: f.version,
      evaluation_runtime: f.evaluation_runtime,
      evaluation_contexts: f.evaluation_contexts,
      bucketing_identifier: f.bucketing_identifier,
      has_experiment: f.has_experiment
    })),
    group_type_mapping: Object.fromEntries([...snapshot.groupTypes].map(([index, name]) => [String(index), name])),
    cohorts: Object.fromEntries(served.map((id) => [String(id), snapshot.cohorts.get(id)!.properties])),
    property_matching_version: 1,
    minimal_flag_called_events: false
  }
}
