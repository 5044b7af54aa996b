import { Effect, Schema } from "effect"
import type { InsightContext, InsightPlan } from "../insights/plan.js"
import { DateRange, timeBounds } from "../insights/planners/dateRange.js"
import { type InsightQueryInvalid, invalid } from "../insights/planners/decode.js"
import { Properties, propertiesCondition, UnsupportedFilter } from "../insights/planners/properties.js"
import { planValues, shownStatements } from "../insights/planners/statements.js"
import * as Q from "../zedql/build.js"
import { PASSED_FIELDS } from "./nodeFields.js"
import { WebCompareFilter, webPeriods } from "./webPeriods.js"

// PostHog's WebOverviewQuery: visitors, page views, sessions, session duration and bounce rate over
// a date range, each beside the period of the same length before it. Page views are `$pageview`
// events; sessions, their duration and bounce, the `sessions` table's rows of those events'
// `$session_id`.

const Strict = { onExcessProperty: "error" } as const

export const WebOverviewQueryNode = Schema.Struct({
  kind: Schema.Literal("WebOverviewQuery"),
  dateRange: Schema.optional(Schema.NullOr(DateRange)),
  properties: Schema.optional(Properties),
  filterTestAccounts: Schema.optional(Schema.NullOr(Schema.Boolean)),
  compareFilter: Schema.optional(Schema.NullOr(WebCompareFilter)),
  includeRevenue: Schema.optional(Schema.NullOr(Schema.Boolean)),
  ...PASSED_FIELDS
}).annotations({ identifier: "WebOverviewQuery", parseOptions: Strict })
export type WebOverviewQueryNode = typeof WebOverviewQueryNode.Type

/** The figures, in the order of each statement's columns: key, PostHog's kind, whether more is worse. */
const FIGURES = [
  ["visitors", "unit", false],
  ["views", "unit", false],
  ["sessions", "unit", false],
  ["session duration", "duration_s", false],
  ["bounce rate", "percentage", true]
] as const

const round = (n: number) => Math.round(n * 1000) / 1000

export const planWebOverview = (
  node: WebOverviewQueryNode,
  ctx: InsightContext
): Effect.Effect<InsightPlan, InsightQueryInvalid> =>
  Effect.flatMap(webPeriods(node, ctx), ({ current, previous }) => {
    const compare = previous !== null
    const periods = previous === null ? [current] : [current, previous]
    let queries
    try {
      const properties = propertiesCondition(node.properties)
      queries = periods.flatMap((period) => {
        const where = Q.and([Q.expr`event = '$pageview'`, ...timeBounds(period), ...(properties ? [properties] : [])])
        const sessions = Q.select`SELECT \`$session_id\` AS id, any(session.$session_duration) AS duration,
          any(session.$is_bounce) AS bounce FROM events WHERE ${where} AND \`$session_id\` != '' GROUP BY id`
        return [
          Q.select`SELECT uniq(person_id), count() FROM events WHERE ${where}`,
          Q.select`SELECT count(), avg(duration), avgIf(if(bounce, 1, 0), isNotNull(bounce)) FROM ${sessions}`
        ]
      })
    } catch (error) {
      if (error instanceof UnsupportedFilter) return invalid(error.message)
      throw error
    }
    const values = planValues(ctx)
    /** The figures of a period, from its two statements' rows. */
    const figures = (
      views: ReadonlyArray<ReadonlyArray<unknown>> = [],
      sessions: ReadonlyArray<ReadonlyArray<unknown>> = []
    ): Array<number | null> => {
      const [visitors, count] = views[0] ?? []
      const [n, duration, bounce] = sessions[0] ?? []
      const number = (v: unknown) => (v == null ? null : round(Number(v)))
      return [
        Number(visitors ?? 0),
        Number(count ?? 0),
        Number(n ?? 0),
        number(duration),
        bounce == null ? null : round(Number(bounce) * 100)
      ]
    }
    return Effect.succeed<InsightPlan>({
      queries,
      values,
      zedql: shownStatements(queries, values, ";\n"),
      shape: ([views, sessions, viewsBefore, sessionsBefore]) => {
        const now = figures(views, sessions)
        const before = compare ? figures(viewsBefore, sessionsBefore) : undefined
        return FIGURES.map(([key, kind, isIncreaseBad], i) => {
          const value = now[i]!
          const previous = before?.[i] ?? null
          return {
            key,
            kind,
            isIncreaseBad,
            value,
            previous,
            changeFromPreviousPct:
              value === null || previous === null || previous === 0
                ? null
                : Math.round(((value - previous) / previous) * 100)
          }
        })
      },
      fields: () => ({
        dateFrom: new Date(current.from ?? 0).toISOString(),
        dateTo: new Date(current.to).toISOString(),
        samplingRate: { numerator: 1 },
        usedPreAggregatedTables: false
      })
    })
  })
