import { Schema, Struct } from "effect"
import { withDefaults } from "../schema/defaults.js"

// An early access feature, declared once (see flags/flagEntity.ts): the stored record, the insert
// form with PostHog's defaults and the patch are derived from these fields, as are the API's wire
// fields and the SQL store's columns.

/** What a feature is created with. */
const given = {
  id: Schema.String,
  /** The flag that releases it; it is made with the feature unless an existing one is named. */
  feature_flag_id: Schema.Int,
  name: Schema.String,
  description: Schema.String,
  /** One of earlyAccess/stages.ts's STAGES, checked where it comes in. */
  stage: Schema.String,
  documentation_url: Schema.String
}

/** A feature as stored: what it was given plus when it was made. */
export const EarlyAccessFeature = Schema.Struct({ ...given, created_at: Schema.DateFromSelf })
export type StoredEarlyAccessFeature = typeof EarlyAccessFeature.Type

/** Creating a feature: without description or documentation unless given. */
export const EarlyAccessFeatureInsert = withDefaults(given, {
  description: () => "",
  documentation_url: () => ""
})
export type NewEarlyAccessFeature = typeof EarlyAccessFeatureInsert.Type

/** A new feature from what its creator gave, defaults filled in. */
export const newEarlyAccessFeature: (input: typeof EarlyAccessFeatureInsert.Encoded) => NewEarlyAccessFeature =
  Schema.decodeSync(EarlyAccessFeatureInsert)

/** A change: its name, description, stage or documentation. */
export const EarlyAccessFeaturePatch = Schema.partial(
  Schema.Struct(Struct.pick(given, "name", "description", "stage", "documentation_url"))
)
export type EarlyAccessFeaturePatch = typeof EarlyAccessFeaturePatch.Type
