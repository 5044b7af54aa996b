import { Context, type Effect, type Option } from "effect"
import type { StorageError } from "./StorageError.js"

// Surveys posthog-js shows: their questions, display conditions and appearance as validated JSON,
// the flags that target them, and when they run.

export interface StoredSurvey {
  readonly id: string
  readonly name: string
  readonly description: string
  readonly type: string
  readonly schedule: string | null
  readonly questions: ReadonlyArray<unknown>
  readonly conditions: unknown
  readonly appearance: unknown
  readonly linked_flag_id: number | null
  readonly targeting_flag_id: number | null
  /** The flag that stops showing the survey to people who answered or dismissed it. */
  readonly internal_targeting_flag_id: number | null
  readonly start_date: Date | null
  readonly end_date: Date | null
  readonly archived: boolean
  readonly responses_limit: number | null
  readonly enable_partial_responses: boolean | null
  readonly created_by: number | null
  readonly created_at: Date
  readonly updated_at: Date
}

export type NewSurvey = Omit<StoredSurvey, "created_at" | "updated_at">

type Editable = Omit<NewSurvey, "id" | "created_by">

export type SurveyPatch = { readonly [K in keyof Editable]?: Editable[K] | undefined }

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
