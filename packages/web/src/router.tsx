import {
  createRootRoute,
  createRoute,
  createRouter,
  lazyRouteComponent,
  Outlet,
  redirect
} from "@tanstack/react-router"
import { ApiError, appRoot } from "./api.js"
import { type PageModule, pages } from "./pages.js"
import { pathQuery } from "./queries.js"
import { meQuery, queryClient } from "./queryClient.js"
import { Shell } from "./Shell.js"

// Page URLs as PostHog's. Each page's code is its own chunk, fetched when the page is first opened.

const rootRoute = createRootRoute({ component: Outlet })

/** The signed-in user, or a redirect to /login remembering where the visitor was going. */
const signedIn = async (href: string) => {
  try {
    return await queryClient.ensureQueryData(meQuery)
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
      throw redirect({ to: "/login", search: { next: href } })
    }
    throw error
  }
}

const loginRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/login",
  validateSearch: (search: Record<string, unknown>): { next?: string } =>
    typeof search["next"] === "string" ? { next: search["next"] } : {},
  component: lazyRouteComponent(() => import("./pages/Login.js"), "Login")
})

const signupRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/signup/$inviteId",
  component: lazyRouteComponent(() => import("./pages/Login.js"), "Signup")
})

const indexRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/",
  beforeLoad: async ({ location }) => {
    const me = await signedIn(location.href)
    throw redirect({ to: "/project/$id/sql", params: { id: String(me.team?.id ?? 1) } })
  }
})

const projectRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/project/$id",
  beforeLoad: ({ location }) => signedIn(location.href),
  component: Shell
})

/** A page whose code loads on first open (see pages.ts); its loader starts its first API call meanwhile. */
const page = <const P extends keyof typeof pages>(path: P) => {
  const { load, component, firstCall }: PageModule = pages[path]
  return createRoute({
    getParentRoute: () => projectRoute,
    path,
    loader: ({ params }) => {
      // A page's own parameter is the one after the project's id (`$shortId`).
      const { id, ...own } = params as Record<string, string>
      if (firstCall) void queryClient.prefetchQuery(pathQuery(firstCall(id!, Object.values(own)[0] ?? "")))
    },
    component: lazyRouteComponent(load as never, component as never)
  })
}

const routeTree = rootRoute.addChildren([
  loginRoute,
  signupRoute,
  indexRoute,
  projectRoute.addChildren([
    page("/sql"),
    page("/activity/explore"),
    page("/persons"),
    page("/person/$distinctId"),
    page("/insights"),
    page("/insights/new"),
    page("/insights/$shortId"),
    page("/insights/$shortId/edit"),
    page("/dashboards"),
    page("/dashboard/$dashboardId"),
    page("/settings"),
    page("/feature_flags"),
    page("/feature_flags/$flagId"),
    page("/cohorts"),
    page("/cohorts/$cohortId"),
    page("/surveys"),
    page("/surveys/$surveyId"),
    page("/early_access_features"),
    page("/replay"),
    page("/replay/$sessionId"),
    page("/functions")
  ])
])

export const router = createRouter({ routeTree, basepath: appRoot || "/", defaultPreload: "intent" })

declare module "@tanstack/react-router" {
  interface Register {
    router: typeof router
  }
}
