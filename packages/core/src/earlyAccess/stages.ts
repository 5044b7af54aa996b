import type { FlagCondition, FlagFilters } from "../flags/model.js"

// An early access feature's stage and what it does to the feature's flag. At a release stage
// (concept to general availability) people may opt in: posthog-js sets their
// `$feature_enrollment/<flag key>` property, and the flag's super condition turns it on for them.

export const STAGES = ["draft", "concept", "alpha", "beta", "general-availability", "archived"] as const
export type Stage = (typeof STAGES)[number]

export const RELEASE_STAGES: ReadonlyArray<Stage> = ["concept", "alpha", "beta", "general-availability"]

/** What posthog-js lists when it names no stage. */
export const DEFAULT_PUBLIC_STAGES: ReadonlyArray<Stage> = ["beta"]

export const isReleaseStage = (stage: string) => (RELEASE_STAGES as ReadonlyArray<string>).includes(stage)

const enrollment = (flagKey: string): ReadonlyArray<FlagCondition> => [
  {
    properties: [{ key: `$feature_enrollment/${flagKey}`, type: "person", operator: "exact", value: ["true"] }],
    rollout_percentage: 100
  }
]

/** The flag's filters for a stage: the opt-in super condition at a release stage, none otherwise. */
export const filtersAtStage = (flagKey: string, filters: FlagFilters, stage: string): FlagFilters => {
  const { super_groups: _, ...rest } = filters
  return isReleaseStage(stage) ? { ...rest, super_groups: enrollment(flagKey) } : rest
}

/** A new feature's flag: off for everyone but those who opt in. */
export const newFeatureFilters = (flagKey: string, stage: string): FlagFilters =>
  filtersAtStage(flagKey, { groups: [{ properties: [], rollout_percentage: 0, variant: null }] }, stage)

/** A flag key from a feature's name, as PostHog slugifies it: ASCII letters, digits, `_` and `-`. */
export const flagKeyOf = (name: string) =>
  name
    .normalize("NFKD")
    .replace(/[^\x00-\x7f]/g, "")
    .toLowerCase()
    .replace(/[^\w\s-]/g, "")
    .replace(/[-\s]+/g, "-")
    .replace(/^[-_]+|[-_]+$/g, "")
