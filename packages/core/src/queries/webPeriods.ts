import { Effect, Schema } from "effect"
import type { InsightContext } from "../insights/plan.js"
import { type DateRange, type Period, previousPeriod, resolvePeriod } from "../insights/planners/dateRange.js"
import { type InsightQueryInvalid, invalid } from "../insights/planners/decode.js"

// The periods of the web analytics kinds: the date range, by the day, and the one before it.

/** `{"compare": false}` turns off the period before. */
export const WebCompareFilter = Schema.Struct({ compare: Schema.optional(Schema.NullOr(Schema.Boolean)) })

/** The period a web analytics node covers and, unless comparing is turned off, the one just before. */
export const webPeriods = (
  node: {
    readonly dateRange?: DateRange | null | undefined
    readonly compareFilter?: typeof WebCompareFilter.Type | null | undefined
  },
  ctx: InsightContext
): Effect.Effect<{ readonly current: Period; readonly previous: Period | null }, InsightQueryInvalid> =>
  Effect.suspend(() => {
    const current = resolvePeriod(node.dateRange, "day", ctx)
    if (current.from === null) return invalid('Web analytics need a date range with a start (not "all")')
    const previous = node.compareFilter?.compare === false ? null : previousPeriod(current, null, ctx)
    return Effect.succeed({ current, previous })
  })
