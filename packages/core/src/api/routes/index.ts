import { Effect, Schema } from "effect"
import type { AppServices } from "../../app.js"
import { VERSION } from "../../version.js"
import { openApiDocument } from "../openapi.js"
import { publicRoute, type Route } from "../route.js"
import { captureRouteList } from "./capture.js"
import { healthRoute } from "./health.js"
import { personRoutes } from "./persons.js"
import { projectRoutes } from "./projects.js"
import { remoteConfigRoutes } from "./remoteConfig.js"

let document: unknown

const schemaRoute = publicRoute({
  method: "GET",
  path: "/api/schema",
  tag: "meta",
  summary: "OpenAPI document of this API",
  response: Schema.Unknown,
  handler: () => Effect.sync(() => (document ??= openApiDocument(routes, VERSION)))
})

/** Every route Zed serves. */
export const routes: ReadonlyArray<Route<AppServices>> = [
  healthRoute,
  schemaRoute,
  ...projectRoutes,
  ...personRoutes,
  ...captureRouteList,
  ...remoteConfigRoutes
]
