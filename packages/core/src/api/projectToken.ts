import { Effect, Option } from "effect"
import { ProjectTokens } from "../ingest/projectTokens.js"
import { plausibleToken } from "../ingest/shapes.js"
import { Reply } from "./reply.js"
import type { ZedRequest } from "./request.js"
import { corsHeaders, failure } from "./captureEdge.js"

// The public endpoints posthog-js reads with the project API key in `?token=` (surveys, early
// access features): a page of any origin asks, so answers carry CORS, refusals included.

/** The project of a public request's `token`, or the 401 capture answers (with CORS). */
export const tokenProject = (request: ZedRequest) =>
  Effect.gen(function* () {
    const token = request.url.searchParams.get("token") ?? ""
    if (token === "")
      return yield* Effect.fail(
        failure(
          request,
          "invalid_api_key",
          "API key not provided. You can find your project API key in your project settings."
        )
      )
    const found = plausibleToken(token) ? yield* (yield* ProjectTokens).find(token) : Option.none()
    return yield* Option.match(found, {
      onNone: () =>
        Effect.fail(
          failure(
            request,
            "invalid_api_key",
            "Project API key invalid. You can find your project API key in your project settings."
          )
        ),
      onSome: Effect.succeed
    })
  })

/** A public endpoint's JSON with CORS for the page that asks; a refusal is its reply. */
export const publicJson = <A, E, R>(request: ZedRequest, body: Effect.Effect<A, E | Reply, R>) =>
  Effect.catchIf(
    Effect.map(body, (value) => Reply.json(200, value, corsHeaders(request))),
    (e): e is Reply => e instanceof Reply,
    Effect.succeed
  )
