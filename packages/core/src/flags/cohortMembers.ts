import { Effect } from "effect"
import type { Page } from "../domain/pagination.js"
import type { Person } from "../persons/model.js"
import { CohortStore, type StoredCohort } from "../services/CohortStore.js"
import { PersonStore } from "../services/PersonStore.js"
import { CohortMatcher, referencedCohorts } from "./cohorts.js"
import type { FlagPropertyFilter } from "./model.js"

// A dynamic cohort's members now: the project's persons that flag evaluation would place in it
// (CohortMatcher on their stored properties and static memberships), so this list and a flag's cohort
// condition never disagree. It scans the project's persons, newest first.

const BATCH = 1_000

/** Pages through a store listing until a page comes back short. */
const everyRow = <A, E, R>(
  read: (page: Page) => Effect.Effect<{ readonly results: ReadonlyArray<A> }, E, R>,
  each: (row: A) => void
): Effect.Effect<void, E, R> =>
  Effect.iterate(0, {
    while: (offset) => offset >= 0,
    body: (offset) =>
      Effect.map(read({ limit: BATCH, offset }), ({ results }) => {
        results.forEach(each)
        return results.length < BATCH ? -1 : offset + BATCH
      })
  })

const dynamicCohortMembers = (
  projectId: number,
  cohortId: number,
  page: Page,
  options: { readonly timezone: string; readonly now: Date }
) =>
  Effect.gen(function* () {
    const cohortStore = yield* CohortStore
    const personStore = yield* PersonStore
    const cohorts = new Map((yield* cohortStore.all(projectId)).map((c) => [c.id, c]))
    const filter: FlagPropertyFilter = { key: "id", type: "cohort", value: cohortId }
    // Person id → the static cohorts (of those this one uses) that list them.
    const staticOf = new Map<number, Set<number>>()
    for (const id of referencedCohorts([filter], cohorts)) {
      if (cohorts.get(id)?.is_static !== true) continue
      yield* everyRow(
        (p) => cohortStore.persons(projectId, id, p),
        (person) => staticOf.set(person.id, (staticOf.get(person.id) ?? new Set()).add(id))
      )
    }
    const none = new Set<number>()
    let count = 0
    const results: Array<Person> = []
    yield* everyRow(
      (p) => personStore.list(projectId, { properties: [], ...p }),
      (person) => {
        const matcher = new CohortMatcher({
          cohorts,
          staticCohorts: staticOf.get(person.id) ?? none,
          personProperties: person.properties,
          options
        })
        if (!matcher.matchFilter(filter)) return
        if (count >= page.offset && results.length < page.limit) results.push(person)
        count++
      }
    )
    return { count, results }
  })

interface Evaluation {
  readonly timezone: string
  readonly now: Date
}

/** Who is in the cohort now: a static one's listed persons, a dynamic one's matching persons. */
export const cohortMembers = (projectId: number, cohort: StoredCohort, page: Page, options: Evaluation) =>
  cohort.is_static
    ? Effect.flatMap(CohortStore, (s) => s.persons(projectId, cohort.id, page))
    : dynamicCohortMembers(projectId, cohort.id, page, options)

const EVERYONE: Page = { limit: Number.MAX_SAFE_INTEGER, offset: 0 }

/**
 * The uuids of every member of the cohorts named by id or by name (the earliest made of that name);
 * a name or id the project has no live cohort for is left out.
 */
export const membersByRef = (projectId: number, refs: ReadonlyArray<number | string>, options: Evaluation) =>
  Effect.gen(function* () {
    const cohorts = yield* (yield* CohortStore).all(projectId)
    const found = new Map<number | string, ReadonlyArray<string>>()
    for (const ref of refs) {
      const cohort = cohorts.find((c) => (typeof ref === "number" ? c.id === ref : c.name === ref))
      if (cohort === undefined) continue
      const { results } = yield* cohortMembers(projectId, cohort, EVERYONE, options)
      found.set(
        ref,
        results.map((p) => p.uuid)
      )
    }
    return found
  })
