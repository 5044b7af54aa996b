export { CohortMatcher, type CohortInputs, cohortIdOf, referencedCohorts } from "./cohorts.js"
export {
  evaluateFlag,
  type EvaluatedFlags,
  type EvaluationResults,
  evaluateFlags,
  type FlagValue
} from "./evaluate.js"
export { flagHash, holdoutHash } from "./hash.js"
export type * from "./model.js"
export {
  FLAG_OPERATORS,
  type FlagOperator,
  isFlagOperator,
  type MatchOptions,
  matchProperty,
  parseRustFloat,
  PERSON_METADATA_KEY_PREFIX,
  toNumber,
  toText
} from "./properties.js"
export {
  compareVersions,
  matchesReq,
  parseVersion,
  parseVersionReq,
  toVersion,
  type Version,
  type VersionReq
} from "./semver.js"
