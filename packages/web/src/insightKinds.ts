import type { Insight } from "./api.js"

// What kind of analysis an insight is, by its query source's node kind, as the list and the page name it.

export const KINDS = {
  TrendsQuery: "Trends",
  FunnelsQuery: "Funnel",
  RetentionQuery: "Retention",
  StickinessQuery: "Stickiness",
  LifecycleQuery: "Lifecycle",
  ZedQLQuery: "SQL",
  HogQLQuery: "SQL"
} as const satisfies Record<string, string>

export type KindLabel = (typeof KINDS)[keyof typeof KINDS]

export const kindOf = (insight: Insight): KindLabel | undefined =>
  (KINDS as Record<string, KindLabel>)[insight.query?.source?.kind ?? ""]

export const insightName = (insight: Insight) => insight.name || insight.derived_name || "Untitled"
