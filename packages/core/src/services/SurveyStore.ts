import { Context, type Effect, type Option } from "effect"
import type { StorageError } from "./StorageError.js"
import type { NewSurvey, StoredSurvey, SurveyPatch } from "../surveys/surveyEntity.js"

// Surveys posthog-js shows: their questions, display conditions and appearance as validated JSON,
// the flags that target them, and when they run.

export type { NewSurvey, StoredSurvey, SurveyPatch }

export interface SurveyQuery {
  readonly archived?: boolean | undefined
  /** Case-insensitive part of the name or description. */
  readonly search?: string | undefined
  readonly limit: number
  readonly offset: number
}

export class SurveyStore extends Context.Tag("@zed/core/SurveyStore")<
  SurveyStore,
  {
    /** Newest first. */
    readonly list: (
      projectId: number,
      query: SurveyQuery
    ) => Effect.Effect<{ readonly count: number; readonly results: ReadonlyArray<StoredSurvey> }, StorageError>
    /** Every survey not archived, newest first: what posthog-js may show. */
    readonly unarchived: (projectId: number) => Effect.Effect<ReadonlyArray<StoredSurvey>, StorageError>
    readonly get: (projectId: number, id: string) => Effect.Effect<Option.Option<StoredSurvey>, StorageError>
    /** Fails with a conflict when another survey of the project has the name. */
    readonly create: (projectId: number, survey: NewSurvey) => Effect.Effect<StoredSurvey, StorageError>
    /** Fails with a conflict when the new name is another survey's. */
    readonly update: (
      projectId: number,
      id: string,
      patch: SurveyPatch
    ) => Effect.Effect<Option.Option<StoredSurvey>, StorageError>
    /** Deletes it for good; false when there was none. */
    readonly remove: (projectId: number, id: string) => Effect.Effect<boolean, StorageError>
  }
>() {}
