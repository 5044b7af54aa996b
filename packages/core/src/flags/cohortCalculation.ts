import { Context, Duration, Effect, Layer, Option, Queue, Schedule } from "effect"
import { QueryRunner } from "../queries/runner.js"
import { CohortStore, type CohortRef } from "../services/CohortStore.js"
import { PersonStore } from "../services/PersonStore.js"
import { ProjectStore } from "../services/ProjectStore.js"
import { behaviourKey, behaviourQuery, isBehavioural } from "./cohortBehaviour.js"
import { cohortMap, matchPersons } from "./cohortMembers.js"
import { filtersIn, referencedCohorts } from "./cohorts.js"

// Dynamic cohorts' membership, calculated in the background and stored: when a cohort is made or
// changed (with the cohorts nesting it), and again once it is RECALCULATE_AFTER old. One cohort at a
// time per process: each behavioural filter is one ZedQL statement over events, then the project's
// persons are matched a batch at a time and the members of each batch written, so memory holds one
// batch and the uuids of the persons who did what the filters ask.

/** How often due cohorts are looked for, and how old a calculation may get. */
const LOOK_EVERY = Duration.minutes(1)
const RECALCULATE_AFTER = Duration.hours(1)
/** A calculation marked running this long is taken as abandoned (its process stopped). */
const ABANDONED_AFTER = Duration.minutes(30)
const DUE_PER_LOOK = 50

export class CohortCalculation extends Context.Tag("@zed/core/CohortCalculation")<
  CohortCalculation,
  {
    /** Calculates the cohort (and the dynamic cohorts nesting it) again soon. */
    readonly request: (projectId: number, cohortId: number) => Effect.Effect<void>
    /** How far this process is through the cohort's running calculation: 0–1, or undefined. */
    readonly progress: (cohortId: number) => number | undefined
  }
>() {}

const ago = (duration: Duration.Duration) => new Date(Date.now() - Duration.toMillis(duration))

export const CohortCalculationLive = Layer.scoped(
  CohortCalculation,
  Effect.gen(function* () {
    const store = yield* CohortStore
    const runner = yield* QueryRunner
    const projects = yield* ProjectStore
    const persons = yield* PersonStore
    const context = yield* Effect.context<CohortStore | PersonStore>()
    const queue = yield* Queue.unbounded<CohortRef>()
    const queued = new Set<number>()
    const progress = new Map<number, number>()

    const enqueue = (ref: CohortRef) =>
      Effect.suspend(() => {
        if (queued.has(ref.id)) return Effect.void
        queued.add(ref.id)
        return queue.offer(ref)
      })

    const calculate = ({ project_id: projectId, id }: CohortRef) =>
      Effect.gen(function* () {
        const project = yield* projects.get(projectId)
        const all = yield* store.all(projectId)
        const cohort = all.find((c) => c.id === id)
        if (Option.isNone(project) || cohort === undefined || cohort.is_static) return
        const started = yield* store.startCalculation(projectId, id, ago(ABANDONED_AFTER))
        if (Option.isNone(started)) return
        const version = started.value
        const at = new Date()
        const options = { timezone: project.value.timezone, now: at }
        yield* Effect.gen(function* () {
          const cohorts = cohortMap(all)
          // Who did what each behavioural filter of the cohort (or of the cohorts it nests) asks.
          const did = new Map<string, ReadonlySet<string>>()
          for (const ref of referencedCohorts([{ key: "id", type: "cohort", value: id }], cohorts)) {
            const properties = cohorts.get(ref)?.properties
            for (const filter of properties == null ? [] : filtersIn(properties).filter(isBehavioural)) {
              const key = behaviourKey(filter)
              if (did.has(key)) continue
              const rows = yield* runner.select(project.value, behaviourQuery(filter, options.timezone, at))
              did.set(key, new Set(rows.map(([uuid]) => String(uuid))))
            }
          }
          const { count: total } = yield* persons.list(projectId, { properties: [], limit: 0, offset: 0 })
          let seen = 0
          yield* Effect.provide(
            matchPersons(
              projectId,
              id,
              cohorts,
              options,
              (person) => (filter) => did.get(behaviourKey(filter))?.has(person.uuid) ?? false,
              (batch, members) =>
                Effect.zipRight(
                  store.addCalculated(
                    id,
                    version,
                    members.map((p) => p.id)
                  ),
                  Effect.sync(() => {
                    seen += batch.length
                    progress.set(id, total === 0 ? 0 : Math.min(1, seen / total))
                  })
                )
            ),
            context
          )
          yield* store.finishCalculation(projectId, id, version, at)
        }).pipe(
          // (Stopped by a shutdown, it stays marked running until taken as abandoned.)
          Effect.tapError((error) =>
            Effect.zipRight(
              Effect.logWarning("cohort calculation failed", { cohort: id, error }),
              store.failCalculation(projectId, id, version)
            )
          ),
          Effect.ensuring(Effect.sync(() => progress.delete(id)))
        )
      })

    // The worker: one cohort at a time; a failure is counted on the cohort and the next one goes on.
    yield* Effect.forkScoped(
      Effect.forever(
        Effect.flatMap(queue.take, (ref) => {
          // Taken off first: a change made while it is calculated queues it again.
          queued.delete(ref.id)
          return Effect.ignore(calculate(ref))
        })
      )
    )
    // Cohorts due again (or never calculated, such as those made before this process started).
    yield* Effect.forkScoped(
      Effect.repeat(
        Effect.ignore(
          Effect.flatMap(store.due(ago(RECALCULATE_AFTER), ago(ABANDONED_AFTER), DUE_PER_LOOK), (due) =>
            Effect.forEach(due, enqueue, { discard: true })
          )
        ),
        Schedule.spaced(LOOK_EVERY)
      )
    )

    return CohortCalculation.of({
      request: (projectId, cohortId) =>
        Effect.ignore(
          Effect.flatMap(store.all(projectId), (all) => {
            const cohorts = cohortMap(all)
            // The cohort, and every dynamic cohort using it (their membership follows from its).
            const affected = all.filter(
              (c) =>
                !c.is_static &&
                (c.id === cohortId ||
                  referencedCohorts([{ key: "id", type: "cohort", value: c.id }], cohorts).has(cohortId))
            )
            return Effect.forEach(affected, (c) => enqueue({ project_id: projectId, id: c.id }), { discard: true })
          })
        ),
      progress: (cohortId) => progress.get(cohortId)
    })
  })
)
