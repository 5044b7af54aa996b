import { Effect, Option } from "effect"
import { uuidv7 } from "../../ingest/uuid.js"
import {
  type ActivityEntry,
  type DashboardTile,
  InsightStore,
  type SharingConfiguration,
  type StoredDashboard,
  type StoredInsight
} from "../InsightStore.js"
import type { Journal } from "./journal.js"

type Owned<A> = A & { readonly project_id: number }

const strip = <A>({ project_id: _, ...rest }: Owned<A>): A => rest as unknown as A
const page = <A>(all: ReadonlyArray<A>, p: { readonly limit: number; readonly offset: number }) => ({
  count: all.length,
  results: all.slice(p.offset, p.offset + p.limit)
})

export const makeMemoryInsights = (journal: Journal) => {
  const insights = new Map<number, Owned<StoredInsight>>()
  const dashboards = new Map<number, Owned<StoredDashboard>>()
  const tiles = new Map<number, DashboardTile>()
  const sharing = new Map<number, SharingConfiguration>()
  const activity = new Map<number, Owned<ActivityEntry>>()
  const ids = { insight: 1, dashboard: 1, tile: 1, activity: 1 }

  const setTile = (tile: DashboardTile) => journal.set(tiles, tile.id, tile)
  const tilesOf = (insightId: number) => [...tiles.values()].filter((t) => t.insight_id === insightId)

  return InsightStore.of({
    list: (projectId, query) =>
      Effect.sync(() => {
        const search = query.search?.toLowerCase()
        const onDashboard = (id: number) => tilesOf(id).some((t) => !t.deleted)
        const all = [...insights.values()]
          .filter(
            (i) =>
              i.project_id === projectId &&
              !i.deleted &&
              (query.created_by === undefined || i.created_by === query.created_by) &&
              (query.short_id === undefined || i.short_id === query.short_id) &&
              (query.favorited === undefined || i.favorited === query.favorited) &&
              (query.saved === undefined || (query.saved ? i.saved || onDashboard(i.id) : !i.saved)) &&
              (search === undefined ||
                [i.name, i.derived_name, i.description, ...i.tags].some((t) => t?.toLowerCase().includes(search)))
          )
          .sort((a, b) => b.id - a.id)
        return page(all.map(strip<StoredInsight>), query)
      }),
    get: (projectId, id, includeDeleted = false) =>
      Effect.sync(() =>
        Option.fromNullable(insights.get(id)).pipe(
          Option.filter((i) => i.project_id === projectId && (includeDeleted || !i.deleted)),
          Option.map(strip<StoredInsight>)
        )
      ),
    create: (projectId, input) =>
      Effect.sync(() => {
        const now = new Date()
        const insight = {
          ...input,
          id: ids.insight++,
          project_id: projectId,
          last_modified_by: input.created_by,
          created_at: now,
          updated_at: now,
          last_modified_at: now
        }
        journal.set(insights, insight.id, insight)
        return strip<StoredInsight>(insight)
      }),
    update: (projectId, id, { material, ...patch }) =>
      Effect.sync(() => {
        const insight = insights.get(id)
        if (insight === undefined || insight.project_id !== projectId) return Option.none()
        const now = new Date()
        const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined))
        const next = {
          ...insight,
          ...defined,
          updated_at: now,
          ...(material ? {} : { last_modified_by: insight.last_modified_by }),
          last_modified_at: material ? now : insight.last_modified_at
        }
        journal.set(insights, id, next)
        return Option.some(strip<StoredInsight>(next))
      }),
    tiles: (insightIds) =>
      Effect.sync(() =>
        [...tiles.values()].filter((t) => insightIds.includes(t.insight_id)).sort((a, b) => a.id - b.id)
      ),
    dashboardTiles: (dashboardId) =>
      Effect.sync(() => [...tiles.values()].filter((t) => t.dashboard_id === dashboardId).sort((a, b) => a.id - b.id)),
    placeOn: (insightId, dashboardIds) =>
      Effect.sync(() => {
        const existing = tilesOf(insightId)
        for (const tile of existing) setTile({ ...tile, deleted: !dashboardIds.includes(tile.dashboard_id) })
        for (const dashboardId of dashboardIds) {
          if (!existing.some((t) => t.dashboard_id === dashboardId))
            setTile({ id: ids.tile++, dashboard_id: dashboardId, insight_id: insightId, deleted: false })
        }
      }),
    markTiles: (insightId, deleted) => Effect.sync(() => tilesOf(insightId).forEach((t) => setTile({ ...t, deleted }))),
    createDashboard: (projectId, input) =>
      Effect.sync(() => {
        const dashboard = { ...input, id: ids.dashboard++, project_id: projectId, created_at: new Date() }
        journal.set(dashboards, dashboard.id, dashboard)
        return strip<StoredDashboard>(dashboard)
      }),
    getDashboards: (projectId, wanted) =>
      Effect.sync(() =>
        [...dashboards.values()]
          .filter((d) => d.project_id === projectId && wanted.includes(d.id))
          .sort((a, b) => a.id - b.id)
          .map(strip<StoredDashboard>)
      ),
    listDashboards: (projectId, p) =>
      Effect.sync(() =>
        page(
          [...dashboards.values()]
            .filter((d) => d.project_id === projectId)
            .sort((a, b) => b.id - a.id)
            .map(strip<StoredDashboard>),
          p
        )
      ),
    sharing: (insightId) => Effect.sync(() => Option.fromNullable(sharing.get(insightId))),
    saveSharing: (insightId, input) =>
      Effect.sync(() => {
        const saved = { ...input, created_at: sharing.get(insightId)?.created_at ?? new Date() }
        journal.set(sharing, insightId, saved)
        return saved
      }),
    shared: (accessToken) =>
      Effect.sync(() => {
        const found = [...sharing.entries()].find(([, s]) => s.enabled && s.access_token === accessToken)
        const insight = found && insights.get(found[0])
        return insight === undefined
          ? Option.none()
          : Option.some({ project_id: insight.project_id, insight_id: insight.id })
      }),
    logActivity: (projectId, entry) =>
      Effect.sync(() =>
        journal.set(activity, ids.activity++, { ...entry, id: uuidv7(), project_id: projectId, created_at: new Date() })
      ),
    activity: (projectId, scope, itemId, p) =>
      Effect.sync(() => {
        const all = [...activity.entries()]
          .filter(
            ([, a]) => a.project_id === projectId && a.scope === scope && (itemId === undefined || a.item_id === itemId)
          )
          .sort(([a], [b]) => b - a)
          .map(([, a]) => strip<ActivityEntry>(a))
        return page(all, p)
      })
  })
}
