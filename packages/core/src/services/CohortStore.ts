import { Context, type Effect, type Option } from "effect"
import type { PropertyGroup } from "../flags/model.js"
import type { Person } from "../persons/model.js"
import type { StorageError } from "./StorageError.js"

export interface StoredCohort {
  readonly id: number
  readonly name: string
  readonly description: string
  /** The property definition of a dynamic cohort; null for static ones. */
  readonly properties: PropertyGroup | null
  readonly is_static: boolean
  readonly deleted: boolean
  readonly version: number
  readonly created_by: number | null
  readonly created_at: Date
  readonly updated_at: Date
  /** Members of a static cohort; null for dynamic ones (computed when evaluated). */
  readonly count: number | null
}

export interface NewCohort {
  readonly name: string
  readonly description: string
  readonly properties: PropertyGroup | null
  readonly is_static: boolean
  readonly created_by: number | null
}

export type CohortPatch = {
  readonly name?: string | undefined
  readonly description?: string | undefined
  readonly properties?: PropertyGroup | null | undefined
  readonly deleted?: boolean | undefined
}

export class CohortStore extends Context.Tag("@zed/core/CohortStore")<CohortStore, {
  /** Live cohorts, newest first. */
  readonly list: (projectId: number, page: { readonly limit: number; readonly offset: number }) => Effect.Effect<{ readonly count: number; readonly results: ReadonlyArray<StoredCohort> }, StorageError>
  readonly get: (projectId: number, id: number) => Effect.Effect<Option.Option<StoredCohort>, StorageError>
  readonly create: (projectId: number, cohort: NewCohort) => Effect.Effect<StoredCohort, StorageError>
  readonly update: (projectId: number, id: number, patch: CohortPatch) => Effect.Effect<Option.Option<StoredCohort>, StorageError>
  /** Every live cohort: what flag evaluation needs. */
  readonly all: (projectId: number) => Effect.Effect<ReadonlyArray<StoredCohort>, StorageError>
  /** Adds persons (by uuid) to a static cohort; answers how many were added. */
  readonly addPersons: (projectId: number, cohortId: number, personUuids: ReadonlyArray<string>) => Effect.Effect<number, StorageError>
  readonly persons: (projectId: number, cohortId: number, page: { readonly limit: number; readonly offset: number }) => Effect.Effect<{ readonly count: number; readonly results: ReadonlyArray<Person> }, StorageError>
}>() {}
