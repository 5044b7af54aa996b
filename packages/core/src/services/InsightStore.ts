import { Context, type Effect, type Option } from "effect"
import type { DashboardPatch, NewDashboard, StoredDashboard } from "../insights/dashboardEntity.js"
import type { InsightPatch, NewInsight, StoredInsight } from "../insights/insightEntity.js"
import type { StorageError } from "./StorageError.js"

// Saved insights with what hangs off them: dashboards and their tiles, the public sharing
// configuration, and the activity log of changes.

export type { DashboardPatch, InsightPatch, NewDashboard, NewInsight, StoredDashboard, StoredInsight }

export interface InsightQuery {
  readonly created_by?: number | undefined
  readonly short_id?: string | undefined
  /** true: saved or on a dashboard; false: not saved. */
  readonly saved?: boolean | undefined
  readonly favorited?: boolean | undefined
  /** Case-insensitive part of the name, derived name, description or a tag. */
  readonly search?: string | undefined
  readonly limit: number
  readonly offset: number
}

/** A place on a dashboard: an insight's, or a text card's (`text`, Markdown) when `insight_id` is null. */
export interface DashboardTile {
  readonly id: number
  readonly dashboard_id: number
  readonly insight_id: number | null
  readonly text: string | null
  /** Where the tile sits per screen size (`sm`, `xs`): `{x, y, w, h}` in grid cells. */
  readonly layouts: Record<string, unknown>
  readonly color: string | null
  readonly deleted: boolean
}

export type NewTile = Omit<DashboardTile, "id" | "dashboard_id" | "deleted">
/** The fields to change; those undefined stay as they are. */
export type TilePatch = {
  readonly [K in Exclude<keyof DashboardTile, "id" | "dashboard_id" | "insight_id">]?: DashboardTile[K] | undefined
}

/** What a sharing configuration shares: an insight or a dashboard. */
export interface SharingTarget {
  readonly kind: "insight" | "dashboard"
  readonly id: number
}

export interface SharingConfiguration {
  readonly enabled: boolean
  readonly access_token: string
  readonly created_at: Date
}

export interface ActivityEntry {
  readonly id: string
  readonly user_id: number | null
  readonly activity: string
  readonly scope: string
  readonly item_id: string
  readonly detail: Record<string, unknown>
  readonly created_at: Date
}

export type NewActivity = Omit<ActivityEntry, "id" | "created_at">

export class InsightStore extends Context.Tag("@zed/core/InsightStore")<
  InsightStore,
  {
    /** Live (not deleted) insights, newest first. */
    readonly list: (
      projectId: number,
      query: InsightQuery
    ) => Effect.Effect<{ readonly count: number; readonly results: ReadonlyArray<StoredInsight> }, StorageError>
    /** One insight; a deleted one only with `includeDeleted` (restoring needs it). */
    readonly get: (
      projectId: number,
      id: number,
      includeDeleted?: boolean
    ) => Effect.Effect<Option.Option<StoredInsight>, StorageError>
    readonly create: (projectId: number, insight: NewInsight) => Effect.Effect<StoredInsight, StorageError>
    readonly update: (
      projectId: number,
      id: number,
      patch: InsightPatch
    ) => Effect.Effect<Option.Option<StoredInsight>, StorageError>

    /** The insights' tiles, deleted ones included, ordered by id. */
    readonly tiles: (insightIds: ReadonlyArray<number>) => Effect.Effect<ReadonlyArray<DashboardTile>, StorageError>
    readonly dashboardTiles: (dashboardId: number) => Effect.Effect<ReadonlyArray<DashboardTile>, StorageError>
    /** Puts the insight on exactly these dashboards: missing tiles are added (or revived), others soft-deleted. */
    readonly placeOn: (insightId: number, dashboardIds: ReadonlyArray<number>) => Effect.Effect<void, StorageError>
    /** Soft-deletes or revives every tile of the insight (it was deleted or restored). */
    readonly markTiles: (insightId: number, deleted: boolean) => Effect.Effect<void, StorageError>

    /** Adds a tile to the dashboard. */
    readonly addTile: (dashboardId: number, tile: NewTile) => Effect.Effect<DashboardTile, StorageError>
    readonly updateTile: (
      dashboardId: number,
      tileId: number,
      patch: TilePatch
    ) => Effect.Effect<Option.Option<DashboardTile>, StorageError>

    readonly createDashboard: (
      projectId: number,
      dashboard: NewDashboard
    ) => Effect.Effect<StoredDashboard, StorageError>
    /** The live ones among `ids`; deleted ones too with `includeDeleted` (restoring needs it). */
    readonly getDashboards: (
      projectId: number,
      ids: ReadonlyArray<number>,
      includeDeleted?: boolean
    ) => Effect.Effect<ReadonlyArray<StoredDashboard>, StorageError>
    readonly updateDashboard: (
      projectId: number,
      id: number,
      patch: DashboardPatch
    ) => Effect.Effect<Option.Option<StoredDashboard>, StorageError>
    /** Live dashboards, pinned first, then newest first. */
    readonly listDashboards: (
      projectId: number,
      page: { readonly limit: number; readonly offset: number }
    ) => Effect.Effect<{ readonly count: number; readonly results: ReadonlyArray<StoredDashboard> }, StorageError>

    readonly sharing: (target: SharingTarget) => Effect.Effect<Option.Option<SharingConfiguration>, StorageError>
    /** Saves the target's sharing configuration (one per target); `created_at` is kept from the first save. */
    readonly saveSharing: (
      target: SharingTarget,
      sharing: { readonly enabled: boolean; readonly access_token: string }
    ) => Effect.Effect<SharingConfiguration, StorageError>
    /** What an enabled configuration with this token shares, and its project. */
    readonly shared: (
      accessToken: string
    ) => Effect.Effect<Option.Option<SharingTarget & { readonly project_id: number }>, StorageError>

    readonly logActivity: (projectId: number, entry: NewActivity) => Effect.Effect<void, StorageError>
    /** The entries of one item (of every item of the scope without one), newest first. */
    readonly activity: (
      projectId: number,
      scope: string,
      itemId: string | undefined,
      page: { readonly limit: number; readonly offset: number }
    ) => Effect.Effect<{ readonly count: number; readonly results: ReadonlyArray<ActivityEntry> }, StorageError>
  }
>() {}
