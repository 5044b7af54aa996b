import { Effect, Option, Schema } from "effect"
import { FlagDefinitions } from "../../flags/definitions.js"
import { ProjectTokens } from "../../ingest/projectTokens.js"
import { NotFound } from "../errors.js"
import { ValidationError } from "../../schema/ValidationError.js"
import { Reply } from "../reply.js"
import { publicRoute } from "../route.js"
import { hasRunningSurveys, remoteConfig } from "../../sdk/remoteConfig.js"
import { corsHeaders } from "../captureEdge.js"

// posthog-js loads its project's settings before anything else: `config.js` as a script tag (with
// crossorigin, so CORS headers matter), or `config` as JSON when scripts may not load. What it reads
// decides compression (gzip, or posthog-js sends plain JSON), where events go, and which features run.

const TOKEN = /^[A-Za-z0-9_-]{1,200}$/

const Params = Schema.Struct({ token: Schema.String })

const configFor = (token: string) =>
  Effect.gen(function* () {
    if (!TOKEN.test(token))
      return yield* new ValidationError({ code: "invalid_input", detail: "Invalid token.", attr: "token" })
    const found = yield* (yield* ProjectTokens).find(token)
    if (Option.isNone(found)) return yield* new NotFound({ detail: "No project has this API key." })
    const snapshot = yield* (yield* FlagDefinitions).get(found.value.id)
    return remoteConfig(found.value, snapshot.hasActiveFlags, hasRunningSurveys(snapshot, new Date()))
  })

const headers = (request: Parameters<typeof corsHeaders>[0], contentType: string) => ({
  ...corsHeaders(request),
  "content-type": contentType,
  // Settings change rarely; a minute keeps page loads from asking every time.
  "cache-control": "public, max-age=60",
  vary: "Origin, Referer"
})

export const remoteConfigRoutes = [
  publicRoute({
    method: "GET",
    path: "/array/:token/config",
    tag: "capture",
    summary: "Remote config of a project (JSON), as posthog-js loads it",
    params: Params,
    handler: ({ params, request }) =>
      Effect.map(
        configFor(params.token),
        (config) => new Reply(200, JSON.stringify(config), headers(request, "application/json"))
      )
  }),
  publicRoute({
    method: "GET",
    path: "/array/:token/config.js",
    tag: "capture",
    summary: "Remote config of a project as a script setting window._POSTHOG_REMOTE_CONFIG",
    params: Params,
    handler: ({ params, request }) =>
      Effect.map(configFor(params.token), ({ siteApps, ...config }) => {
        const script = `(function() {
  window._POSTHOG_REMOTE_CONFIG = window._POSTHOG_REMOTE_CONFIG || {};
  window._POSTHOG_REMOTE_CONFIG[${JSON.stringify(config.token)}] = {
    config: ${JSON.stringify(config)},
    siteApps: ${JSON.stringify(siteApps)}
  }
})();`
        return new Reply(200, script, headers(request, "application/javascript"))
      })
  })
]
