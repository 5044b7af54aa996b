import { Context, type Effect, type Option } from "effect"
import type { CohortPatch, NewCohort, StoredCohort } from "../flags/cohortEntity.js"
import type { Person } from "../persons/model.js"
import type { StorageError } from "./StorageError.js"

type Paged = (
  projectId: number,
  cohortId: number,
  page: { readonly limit: number; readonly offset: number }
) => Effect.Effect<{ readonly count: number; readonly results: ReadonlyArray<Person> }, StorageError>

/** A cohort somewhere: what the background calculation is given. */
export interface CohortRef {
  readonly project_id: number
  readonly id: number
}

export type { CohortPatch, NewCohort, StoredCohort }

export class CohortStore extends Context.Tag("@zed/core/CohortStore")<
  CohortStore,
  {
    /** Live cohorts, newest first. */
    readonly list: (
      projectId: number,
      page: { readonly limit: number; readonly offset: number }
    ) => Effect.Effect<{ readonly count: number; readonly results: ReadonlyArray<StoredCohort> }, StorageError>
    readonly get: (projectId: number, id: number) => Effect.Effect<Option.Option<StoredCohort>, StorageError>
    readonly create: (projectId: number, cohort: NewCohort) => Effect.Effect<StoredCohort, StorageError>
    readonly update: (
      projectId: number,
      id: number,
      patch: CohortPatch
    ) => Effect.Effect<Option.Option<StoredCohort>, StorageError>
    /** Every live cohort: what flag evaluation needs. */
    readonly all: (projectId: number) => Effect.Effect<ReadonlyArray<StoredCohort>, StorageError>
    /** Adds persons (by uuid) to a static cohort; answers how many were added. */
    readonly addPersons: (
      projectId: number,
      cohortId: number,
      personUuids: ReadonlyArray<string>
    ) => Effect.Effect<number, StorageError>
    /** A static cohort's listed persons, newest first. */
    readonly persons: Paged
    /** A dynamic cohort's persons as last calculated, newest first. */
    readonly calculatedPersons: Paged
    /**
     * Dynamic cohorts of any project due a calculation: never calculated or last calculated before
     * `before`, and not being calculated (or left calculating since before `stuckBefore`), oldest first.
     */
    readonly due: (
      before: Date,
      stuckBefore: Date,
      limit: number
    ) => Effect.Effect<ReadonlyArray<CohortRef>, StorageError>
    /**
     * Marks a calculation started unless one is running (since `stuckBefore` or later): the version the
     * new membership is written as, none when another is running.
     */
    readonly startCalculation: (
      projectId: number,
      cohortId: number,
      stuckBefore: Date
    ) => Effect.Effect<Option.Option<number>, StorageError>
    /** Writes persons (by id) into the membership being calculated. */
    readonly addCalculated: (
      cohortId: number,
      version: number,
      personIds: ReadonlyArray<number>
    ) => Effect.Effect<void, StorageError>
    /** Makes the calculated membership the cohort's, as of `at`, and drops the one before. */
    readonly finishCalculation: (
      projectId: number,
      cohortId: number,
      version: number,
      at: Date
    ) => Effect.Effect<void, StorageError>
    /** A calculation failed: the membership before stays, the failure is counted. */
    readonly failCalculation: (
      projectId: number,
      cohortId: number,
      version: number
    ) => Effect.Effect<void, StorageError>
  }
>() {}
