import { Effect, Option, Schema } from "effect"
import { PosthogJs, posthogJsFiles } from "../../sdk/posthogJs.js"
import { etagMatches } from "../etag.js"
import { NotFound } from "../errors.js"
import { Reply } from "../reply.js"
import type { ZedRequest } from "../request.js"
import { publicRoute } from "../route.js"

// posthog-js's scripts at the paths it asks its asset host for: `/static/<name>.js?v=<version>`,
// or `/static/<version>/<name>.js` with `strict_script_versioning`. A versioned URL names content
// that never changes, so it is cached for a year; an unversioned one (the snippet's `array.js`)
// for a day, then revalidated by ETag. posthog-js loads them with `crossorigin="anonymous"`.

const YEAR = "public, max-age=31536000, immutable"
const DAY = "public, max-age=86400"

const notFound = () => new NotFound({ detail: "Not found." })

const serve = (request: ZedRequest, name: string, pinned: boolean) =>
  Effect.gen(function* () {
    const asset = yield* Effect.flatMap(
      (yield* PosthogJs).get(name),
      Option.match({ onNone: () => Effect.fail(notFound()), onSome: Effect.succeed })
    )
    const headers = {
      "access-control-allow-origin": "*",
      "cache-control": pinned ? YEAR : DAY,
      etag: asset.etag,
      vary: "Accept-Encoding"
    }
    if (etagMatches(request.header("if-none-match"), asset.etag)) return Reply.empty(304, headers)
    const gzip = /\bgzip\b/.test(request.header("accept-encoding") ?? "")
    return new Reply(200, gzip ? asset.gzipped : asset.body, {
      ...headers,
      "content-type": asset.contentType,
      ...(gzip ? { "content-encoding": "gzip" } : {})
    })
  })

const description = "From the posthog-js package Zed depends on; 404 for a name it does not ship."

/** Only posthog-js's own files are Zed's: an app sharing `/static/` with Zed keeps the rest. */
const ships = (name: string | undefined) => name !== undefined && posthogJsFiles().names.includes(name)

export const staticAssetRoutes = [
  publicRoute({
    method: "GET",
    path: "/static/:name",
    tag: "capture",
    summary: "A posthog-js script (`array.js`, or an extension such as `lazy-recorder.js`)",
    description: `${description} \`?v=\` equal to the served version marks the URL as versioned (cached for a year).`,
    params: Schema.Struct({ name: Schema.String }),
    query: Schema.Struct({ v: Schema.optional(Schema.String) }),
    owns: (params) => ships(params["name"]),
    handler: ({ params, query, request }) =>
      Effect.flatMap(PosthogJs, (sdk) => serve(request, params.name, query.v !== undefined && query.v === sdk.version))
  }),
  publicRoute({
    method: "GET",
    path: "/static/:version/:name",
    tag: "capture",
    summary: "A posthog-js script of one version (`strict_script_versioning`)",
    description: `${description} Only the served version exists: another one is 404, which posthog-js's \`'fallback'\` mode answers by loading the unversioned URL.`,
    params: Schema.Struct({ version: Schema.String, name: Schema.String }),
    owns: (params) => params["version"] === posthogJsFiles().version && ships(params["name"]),
    handler: ({ params, request }) =>
      Effect.flatMap(PosthogJs, (sdk) =>
        sdk.version !== undefined && params.version === sdk.version
          ? serve(request, params.name, true)
          : Effect.fail(notFound())
      )
  })
]
