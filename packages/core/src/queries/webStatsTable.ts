import { Effect, Schema } from "effect"
import type { InsightContext, InsightPlan } from "../insights/plan.js"
import { DateRange, type Period, timeBounds } from "../insights/planners/dateRange.js"
import { type InsightQueryInvalid, invalid } from "../insights/planners/decode.js"
import { Properties, propertiesCondition, UnsupportedFilter } from "../insights/planners/properties.js"
import { planValues, ROWS, shownStatements } from "../insights/planners/statements.js"
import type * as A from "../zedql/ast.js"
import * as Q from "../zedql/build.js"
import { IntIn } from "../schema/fields.js"
import { PASSED_FIELDS } from "./nodeFields.js"
import { WebCompareFilter, webPeriods } from "./webPeriods.js"

// PostHog's WebStatsTableQuery: page views broken down by a page, a session's entry (its first
// page, referrer, UTM tags) or exit, or the viewer's country, device, browser or OS; per value the
// visitors and views, each beside the period of the same length before.

const Strict = { onExcessProperty: "error" } as const

/** Each breakdown and the value of a page view it groups by. */
const BREAKDOWNS: Readonly<Record<string, A.Expr>> = {
  Page: Q.expr`properties.$pathname`,
  InitialPage: Q.expr`session.$entry_pathname`,
  ExitPage: Q.expr`session.$end_pathname`,
  InitialReferringDomain: Q.expr`session.$entry_referring_domain`,
  InitialUTMSource: Q.expr`session.$entry_utm_source`,
  InitialUTMMedium: Q.expr`session.$entry_utm_medium`,
  InitialUTMCampaign: Q.expr`session.$entry_utm_campaign`,
  Country: Q.expr`properties.$geoip_country_code`,
  DeviceType: Q.expr`properties.$device_type`,
  Browser: Q.expr`properties.$browser`,
  OS: Q.expr`properties.$os`
}

export const WebStatsTableQueryNode = Schema.Struct({
  kind: Schema.Literal("WebStatsTableQuery"),
  breakdownBy: Schema.Literal(...Object.keys(BREAKDOWNS)),
  dateRange: Schema.optional(Schema.NullOr(DateRange)),
  properties: Schema.optional(Properties),
  filterTestAccounts: Schema.optional(Schema.NullOr(Schema.Boolean)),
  compareFilter: Schema.optional(Schema.NullOr(WebCompareFilter)),
  limit: Schema.optional(Schema.NullOr(IntIn(1, ROWS - 1))),
  offset: Schema.optional(Schema.NullOr(IntIn(0))),
  ...PASSED_FIELDS
}).annotations({ identifier: "WebStatsTableQuery", parseOptions: Strict })
export type WebStatsTableQueryNode = typeof WebStatsTableQueryNode.Type

const DEFAULT_LIMIT = 10

export const planWebStatsTable = (
  node: WebStatsTableQueryNode,
  ctx: InsightContext
): Effect.Effect<InsightPlan, InsightQueryInvalid> =>
  Effect.flatMap(webPeriods(node, ctx), ({ current, previous }) => {
    const compare = previous !== null
    const limit = node.limit ?? DEFAULT_LIMIT
    const offset = node.offset ?? 0
    const value = BREAKDOWNS[node.breakdownBy]!
    let queries
    try {
      const properties = propertiesCondition(node.properties)
      const where = (period: Period) =>
        Q.and([Q.expr`event = '$pageview'`, ...timeBounds(period), ...(properties ? [properties] : [])])
      // One more row than the page, to tell whether there are more; the period before, every value.
      queries = [
        // PostHog's order (visitors, views, value), and each row's share of all the visitors (its `ui_fill_fraction`).
        Q.select`SELECT value, visitors, views, visitors / sum(visitors) OVER () FROM (
            SELECT toString(${value}) AS value, uniq(person_id) AS visitors, count() AS views FROM events WHERE ${where(current)} GROUP BY value)
          ORDER BY visitors DESC, views DESC, value LIMIT ${limit + 1} OFFSET ${offset}`,
        ...(previous === null
          ? []
          : [
              Q.select`SELECT toString(${value}) AS value, uniq(person_id), count() FROM events WHERE ${where(previous)}
                GROUP BY value LIMIT ${ROWS}`
            ])
      ]
    } catch (error) {
      if (error instanceof UnsupportedFilter) return invalid(error.message)
      throw error
    }
    const values = planValues(ctx)
    return Effect.succeed<InsightPlan>({
      queries,
      values,
      zedql: shownStatements(queries, values, ";\n"),
      shape: ([rows = [], before = []]) => {
        const previous = new Map(before.map(([v, visitors, views]) => [v, [Number(visitors), Number(views)]]))
        return rows.slice(0, limit).map(([v, visitors, views, fraction]) => {
          const [visitorsBefore, viewsBefore] = compare ? (previous.get(v) ?? [0, 0]) : [null, null]
          // PostHog's last column, its cross-sell hint, is always empty.
          return [v, [Number(visitors), visitorsBefore], [Number(views), viewsBefore], Number(fraction), ""]
        })
      },
      fields: ([rows = []]) => ({
        columns: [
          "context.columns.breakdown_value",
          "context.columns.visitors",
          "context.columns.views",
          "context.columns.ui_fill_fraction",
          "context.columns.cross_sell"
        ],
        types: ["String", "Tuple(UInt64, UInt64)", "Tuple(UInt64, UInt64)", "Float64", "String"],
        hasMore: rows.length > limit,
        limit,
        offset,
        samplingRate: { numerator: 1 },
        usedPreAggregatedTables: false
      })
    })
  })
