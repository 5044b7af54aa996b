import { Effect } from "effect"
import type { Page } from "../domain/pagination.js"
import type { Person } from "../persons/model.js"
import { CohortStore, type StoredCohort } from "../services/CohortStore.js"
import { PersonStore } from "../services/PersonStore.js"
import { behaviouralCohorts, CohortMatcher, referencedCohorts } from "./cohorts.js"
import type { CohortDefinition, FlagPropertyFilter } from "./model.js"

// Who is in a cohort. A static cohort lists its persons; a behavioural one (needing events, directly
// or through nested cohorts) has the membership last calculated (cohortCalculation.ts); a cohort of
// person properties has the project's persons that flag evaluation would place in it now
// (CohortMatcher on their stored properties and static memberships), so this list and a flag's cohort
// condition never disagree. Scans go through the project's persons a batch at a time, newest first.

const BATCH = 1_000

/** Pages through a store listing until a page comes back short. */
const everyPage = <A, E, R, E2, R2>(
  read: (page: Page) => Effect.Effect<{ readonly results: ReadonlyArray<A> }, E, R>,
  each: (rows: ReadonlyArray<A>) => Effect.Effect<void, E2, R2>
): Effect.Effect<void, E | E2, R | R2> =>
  Effect.iterate(0, {
    while: (offset) => offset >= 0,
    body: (offset) =>
      Effect.flatMap(read({ limit: BATCH, offset }), ({ results }) =>
        Effect.as(each(results), results.length < BATCH ? -1 : offset + BATCH)
      )
  })

interface Evaluation {
  readonly timezone: string
  readonly now: Date
}

/** The project's cohorts by id, as cohort matching reads them. */
export const cohortMap = (cohorts: ReadonlyArray<StoredCohort>): ReadonlyMap<number, CohortDefinition> =>
  new Map(cohorts.map((c) => [c.id, c]))

/**
 * Each page of the project's persons with those of them in the cohort by its definition. Static
 * cohorts it uses are read as listed; `performed` answers behavioural filters (when calculating).
 */
export const matchPersons = <E, R>(
  projectId: number,
  cohortId: number,
  cohorts: ReadonlyMap<number, CohortDefinition>,
  options: Evaluation,
  performed: ((person: Person) => (filter: FlagPropertyFilter) => boolean) | undefined,
  each: (persons: ReadonlyArray<Person>, members: ReadonlyArray<Person>) => Effect.Effect<void, E, R>
) =>
  Effect.gen(function* () {
    const cohortStore = yield* CohortStore
    const personStore = yield* PersonStore
    const filter: FlagPropertyFilter = { key: "id", type: "cohort", value: cohortId }
    // Person id → the listed cohorts (of those this one uses) that hold them: static ones, and when
    // not calculating, behavioural ones as calculated.
    const listedOf = new Map<number, Set<number>>()
    const behavioural = behaviouralCohorts(cohorts)
    for (const id of referencedCohorts([filter], cohorts)) {
      const isStatic = cohorts.get(id)?.is_static === true
      if (!isStatic && (performed !== undefined || !behavioural.has(id))) continue
      yield* everyPage(
        (p) => (isStatic ? cohortStore.persons(projectId, id, p) : cohortStore.calculatedPersons(projectId, id, p)),
        (persons) =>
          Effect.sync(() => persons.forEach((p) => listedOf.set(p.id, (listedOf.get(p.id) ?? new Set()).add(id))))
      )
    }
    const none = new Set<number>()
    yield* everyPage(
      (p) => personStore.list(projectId, { properties: [], ...p }),
      (persons) =>
        each(
          persons,
          persons.filter((person) =>
            new CohortMatcher({
              cohorts,
              staticCohorts: listedOf.get(person.id) ?? none,
              personProperties: person.properties,
              options,
              performed: performed?.(person)
            }).matchFilter(filter)
          )
        )
    )
  })

const propertyCohortMembers = (projectId: number, cohortId: number, page: Page, options: Evaluation) =>
  Effect.gen(function* () {
    const cohorts = cohortMap(yield* (yield* CohortStore).all(projectId))
    let count = 0
    const results: Array<Person> = []
    yield* matchPersons(projectId, cohortId, cohorts, options, undefined, (_, members) =>
      Effect.sync(() => {
        for (const person of members) {
          if (count >= page.offset && results.length < page.limit) results.push(person)
          count++
        }
      })
    )
    return { count, results }
  })

/** Whether the cohort's membership is calculated rather than matched on request. */
export const isCalculated = (cohort: StoredCohort, all: ReadonlyArray<StoredCohort>) =>
  !cohort.is_static && behaviouralCohorts(cohortMap(all)).has(cohort.id)

/** Who is in the cohort now: listed, calculated or matched (see above). */
export const cohortMembers = (projectId: number, cohort: StoredCohort, page: Page, options: Evaluation) =>
  Effect.gen(function* () {
    const store = yield* CohortStore
    if (cohort.is_static) return yield* store.persons(projectId, cohort.id, page)
    if (isCalculated(cohort, yield* store.all(projectId)))
      return yield* store.calculatedPersons(projectId, cohort.id, page)
    return yield* propertyCohortMembers(projectId, cohort.id, page, options)
  })

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
