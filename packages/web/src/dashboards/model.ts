import { type Insight, type PropertyFilter, withQuery } from "../api.js"
import type { Layout } from "./grid.js"

// Dashboards as the dashboards API answers them (the fields the app reads), and their paths.

export interface DashboardFilters {
  readonly date_from?: string | null
  readonly date_to?: string | null
  readonly properties?: ReadonlyArray<PropertyFilter>
}

export interface DashboardBasic {
  readonly id: number
  readonly name: string
  readonly description: string
  readonly pinned: boolean
  readonly tags: ReadonlyArray<string>
  readonly is_shared: boolean
  readonly filters: DashboardFilters
  readonly created_at: string
  readonly created_by: { readonly email: string; readonly first_name: string } | null
}

export interface DashboardTile {
  readonly id: number
  readonly insight: (Insight & { readonly dashboards: ReadonlyArray<number> }) | null
  readonly text: { readonly id: number; readonly body: string } | null
  readonly layouts: Record<string, Layout | undefined>
  readonly color: string | null
}

export interface Dashboard extends DashboardBasic {
  readonly tiles: ReadonlyArray<DashboardTile>
}

export interface Sharing {
  readonly enabled: boolean
  readonly access_token: string
}

export const dashboardsPath = (project: string) => `/api/projects/${project}/dashboards/`

/** The live dashboards, pinned first. */
export const dashboardsListPath = (project: string) => withQuery(dashboardsPath(project), { limit: 100 })

/** One dashboard with its tiles' results: computed if missing or stale, or anew with force_blocking. */
export const dashboardPath = (
  project: string,
  dashboard: string,
  refresh: "blocking" | "force_blocking" = "blocking"
) => withQuery(`${dashboardsPath(project)}${dashboard}/`, { refresh })
