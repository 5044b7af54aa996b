import { evaluateFlag } from "../src/flags/evaluate.js"
import type { EvaluationContext, FlagDefinition, FlagFilters } from "../src/flags/model.js"

// Building blocks of the evaluator's unit tests: a flag with defaults, and a request context.

let nextId = 1
export const flag = (key: string, filters: FlagFilters, extra: Partial<FlagDefinition> = {}): FlagDefinition => ({
  id: ++nextId,
  key,
  name: "",
  active: true,
  deleted: false,
  version: 1,
  ensure_experience_continuity: false,
  bucketing_identifier: null,
  evaluation_runtime: "all",
  evaluation_contexts: [],
  has_experiment: false,
  filters,
  ...extra
})

export const context = (overrides: Partial<EvaluationContext> = {}): EvaluationContext => ({
  distinctId: "user-1",
  personProperties: {},
  groups: {},
  groupProperties: {},
  groupTypes: new Map([
    [0, "company"],
    [1, "organization"]
  ]),
  cohorts: new Map(),
  staticCohorts: new Set(),
  unavailableCohorts: new Set(),
  hashKeyOverrides: {},
  anonDistinctId: undefined,
  deviceId: undefined,
  propertyMatchingVersion: 1,
  timezone: "UTC",
  now: new Date("2026-01-15T12:00:00Z"),
  runtime: undefined,
  evaluationContexts: undefined,
  flagKeys: undefined,
  ...overrides
})

export const variants = (...pairs: ReadonlyArray<readonly [string, number]>) => ({
  variants: pairs.map(([key, rollout_percentage]) => ({ key, rollout_percentage }))
})

/** A flag's value as SDKs see it: false, true, or the variant. */
export const value = (f: FlagDefinition, ctx: EvaluationContext) => {
  const result = evaluateFlag(f, ctx)
  return result.enabled ? (result.variant ?? true) : false
}
