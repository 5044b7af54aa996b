import { Schema, Struct } from "effect"
import { withDefaults } from "../schema/defaults.js"

// An experiment, declared once (see flags/flagEntity.ts): an A/B test on a multivariate feature
// flag, with the metrics it is judged by. The stored record, the insert form with PostHog's
// defaults and the patch are derived from these fields, as are the API's wire fields and the SQL
// store's columns. Parameters, metrics and exposure criteria are validated where they come in (the
// experiments API, experiments/definition.ts); stored, they are taken as they are.

const Instant = Schema.NullOr(Schema.DateFromSelf)
const Json = Schema.Unknown

/** What an experiment is created with. */
const given = {
  name: Schema.String,
  description: Schema.String,
  /** Zed's own (PostHog has none): what the experiment sets out to show, apart from the description. */
  hypothesis: Schema.NullOr(Schema.String),
  feature_flag_id: Schema.Int,
  /** The holdout whose persons get `holdout-<id>` instead of a variant. */
  holdout_id: Schema.NullOr(Schema.Int),
  /** `feature_flag_variants`, `minimum_detectable_effect`, … as PostHog keeps them. */
  parameters: Json,
  /** PostHog's legacy insight filters: kept as given. */
  filters: Json,
  metrics: Schema.Array(Json),
  metrics_secondary: Schema.Array(Json),
  exposure_criteria: Schema.NullOr(Json),
  stats_config: Schema.NullOr(Json),
  start_date: Instant,
  end_date: Instant,
  archived: Schema.Boolean,
  type: Schema.String,
  conclusion: Schema.NullOr(Schema.String),
  conclusion_comment: Schema.NullOr(Schema.String),
  created_by: Schema.NullOr(Schema.Int)
}

/** An experiment as stored: what it was given plus what the store keeps itself. */
export const Experiment = Schema.Struct({
  id: Schema.Int,
  ...given,
  deleted: Schema.Boolean,
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf
})
export type StoredExperiment = typeof Experiment.Type

/** Creating an experiment: a draft (no start date) unless given one, the rest PostHog's default. */
export const ExperimentInsert = withDefaults(given, {
  description: () => "",
  hypothesis: () => null,
  holdout_id: () => null,
  parameters: () => ({}),
  filters: () => ({}),
  metrics: () => [],
  metrics_secondary: () => [],
  exposure_criteria: () => null,
  stats_config: () => null,
  start_date: () => null,
  end_date: () => null,
  archived: () => false,
  type: () => "product",
  conclusion: () => null,
  conclusion_comment: () => null,
  created_by: () => null
})
export type NewExperiment = typeof ExperimentInsert.Type

/** A new experiment from what its creator gave, defaults filled in. */
export const newExperiment: (input: typeof ExperimentInsert.Encoded) => NewExperiment =
  Schema.decodeSync(ExperimentInsert)

/** A change: any given field but the flag and author, or soft deletion. */
export const ExperimentPatch = Schema.partial(
  Schema.Struct(Struct.omit(given, "feature_flag_id", "created_by")).pipe(
    Schema.extend(Schema.Struct({ deleted: Schema.Boolean }))
  )
)
export type ExperimentPatch = typeof ExperimentPatch.Type

/** Where an experiment is in its life: no start date, started, ended. */
export type ExperimentStatus = "draft" | "running" | "stopped"

export const statusOf = (e: Pick<StoredExperiment, "start_date" | "end_date">): ExperimentStatus =>
  e.start_date === null ? "draft" : e.end_date === null ? "running" : "stopped"
