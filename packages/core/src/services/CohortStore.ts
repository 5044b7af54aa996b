import { Context, type Effect, type Option } from "effect"
import type { CohortPatch, NewCohort, StoredCohort } from "../flags/cohortEntity.js"
import type { Person } from "../persons/model.js"
import type { StorageError } from "./StorageError.js"

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
    readonly persons: (
      projectId: number,
      cohortId: number,
      page: { readonly limit: number; readonly offset: number }
    ) => Effect.Effect<{ readonly count: number; readonly results: ReadonlyArray<Person> }, StorageError>
  }
>() {}
