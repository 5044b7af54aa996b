import { withQuery } from "./api.js"
import { dashboardPath, dashboardsListPath } from "./dashboards/model.js"

// The app's pages below `/project/:id`: where each one's code is, and the API call a page with data
// makes first. The router loads them from here, and so does main.ts, which starts both before the
// app's own code has loaded.

/** `key=value` as one exact property filter of `type`; anything else filters nothing. */
const propertyFilter = (text: string, type: "event" | "person") => {
  const at = text.indexOf("=")
  if (at <= 0) return undefined
  return JSON.stringify([{ key: text.slice(0, at).trim(), value: text.slice(at + 1).trim(), operator: "exact", type }])
}

export const personsPath = (id: string, search = "", property = "") =>
  withQuery(`/api/projects/${id}/persons/`, { limit: 100, search, properties: propertyFilter(property, "person") })

export const eventsPath = (id: string, event = "", property = "", person = "") =>
  withQuery(`/api/projects/${id}/events/`, {
    limit: 100,
    event,
    distinct_id: person,
    properties: propertyFilter(property, "event")
  })

/** Saved insights (not the builder's drafts) matching `search`, favourited ones only if asked (the API sorts newest first; the page re-sorts). */
export const insightsPath = (id: string, search = "", favorited = false) =>
  withQuery(`/api/projects/${id}/insights/`, {
    limit: 100,
    saved: "true",
    search,
    favorited: favorited ? "true" : undefined
  })

/** The insight `shortId` with its result: the cached one, computed first if missing or stale
 * (`force_blocking`: computed again). */
export const insightPath = (id: string, shortId: string, refresh: "blocking" | "force_blocking" = "blocking") =>
  withQuery(`/api/projects/${id}/insights/`, { short_id: shortId, refresh })

export interface PageModule {
  /** The page's chunk, fetched when the page is first opened. */
  readonly load: () => Promise<Record<string, unknown>>
  /** The exported component in it. */
  readonly component: string
  /** The page's first API call (its path), for the project `id` and the page's own parameter (an
   * insight's short id). */
  readonly firstCall?: (id: string, param: string) => string
}

export const pages = {
  "/sql": { load: () => import("./pages/Sql.js"), component: "SqlPage" },
  "/activity/explore": {
    load: () => import("./pages/Events.js"),
    component: "EventsPage",
    firstCall: (id) => eventsPath(id)
  },
  "/persons": {
    load: () => import("./pages/Persons.js"),
    component: "PersonsPage",
    firstCall: (id) => personsPath(id)
  },
  "/person/$distinctId": { load: () => import("./pages/Person.js"), component: "PersonPage" },
  "/insights": {
    load: () => import("./pages/Insights.js"),
    component: "InsightsPage",
    firstCall: (id) => insightsPath(id)
  },
  "/insights/new": { load: () => import("./pages/InsightBuilder.js"), component: "InsightBuilderPage" },
  "/insights/$shortId": {
    load: () => import("./pages/Insight.js"),
    component: "InsightPage",
    firstCall: (id, shortId) => insightPath(id, shortId)
  },
  "/insights/$shortId/edit": {
    load: () => import("./pages/InsightBuilder.js"),
    component: "InsightEditPage",
    firstCall: (id, shortId) => insightPath(id, shortId)
  },
  "/dashboards": {
    load: () => import("./pages/Dashboards.js"),
    component: "DashboardsPage",
    firstCall: (id) => dashboardsListPath(id)
  },
  "/dashboard/$dashboardId": {
    load: () => import("./pages/Dashboard.js"),
    component: "DashboardPage",
    firstCall: (id, dashboardId) => dashboardPath(id, dashboardId)
  },
  "/settings": { load: () => import("./pages/Settings.js"), component: "SettingsPage" },
  "/feature_flags": { load: () => import("./pages/FeatureFlags.js"), component: "FeatureFlagsPage" },
  "/feature_flags/$flagId": { load: () => import("./pages/FeatureFlag.js"), component: "FeatureFlagPage" },
  "/cohorts": { load: () => import("./pages/Cohorts.js"), component: "CohortsPage" },
  "/cohorts/$cohortId": { load: () => import("./pages/Cohort.js"), component: "CohortPage" },
  "/surveys": { load: () => import("./pages/Surveys.js"), component: "SurveysPage" },
  "/surveys/$surveyId": { load: () => import("./pages/Survey.js"), component: "SurveyPage" },
  "/early_access_features": { load: () => import("./pages/EarlyAccess.js"), component: "EarlyAccessPage" },
  "/replay": { load: () => import("./pages/Replay.js"), component: "ReplayPage" },
  "/replay/$sessionId": { load: () => import("./pages/Recording.js"), component: "RecordingPage" },
  "/functions": { load: () => import("./pages/Functions.js"), component: "FunctionsPage" }
} as const satisfies Record<string, PageModule>

/** The page at `path` (below the app's root) and its project, if it is one of these. */
export const pageAt = (
  path: string
): { readonly page: PageModule; readonly id: string; readonly param: string } | undefined => {
  const match = /^\/project\/([^/]+)(\/[^/]+(?:\/[^/]+)?)\/?$/.exec(path)
  if (!match) return undefined
  const [, id, rest] = match
  // A page of its own path, else the one taking a parameter after the same section (`/insights/$shortId`).
  const section = rest!.slice(0, rest!.lastIndexOf("/"))
  const key =
    rest! in pages
      ? rest!
      : Object.keys(pages).find((path) => path.includes("$") && path.slice(0, path.lastIndexOf("/")) === section)
  if (key === undefined) return undefined
  const page: PageModule | undefined = (pages as Record<string, PageModule>)[key]
  const param = key.includes("$") ? decodeURIComponent(rest!.slice(rest!.lastIndexOf("/") + 1)) : ""
  return page && { page, id: decodeURIComponent(id!), param }
}
