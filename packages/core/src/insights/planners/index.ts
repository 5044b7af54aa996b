import { Effect, Either } from "effect"
import type { InsightContext, InsightPlan } from "../plan.js"
import type { InsightQueryInvalid } from "./decode.js"
import { planFunnels } from "./funnels.js"
import { planLifecycle } from "./lifecycle.js"
import { planPaths } from "./paths.js"
import { planRetention } from "./retention.js"
import { planStickiness } from "./stickiness.js"
import { planTrends } from "./trends.js"

export type Planner = (source: unknown, ctx: InsightContext) => Effect.Effect<InsightPlan, InsightQueryInvalid>

/** The insight kinds, each planned into ZedQL statements. */
export const PLANNERS: Readonly<Record<string, Planner>> = {
  TrendsQuery: planTrends,
  FunnelsQuery: planFunnels,
  RetentionQuery: planRetention,
  StickinessQuery: planStickiness,
  LifecycleQuery: planLifecycle,
  PathsQuery: planPaths
}

/**
 * Why an insight source cannot be planned, or undefined: checked when an insight is saved, so that
 * a stored insight can always be shown. Planning is pure and synchronous (templates are parsed when
 * Zed is built), so it is run here as it would be later.
 */
export const planProblem = (source: { readonly kind: string }): string | undefined => {
  const planner = Object.hasOwn(PLANNERS, source.kind) ? PLANNERS[source.kind]! : undefined
  if (planner === undefined) return undefined
  const planned = Effect.runSync(Effect.either(planner(source, { timezone: "UTC", now: new Date(), weekStartDay: 0 })))
  return Either.isLeft(planned) ? planned.left.message : undefined
}
