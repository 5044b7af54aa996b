import { Effect, Schema } from "effect"
import type { InsightContext, InsightPlan } from "../insights/plan.js"
import { DateRange, timeBounds } from "../insights/planners/dateRange.js"
import { type InsightQueryInvalid, invalid } from "../insights/planners/decode.js"
import { Properties, propertiesCondition, UnsupportedFilter } from "../insights/planners/properties.js"
import { dateTime, planValues, shownStatements } from "../insights/planners/statements.js"
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
    let queries
    try {
      const properties = propertiesCondition(node.properties)
      // Both periods in one statement: the period before ends where this one starts, and `p` tells
      // them apart (0 this one, 1 the one before). The page views are read once, and their sessions
      // (each whole, its events outside the range too) computed only for the sessions they are in.
      const where = Q.and([
        Q.expr`event = '$pageview'`,
        ...timeBounds(current, previous?.from ?? current.from),
        ...(properties ? [properties] : [])
      ])
      const p = previous === null ? Q.constant(0) : Q.expr`if(timestamp >= ${dateTime(current.from!)}, 0, 1)`
      queries = [
        Q.select`WITH views AS (SELECT ${p} AS p, person_id, \`$session_id\` AS id FROM events WHERE ${where}),
          visited AS (SELECT DISTINCT p, id FROM views WHERE id != ''),
          per_period AS (SELECT v.p AS p, count() AS sessions, avg(s.$session_duration) AS duration,
              avgIf(if(s.$is_bounce, 1, 0), isNotNull(s.$is_bounce)) AS bounce
            FROM visited AS v JOIN sessions AS s ON s.session_id = v.id
            WHERE s.session_id IN (SELECT id FROM visited) GROUP BY v.p)
        SELECT a.p, a.visitors, a.views, b.sessions, b.duration, b.bounce
        FROM (SELECT p, uniq(person_id) AS visitors, count() AS views FROM views GROUP BY p) AS a
          LEFT JOIN per_period AS b ON b.p = a.p`
      ]
    } catch (error) {
      if (error instanceof UnsupportedFilter) return invalid(error.message)
      throw error
    }
    const values = planValues(ctx)
    /** The figures of period `p`, from its row (none when it had no page view). */
    const figures = (p: number, rows: ReadonlyArray<ReadonlyArray<unknown>> = []): Array<number | null> => {
      const [visitors, count, n, duration, bounce] = rows.find((r) => Number(r[0]) === p)?.slice(1) ?? []
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
      shape: ([rows]) => {
        const now = figures(0, rows)
        const before = compare ? figures(1, rows) : undefined
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
