/** The insight kinds, planned as saved insights are (insights/planners). */
export const INSIGHT_KINDS = [
  "TrendsQuery",
  "FunnelsQuery",
  "RetentionQuery",
  "StickinessQuery",
  "LifecycleQuery",
  "PathsQuery"
] as const
