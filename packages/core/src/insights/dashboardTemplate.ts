import { Effect } from "effect"
import { shortId } from "../activity/log.js"
import { InsightStore } from "../services/InsightStore.js"
import { newDashboard } from "./dashboardEntity.js"
import { newInsight } from "./insightEntity.js"

// The dashboard a new project starts with (PostHog's "DEFAULT_APP" template): what posthog-js
// sends without any set-up — `$pageview` with `$pathname`, and `$identify` when a visitor signs up
// and the app identifies them — drawn as traffic, visitors, top pages, sign-up and retention.

const LAST_30_DAYS = { date_from: "-30d" }
const pageviews = { kind: "EventsNode", event: "$pageview", name: "$pageview" }
const trends = (fields: Record<string, unknown>) => ({
  kind: "InsightVizNode",
  source: { kind: "TrendsQuery", interval: "day", dateRange: LAST_30_DAYS, ...fields }
})

/** The template's tiles: name, description, query node and where each sits on the 12-column grid. */
export const TEMPLATE_TILES = [
  {
    name: "Page views",
    description: "Pages viewed per day.",
    query: trends({ series: [{ ...pageviews, math: "total" }] }),
    layout: { x: 0, y: 0, w: 6, h: 5 }
  },
  {
    name: "Unique users",
    description: "Persons who viewed a page, per day.",
    query: trends({ series: [{ ...pageviews, math: "dau" }] }),
    layout: { x: 6, y: 0, w: 6, h: 5 }
  },
  {
    name: "Top pages",
    description: "Page views by path over the last 30 days.",
    query: trends({
      series: [{ ...pageviews, math: "total" }],
      breakdownFilter: { breakdown_type: "event", breakdown: "$pathname", breakdown_limit: 10 },
      trendsFilter: { display: "ActionsTable" }
    }),
    layout: { x: 0, y: 5, w: 6, h: 5 }
  },
  {
    name: "Sign-up funnel",
    description: "Visitors who went on to sign up (were identified) within 14 days.",
    query: {
      kind: "InsightVizNode",
      source: {
        kind: "FunnelsQuery",
        series: [pageviews, { kind: "EventsNode", event: "$identify", name: "$identify" }],
        dateRange: LAST_30_DAYS,
        funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: "day" }
      }
    },
    layout: { x: 6, y: 5, w: 6, h: 5 }
  },
  {
    name: "Retention",
    description: "Persons who came back to view pages in the weeks after their first.",
    query: {
      kind: "InsightVizNode",
      source: {
        kind: "RetentionQuery",
        retentionFilter: {
          period: "Week",
          totalIntervals: 8,
          retentionType: "retention_first_time",
          targetEntity: { id: "$pageview", type: "events" },
          returningEntity: { id: "$pageview", type: "events" }
        }
      }
    },
    layout: { x: 0, y: 10, w: 12, h: 6 }
  }
] as const

export const TEMPLATE_NAME = "My App Dashboard"

/** Creates the template's insights and a dashboard placing them, for `userId` (null: the system). */
export const createTemplateDashboard = (projectId: number, userId: number | null, name = TEMPLATE_NAME) =>
  Effect.gen(function* () {
    const store = yield* InsightStore
    const dashboard = yield* store.createDashboard(projectId, newDashboard({ name, created_by: userId }))
    yield* Effect.forEach(TEMPLATE_TILES, (tile) =>
      Effect.gen(function* () {
        const insight = yield* store.create(
          projectId,
          newInsight({
            short_id: shortId(),
            name: tile.name,
            description: tile.description,
            query: tile.query,
            created_by: userId
          })
        )
        yield* store.addTile(dashboard.id, {
          insight_id: insight.id,
          text: null,
          layouts: { sm: tile.layout },
          color: null
        })
      })
    )
    return dashboard
  })
