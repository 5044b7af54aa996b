import { Effect, Schema } from "effect"
import { publicRoute } from "../route.js"

export const healthRoute = publicRoute({
  method: "GET",
  path: "/_health",
  tag: "meta",
  summary: "Liveness check",
  response: Schema.Struct({ status: Schema.Literal("ok") }),
  handler: () => Effect.succeed({ status: "ok" as const })
})
