import { Effect, Option } from "effect"
import { CohortStore, type StoredCohort } from "../CohortStore.js"
import type { PersonStore } from "../PersonStore.js"
import type { Journal } from "./journal.js"

type Kept = Omit<StoredCohort, "count"> & {
  readonly project_id: number
  /** The version of the calculated membership the cohort has, and since when one is being calculated. */
  readonly calculated_version: number | null
  readonly calculation_started_at: Date | null
}

export const makeMemoryCohorts = (journal: Journal, persons: PersonStore["Type"]) => {
  const cohorts = new Map<number, Kept>()
  const members = new Map<number, ReadonlySet<number>>() // cohort id → person ids
  const calculated = new Map<string, ReadonlySet<number>>() // `cohort id/version` → person ids
  let nextId = 1
  const live = (projectId: number) => [...cohorts.values()].filter((c) => c.project_id === projectId && !c.deleted)
  const calculatedOf = (c: Kept) =>
    c.calculated_version === null ? undefined : calculated.get(`${c.id}/${c.calculated_version}`)
  const view = (kept: Kept): StoredCohort => {
    const { project_id: _, calculated_version: __, calculation_started_at: ___, ...cohort } = kept
    return {
      ...cohort,
      count: cohort.is_static ? (members.get(cohort.id)?.size ?? 0) : (calculatedOf(kept)?.size ?? null)
    }
  }
  const page = (projectId: number, ids: Iterable<number>, p: { readonly limit: number; readonly offset: number }) =>
    Effect.gen(function* () {
      const sorted = [...ids].sort((a, b) => b - a)
      const found = yield* Effect.forEach(sorted, (id) => persons.get(projectId, { id }))
      const present = found.flatMap((x) => (Option.isSome(x) ? [x.value] : []))
      return { count: present.length, results: present.slice(p.offset, p.offset + p.limit) }
    })
  const change = (id: number, patch: Partial<Kept>) => {
    const cohort = cohorts.get(id)
    if (cohort !== undefined) journal.set(cohorts, id, { ...cohort, ...patch })
  }
  const find = (projectId: number, id: number) =>
    Option.fromNullable(cohorts.get(id)).pipe(Option.filter((c) => c.project_id === projectId && !c.deleted))

  const store = CohortStore.of({
    list: (projectId, page) =>
      Effect.sync(() => {
        const all = live(projectId).sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || b.id - a.id)
        return { count: all.length, results: all.slice(page.offset, page.offset + page.limit).map(view) }
      }),
    get: (projectId, id) => Effect.sync(() => Option.map(find(projectId, id), view)),
    create: (projectId, input) =>
      Effect.sync(() => {
        const now = new Date()
        const cohort = {
          ...input,
          id: nextId++,
          project_id: projectId,
          deleted: false,
          version: 1,
          created_at: now,
          updated_at: now,
          last_calculation: null,
          is_calculating: false,
          errors_calculating: 0,
          calculated_version: null,
          calculation_started_at: null
        }
        journal.set(cohorts, cohort.id, cohort)
        return view(cohort)
      }),
    update: (projectId, id, patch) =>
      Effect.sync(() =>
        Option.map(find(projectId, id), (cohort) => {
          const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined))
          const next = { ...cohort, ...defined, version: cohort.version + 1, updated_at: new Date() }
          journal.set(cohorts, id, next)
          return view(next)
        })
      ),
    all: (projectId) => Effect.sync(() => live(projectId).map(view)),
    addPersons: (projectId, cohortId, uuids) =>
      Effect.gen(function* () {
        const found = yield* Effect.forEach(uuids, (uuid) => persons.get(projectId, { uuid }))
        const current = new Set(members.get(cohortId) ?? [])
        const before = current.size
        for (const person of found) if (Option.isSome(person)) current.add(person.value.id)
        journal.set(members, cohortId, current)
        return current.size - before
      }),
    persons: (projectId, cohortId, p) => page(projectId, members.get(cohortId) ?? [], p),
    calculatedPersons: (projectId, cohortId, p) =>
      Effect.suspend(() => {
        const cohort = Option.getOrUndefined(find(projectId, cohortId))
        return page(projectId, cohort === undefined ? [] : (calculatedOf(cohort) ?? []), p)
      }),
    due: (before, stuckBefore, limit) =>
      Effect.sync(() =>
        [...cohorts.values()]
          .filter(
            (c) =>
              !c.deleted &&
              !c.is_static &&
              (c.last_calculation === null || c.last_calculation < before) &&
              (!c.is_calculating || (c.calculation_started_at ?? new Date(0)) < stuckBefore)
          )
          .sort((a, b) => (a.last_calculation?.getTime() ?? 0) - (b.last_calculation?.getTime() ?? 0) || a.id - b.id)
          .slice(0, limit)
          .map((c) => ({ project_id: c.project_id, id: c.id }))
      ),
    startCalculation: (projectId, cohortId, stuckBefore) =>
      Effect.sync(() =>
        Option.flatMap(find(projectId, cohortId), (c) => {
          if (c.is_calculating && (c.calculation_started_at ?? new Date(0)) >= stuckBefore) return Option.none()
          const version = (c.calculated_version ?? 0) + 1
          change(cohortId, { is_calculating: true, calculation_started_at: new Date() })
          journal.set(calculated, `${cohortId}/${version}`, new Set())
          return Option.some(version)
        })
      ),
    addCalculated: (cohortId, version, personIds) =>
      Effect.sync(() => {
        const key = `${cohortId}/${version}`
        journal.set(calculated, key, new Set([...(calculated.get(key) ?? []), ...personIds]))
      }),
    finishCalculation: (projectId, cohortId, version, at) =>
      Effect.sync(() =>
        Option.map(find(projectId, cohortId), (c) => {
          if (c.calculated_version !== null) journal.delete(calculated, `${cohortId}/${c.calculated_version}`)
          change(cohortId, {
            calculated_version: version,
            last_calculation: at,
            is_calculating: false,
            errors_calculating: 0
          })
        })
      ),
    failCalculation: (projectId, cohortId, version) =>
      Effect.sync(() =>
        Option.map(find(projectId, cohortId), (c) => {
          journal.delete(calculated, `${cohortId}/${version}`)
          change(cohortId, { is_calculating: false, errors_calculating: c.errors_calculating + 1 })
        })
      )
  })
  return {
    store,
    /** Listed in a static cohort, or in a dynamic one's calculated membership. */
    isMember: (cohortId: number, personId: number) => {
      const cohort = cohorts.get(cohortId)
      return (
        (members.get(cohortId)?.has(personId) ?? false) ||
        (cohort !== undefined && (calculatedOf(cohort)?.has(personId) ?? false))
      )
    }
  }
}
