import { Effect, Schema } from "effect"
import type { StorageServices } from "../../services/Storage.js"
import { VERSION } from "../../version.js"
import { openApiDocument } from "../openapi.js"
import { publicRoute, type Route } from "../route.js"
import { healthRoute } from "./health.js"
import { projectRoutes } from "./projects.js"

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
export const routes: ReadonlyArray<Route<StorageServices>> = [healthRoute, schemaRoute, ...projectRoutes]
