import { Context, Effect, Layer } from "effect"
import { approximateBytes } from "../cache/bounded.js"
import { makeReadThrough } from "../cache/readThrough.js"
import { CohortStore } from "../services/CohortStore.js"
import type { StoredFlag } from "../services/FlagStore.js"
import { FlagStore } from "../services/FlagStore.js"
import { GroupStore } from "../services/GroupStore.js"
import { SurveyStore } from "../services/SurveyStore.js"
import type { SurveyDates } from "../surveys/schedule.js"
import type { StorageError } from "../services/StorageError.js"
import { behaviouralCohorts, referencedCohorts } from "./cohorts.js"
import type { CohortDefinition, FlagCondition } from "./model.js"

/** A project's flags and what evaluating them needs, read once and kept in memory. */
export interface FlagSnapshot {
  /** Live flags (active or not), by id. */
  readonly flags: ReadonlyArray<StoredFlag>
  readonly cohorts: ReadonlyMap<number, CohortDefinition>
  /** Group type index → name, and name → index. */
  readonly groupTypes: ReadonlyMap<number, string>
  readonly groupTypeIndex: ReadonlyMap<string, number>
  /** Live flags by key. */
  readonly byKey: ReadonlyMap<string, StoredFlag>
  /**
   * Static and behavioural cohorts the flags refer to, directly or through other cohorts: their
   * (listed or calculated) membership is read per request.
   */
  readonly staticCohortIds: ReadonlyArray<number>
  /** Active flags with experience continuity: they need the person's hash key overrides. */
  readonly continuityKeys: ReadonlyArray<string>
  /** Whether any flag is active: posthog-js only asks for flags then. */
  readonly hasActiveFlags: boolean
  /** When the project's surveys run, for the `surveys` switch of the config /decide carries. */
  readonly surveys: ReadonlyArray<SurveyDates>
}

export class FlagDefinitions extends Context.Tag("@zed/core/FlagDefinitions")<
  FlagDefinitions,
  {
    readonly get: (projectId: number) => Effect.Effect<FlagSnapshot, StorageError>
    /** The kept snapshot, without reading; undefined when none is kept. */
    readonly peek: (projectId: number) => FlagSnapshot | undefined
    /** Drop the project's snapshot after a change made here (other instances catch up within the TTL). */
    readonly invalidate: (projectId: number) => Effect.Effect<void>
  }
>() {}

/** How long a snapshot serves other instances' changes late. */
const TTL = 15_000
/** How long past that a snapshot is still served while it is read again, so requests never wait on it. */
const STALE_FOR = 5 * 60_000

const conditionsOf = (flag: StoredFlag): ReadonlyArray<FlagCondition> => [
  ...(flag.filters.groups ?? []),
  ...(flag.filters.super_groups ?? []),
  ...(flag.filters.holdout_groups ?? [])
]

export const snapshotOf = (
  flags: ReadonlyArray<StoredFlag>,
  cohorts: ReadonlyMap<number, CohortDefinition>,
  groupTypes: ReadonlyMap<number, string>,
  surveys: ReadonlyArray<SurveyDates> = []
): FlagSnapshot => {
  const referenced = referencedCohorts(
    flags.flatMap((f) => conditionsOf(f).flatMap((c) => c.properties ?? [])),
    cohorts
  )
  return {
    flags,
    cohorts,
    groupTypes,
    groupTypeIndex: new Map([...groupTypes].map(([index, name]) => [name, index])),
    byKey: new Map(flags.map((f) => [f.key, f])),
    staticCohortIds: [...referenced].filter(
      (id) => cohorts.get(id)?.is_static === true || behaviouralCohorts(cohorts).has(id)
    ),
    continuityKeys: flags.filter((f) => f.active && f.ensure_experience_continuity).map((f) => f.key),
    hasActiveFlags: flags.some((f) => f.active),
    surveys
  }
}

export const FlagDefinitionsLive = Layer.scoped(
  FlagDefinitions,
  Effect.gen(function* () {
    const flags = yield* FlagStore
    const cohorts = yield* CohortStore
    const groups = yield* GroupStore
    const surveys = yield* SurveyStore
    // A snapshot's size follows its project's flags and cohorts, from a few bytes to megabytes.
    const cache = yield* makeReadThrough({
      capacity: 10_000,
      weigh: approximateBytes,
      maxBytes: 64 * 1024 * 1024,
      timeToLive: () => TTL,
      staleFor: () => STALE_FOR,
      lookup: (projectId: number) =>
        Effect.map(
          Effect.all(
            [flags.all(projectId), cohorts.all(projectId), groups.types(projectId), surveys.unarchived(projectId)],
            { concurrency: "unbounded" }
          ),
          ([all, stored, types, running]) =>
            snapshotOf(
              all,
              new Map(stored.map((c) => [c.id, { id: c.id, is_static: c.is_static, properties: c.properties }])),
              new Map([...types].map(([name, index]) => [index, name])),
              running.map(({ archived, end_date, start_date }) => ({ archived, end_date, start_date }))
            )
        )
    })
    return FlagDefinitions.of({
      get: cache.get,
      peek: cache.peek,
      invalidate: (projectId) => Effect.sync(() => cache.invalidate(projectId))
    })
  })
)
