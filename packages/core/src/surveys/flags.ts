import { randomBytes } from "node:crypto"
import type { FlagFilters } from "../flags/model.js"

// The flags PostHog makes for a survey: a targeting flag from the survey's own targeting filters,
// and an internal one that stops showing it to people who answered or dismissed it (posthog-js
// sets `$survey_responded/<id>` and `$survey_dismissed/<id>` on them), and, with a wait period, to
// people who saw any survey (`$survey_last_seen_date`) within that many days.

export const TARGETING_FLAG_PREFIX = "survey-targeting-"

/** A new flag key for a survey: PostHog's prefix, ten random hex digits, and a suffix for the internal flag. */
export const targetingFlagKey = (suffix: "" | "-custom") =>
  `${TARGETING_FLAG_PREFIX}${randomBytes(5).toString("hex")}${suffix}`

export const internalTargetingFilters = (surveyId: string, waitPeriodDays: number | null | undefined): FlagFilters => {
  const notInteracted = ["dismissed", "responded"].map((action) => ({
    key: `$survey_${action}/${surveyId}`,
    type: "person" as const,
    operator: "is_not_set" as const,
    value: "is_not_set"
  }))
  const lastSeen = "$survey_last_seen_date"
  if (waitPeriodDays === null || waitPeriodDays === undefined || waitPeriodDays <= 0) {
    return { groups: [{ properties: notInteracted, rollout_percentage: 100, variant: null }] }
  }
  return {
    groups: [
      {
        properties: [...notInteracted, { key: lastSeen, type: "person", operator: "is_not_set", value: "is_not_set" }],
        rollout_percentage: 100,
        variant: null
      },
      {
        properties: [
          ...notInteracted,
          { key: lastSeen, type: "person", operator: "is_date_before", value: `-${waitPeriodDays}d` }
        ],
        rollout_percentage: 100,
        variant: null
      }
    ]
  }
}
