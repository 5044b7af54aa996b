import { Schema, Struct } from "effect"
import { withDefaults } from "../schema/defaults.js"

// A survey, declared once (see flags/flagEntity.ts): the stored record, the insert form with
// PostHog's defaults and the patch are derived from these fields, as are the API's wire fields and
// the SQL store's columns. Questions, display conditions and appearance are validated where they
// come in (the surveys API, surveys/definition.ts); stored, they are taken as they are.

const FlagId = Schema.NullOr(Schema.Int)
const Instant = Schema.NullOr(Schema.DateFromSelf)

/** What a survey is created with. */
const given = {
  id: Schema.String,
  name: Schema.String,
  description: Schema.String,
  type: Schema.String,
  schedule: Schema.NullOr(Schema.String),
  questions: Schema.Array(Schema.Unknown),
  conditions: Schema.Unknown,
  appearance: Schema.Unknown,
  linked_flag_id: FlagId,
  targeting_flag_id: FlagId,
  /** The flag that stops showing the survey to people who answered or dismissed it. */
  internal_targeting_flag_id: FlagId,
  start_date: Instant,
  end_date: Instant,
  archived: Schema.Boolean,
  responses_limit: Schema.NullOr(Schema.Int),
  enable_partial_responses: Schema.NullOr(Schema.Boolean),
  created_by: Schema.NullOr(Schema.Int)
}

/** A survey as stored: what it was given plus what the store keeps itself. */
export const Survey = Schema.Struct({
  ...given,
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf
})
export type StoredSurvey = typeof Survey.Type

/** Creating a survey: a draft (no start date) of its questions, the rest PostHog's default. */
export const SurveyInsert = withDefaults(given, {
  description: () => "",
  schedule: () => null,
  conditions: () => null,
  appearance: () => null,
  linked_flag_id: () => null,
  targeting_flag_id: () => null,
  internal_targeting_flag_id: () => null,
  start_date: () => null,
  end_date: () => null,
  archived: () => false,
  responses_limit: () => null,
  enable_partial_responses: () => null
})
export type NewSurvey = typeof SurveyInsert.Type

/** A new survey from what its creator gave, defaults filled in. */
export const newSurvey: (input: typeof SurveyInsert.Encoded) => NewSurvey = Schema.decodeSync(SurveyInsert)

/** A change: any given field but the id and author. */
export const SurveyPatch = Schema.partial(Schema.Struct(Struct.omit(given, "id", "created_by")))
export type SurveyPatch = typeof SurveyPatch.Type
