import { Effect, Schema } from "effect"
import { Lifecycle } from "../../lifecycle/Lifecycle.js"
import { NotReady } from "../errors.js"
import { publicRoute } from "../route.js"

export const livenessRoute = publicRoute({
  method: "GET",
  path: "/_livez",
  aliases: ["/_health"],
  tag: "meta",
  summary: "Liveness for load balancers and orchestrators",
  description:
    "Answers 200 while the process serves requests, whatever the state of storage: restart the process only when this fails.",
  response: Schema.Struct({ status: Schema.Literal("ok") }),
  handler: () => Effect.succeed({ status: "ok" as const })
})

export const readinessRoute = publicRoute({
  method: "GET",
  path: "/_readyz",
  tag: "meta",
  summary: "Readiness for load balancers",
  description:
    "Answers 200 while storage takes a write within the storage time limit (probed at most once a second) " +
    "and no shutdown has begun; else 503 with `Retry-After`, its `code` saying why: `storage_unreachable`, " +
    "`storage_read_only`, `storage_full`, `storage_timeout`, `storage_failed` or `shutting_down`.",
  response: Schema.Struct({ status: Schema.Literal("ready") }),
  errors: [503],
  handler: () =>
    Effect.flatMap(Lifecycle, (lifecycle) => lifecycle.readiness).pipe(
      Effect.flatMap((readiness) =>
        readiness.ready
          ? Effect.succeed({ status: "ready" as const })
          : Effect.fail(new NotReady({ reason: readiness.reason }))
      )
    )
})
