import { Effect, Option } from "effect"
import { uuidv7 } from "../../ingest/uuid.js"
import {
  type ActivityEntry,
  type DashboardTile,
  InsightStore,
  type SharingConfiguration,
  type SharingTarget,
  type StoredDashboard,
  type StoredInsight
} from "../InsightStore.js"
import type { Journal } from "./journal.js"

type Owned<A> = A & { readonly project_id: number }

const strip = <A>({ project_id: _, ...rest }: Owned<A>): A => rest as unknown as A
/** The fields a patch sets (those left undefined stay as they are). */
const defined = <A extends object>(patch: A) =>
  Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as {
    readonly [K in keyof A]?: Exclude<A[K], undefined>
  }
const page = <A>(all: ReadonlyArray<A>, p: { readonly limit: number; readonly offset: number }) => ({
  count: all.length,
  results: all.slice(p.offset, p.offset + p.limit)
})

export const makeMemoryInsights = (journal: Journal) => {
  const insights = new Map<number, Owned<StoredInsight>>()
  const dashboards = new Map<number, Owned<StoredDashboard>>()
  const tiles = new Map<number, DashboardTile>()
  /** Keyed by `kind:id`. */
  const sharing = new Map<string, SharingConfiguration>()
  const targetKey = (t: SharingTarget) => `${t.kind}:${t.id}`
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
        const next = {
          ...insight,
          ...defined(patch),
          updated_at: now,
          ...(material ? {} : { last_modified_by: insight.last_modified_by }),
          last_modified_at: material ? now : insight.last_modified_at
        }
        journal.set(insights, id, next)
        return Option.some(strip<StoredInsight>(next))
      }),
    tiles: (insightIds) =>
      Effect.sync(() =>
        [...tiles.values()]
          .filter((t) => t.insight_id !== null && insightIds.includes(t.insight_id))
          .sort((a, b) => a.id - b.id)
      ),
    dashboardTiles: (dashboardId) =>
      Effect.sync(() => [...tiles.values()].filter((t) => t.dashboard_id === dashboardId).sort((a, b) => a.id - b.id)),
    placeOn: (insightId, dashboardIds) =>
      Effect.sync(() => {
        const existing = tilesOf(insightId)
        for (const tile of existing) setTile({ ...tile, deleted: !dashboardIds.includes(tile.dashboard_id) })
        for (const dashboardId of dashboardIds) {
          if (!existing.some((t) => t.dashboard_id === dashboardId))
            setTile({
              id: ids.tile++,
              dashboard_id: dashboardId,
              insight_id: insightId,
              text: null,
              layouts: {},
              color: null,
              deleted: false
            })
        }
      }),
    markTiles: (insightId, deleted) => Effect.sync(() => tilesOf(insightId).forEach((t) => setTile({ ...t, deleted }))),
    addTile: (dashboardId, input) =>
      Effect.sync(() => {
        const tile = { ...input, id: ids.tile++, dashboard_id: dashboardId, deleted: false }
        setTile(tile)
        return tile
      }),
    updateTile: (dashboardId, tileId, patch) =>
      Effect.sync(() => {
        const tile = tiles.get(tileId)
        if (tile === undefined || tile.dashboard_id !== dashboardId) return Option.none()
        const next = { ...tile, ...defined(patch) }
        setTile(next)
        return Option.some(next)
      }),
    createDashboard: (projectId, input) =>
      Effect.sync(() => {
        const dashboard = { ...input, id: ids.dashboard++, project_id: projectId, created_at: new Date() }
        journal.set(dashboards, dashboard.id, dashboard)
        return strip<StoredDashboard>(dashboard)
      }),
    getDashboards: (projectId, wanted, includeDeleted = false) =>
      Effect.sync(() =>
        [...dashboards.values()]
          .filter((d) => d.project_id === projectId && wanted.includes(d.id) && (includeDeleted || !d.deleted))
          .sort((a, b) => a.id - b.id)
          .map(strip<StoredDashboard>)
      ),
    updateDashboard: (projectId, id, patch) =>
      Effect.sync(() => {
        const dashboard = dashboards.get(id)
        if (dashboard === undefined || dashboard.project_id !== projectId) return Option.none()
        const next = { ...dashboard, ...defined(patch) }
        journal.set(dashboards, id, next)
        return Option.some(strip<StoredDashboard>(next))
      }),
    listDashboards: (projectId, p) =>
      Effect.sync(() =>
        page(
          [...dashboards.values()]
            .filter((d) => d.project_id === projectId && !d.deleted)
            .sort((a, b) => Number(b.pinned) - Number(a.pinned) || b.id - a.id)
            .map(strip<StoredDashboard>),
          p
        )
      ),
    sharing: (target) => Effect.sync(() => Option.fromNullable(sharing.get(targetKey(target)))),
    saveSharing: (target, input) =>
      Effect.sync(() => {
        const saved = { ...input, created_at: sharing.get(targetKey(target))?.created_at ?? new Date() }
        journal.set(sharing, targetKey(target), saved)
        return saved
      }),
    shared: (accessToken) =>
      Effect.sync(() => {
        const found = [...sharing.entries()].find(([, s]) => s.enabled && s.access_token === accessToken)
        if (found === undefined) return Option.none()
        const [kind, id] = found[0].split(":") as ["insight" | "dashboard", string]
        const owner = kind === "insight" ? insights.get(Number(id)) : dashboards.get(Number(id))
        return owner === undefined || (kind === "dashboard" && owner.deleted)
          ? Option.none()
          : Option.some({ kind, id: Number(id), project_id: owner.project_id })
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
