import { Schema } from "effect"
import { withDefaults } from "../schema/defaults.js"

// An experiment holdout (PostHog's `ExperimentHoldout`): a share of persons kept out of every
// experiment that uses it. Its `filters` are PostHog's: one group `{properties: [], rollout_percentage,
// variant: "holdout-<id>"}`, the percentage being the share held out.

/** PostHog's holdout group; only the first one's percentage counts, as in the flags service. */
export const HoldoutGroup = Schema.Struct({
  properties: Schema.Array(Schema.Unknown),
  rollout_percentage: Schema.Number,
  variant: Schema.NullOr(Schema.String)
})
export type HoldoutGroup = typeof HoldoutGroup.Type

const given = {
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  filters: Schema.Array(HoldoutGroup),
  created_by: Schema.NullOr(Schema.Int)
}

export const Holdout = Schema.Struct({
  id: Schema.Int,
  ...given,
  deleted: Schema.Boolean,
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf
})
export type StoredHoldout = typeof Holdout.Type

export const HoldoutInsert = withDefaults(given, { description: () => null, created_by: () => null })
export type NewHoldout = typeof HoldoutInsert.Type

export const newHoldout: (input: typeof HoldoutInsert.Encoded) => NewHoldout = Schema.decodeSync(HoldoutInsert)

export const HoldoutPatch = Schema.partial(
  Schema.Struct({ name: given.name, description: given.description, filters: given.filters, deleted: Schema.Boolean })
)
export type HoldoutPatch = typeof HoldoutPatch.Type

/** The variant its persons get. */
export const holdoutVariant = (id: number): string => `holdout-${id}`

/** The share held out, percent: the first group's. */
export const exclusionOf = (holdout: Pick<StoredHoldout, "filters">): number =>
  holdout.filters[0]?.rollout_percentage ?? 0

/**
 * What a flag carries for a holdout: PostHog's `holdout` (what its flags service and SDKs read) and
 * the older `holdout_groups`, both giving the same persons `holdout-<id>` before any condition.
 */
export const flagHoldoutFilters = (holdout: Pick<StoredHoldout, "id" | "filters"> | null) =>
  holdout === null
    ? { holdout: null, holdout_groups: null }
    : {
        holdout: { id: holdout.id, exclusion_percentage: exclusionOf(holdout) },
        holdout_groups: [
          { properties: [], rollout_percentage: exclusionOf(holdout), variant: holdoutVariant(holdout.id) }
        ]
      }
