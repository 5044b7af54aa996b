import { Effect, Option, Schema, Struct } from "effect"
import type { Project } from "../../domain/models.js"
import { UserBasic } from "../../domain/models.js"
import { Dashboard as Entity, TileLayouts } from "../../insights/dashboardEntity.js"
import type { RefreshMode } from "../../queries/cachePolicy.js"
import { InsightStore, type StoredDashboard } from "../../services/InsightStore.js"
import { NotFound } from "../errors.js"
import { userLookup } from "../users.js"
import { Insight, presentInsights, type Viewer } from "./insights.js"

// Dashboards as the API shows them (PostHog's DashboardBasic and Dashboard): to members, and on
// public sharing links with their tiles' insights as seen from the dashboard.

const Fields = {
  ...Struct.pick(Entity.fields, "id", "name", "description", "pinned", "tags", "deleted"),
  filters: Schema.Unknown,
  /** The filters' date range, also shown on its own as PostHog does. */
  date_from: Schema.NullOr(Schema.String),
  date_to: Schema.NullOr(Schema.String),
  /** Whether its public link is enabled. */
  is_shared: Schema.Boolean,
  created_by: Schema.NullOr(UserBasic),
  created_at: Schema.Date
}

export const DashboardBasic = Schema.Struct(Fields).annotations({ identifier: "DashboardBasic" })

const TextCard = Schema.Struct({ id: Schema.Int, body: Schema.String }).annotations({ identifier: "TextCard" })

export const DashboardTile = Schema.Struct({
  id: Schema.Int,
  /** The insight with the dashboard's filters applied; null on a text card. */
  insight: Schema.NullOr(Insight),
  text: Schema.NullOr(TextCard),
  layouts: TileLayouts,
  color: Schema.NullOr(Schema.String),
  deleted: Schema.Boolean
}).annotations({ identifier: "DashboardTile" })

export const Dashboard = Schema.Struct({ ...Fields, tiles: Schema.Array(DashboardTile) }).annotations({
  identifier: "Dashboard"
})
export type Dashboard = typeof Dashboard.Type

const dateOf = (filters: Record<string, unknown>, key: string) =>
  typeof filters[key] === "string" ? filters[key] : null

/** The dashboards as listed: without tiles. */
export const presentDashboards = (dashboards: ReadonlyArray<StoredDashboard>, viewer: Viewer = "member") =>
  Effect.gen(function* () {
    const store = yield* InsightStore
    const user = yield* userLookup(viewer === "public" ? [] : dashboards.map((d) => d.created_by))
    return yield* Effect.forEach(dashboards, (d) =>
      Effect.map(store.sharing({ kind: "dashboard", id: d.id }), (sharing) => ({
        ...d,
        date_from: dateOf(d.filters, "date_from"),
        date_to: dateOf(d.filters, "date_to"),
        is_shared: Option.match(sharing, { onNone: () => false, onSome: (s) => s.enabled }),
        created_by: user(d.created_by)
      }))
    )
  })

/** One dashboard with its live tiles, each insight computed (or read from the cache) under `refresh`. */
export const presentDashboard = (project: Project, dashboard: StoredDashboard, refresh: RefreshMode, viewer: Viewer) =>
  Effect.gen(function* () {
    const store = yield* InsightStore
    const tiles = (yield* store.dashboardTiles(dashboard.id)).filter((t) => !t.deleted)
    const found = yield* Effect.forEach(tiles, (t) =>
      t.insight_id === null ? Effect.succeed(Option.none()) : store.get(project.id, t.insight_id)
    )
    const insights = found.flatMap((i) => (Option.isSome(i) ? [i.value] : []))
    // One tile failing leaves the others' results: its insight carries the error instead.
    const shown = yield* presentInsights(project, insights, {
      refresh,
      viewer,
      dashboardFilters: dashboard.filters,
      errorsApart: true
    })
    const byId = new Map(shown.map((i) => [i.id, i]))
    const [basic] = yield* presentDashboards([dashboard], viewer)
    return {
      ...basic!,
      // A tile whose insight is gone (deleted) is left out, as PostHog does.
      tiles: tiles.flatMap((t) => {
        const insight = t.insight_id === null ? null : byId.get(t.insight_id)
        if (insight === undefined) return []
        return [
          {
            id: t.id,
            insight,
            text: t.text === null ? null : { id: t.id, body: t.text },
            layouts: t.layouts as TileLayouts,
            color: t.color,
            deleted: t.deleted
          }
        ]
      })
    } satisfies Dashboard
  })

/** A dashboard of the project, or 404; a deleted one only with `includeDeleted`. */
export const findDashboard = (projectId: number, id: number, includeDeleted = false) =>
  Effect.flatMap(
    Effect.flatMap(InsightStore, (s) => s.getDashboards(projectId, [id], includeDeleted)),
    ([dashboard]) =>
      dashboard === undefined ? Effect.fail(new NotFound({ detail: "Not found." })) : Effect.succeed(dashboard)
  )
