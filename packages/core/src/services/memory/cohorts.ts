import { Effect, Option } from "effect"
import { CohortStore, type StoredCohort } from "../CohortStore.js"
import type { PersonStore } from "../PersonStore.js"
import type { Journal } from "./journal.js"

export const makeMemoryCohorts = (journal: Journal, persons: PersonStore["Type"]) => {
  const cohorts = new Map<number, Omit<StoredCohort, "count"> & { readonly project_id: number }>()
  const members = new Map<number, ReadonlySet<number>>() // cohort id → person ids
  let nextId = 1
  const live = (projectId: number) => [...cohorts.values()].filter((c) => c.project_id === projectId && !c.deleted)
  const view = ({ project_id: _, ...cohort }: Omit<StoredCohort, "count"> & { project_id: number }): StoredCohort => ({
    ...cohort,
    count: cohort.is_static ? (members.get(cohort.id)?.size ?? 0) : null
  })
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
          updated_at: now
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
    persons: (projectId, cohortId, page) =>
      Effect.gen(function* () {
        const ids = [...(members.get(cohortId) ?? [])].sort((a, b) => b - a)
        const found = yield* Effect.forEach(ids, (id) => persons.get(projectId, { id }))
        const present = found.flatMap((p) => (Option.isSome(p) ? [p.value] : []))
        return { count: present.length, results: present.slice(page.offset, page.offset + page.limit) }
      })
  })
  return { store, isMember: (cohortId: number, personId: number) => members.get(cohortId)?.has(personId) ?? false }
}
