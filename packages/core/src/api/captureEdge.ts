import { Effect, Option, Schema } from "effect"
import type { Project } from "../domain/models.js"
import { decodeCapturePayload } from "../ingest/decode.js"
import { ProjectTokens } from "../ingest/projectTokens.js"
import type { CaptureProblem, CaptureRefused } from "../ingest/refusal.js"
import { parseShape, plausibleToken } from "../ingest/shapes.js"
import type { StorageError } from "../services/StorageError.js"
import { type BodyLimits, ZedConfig } from "../services/ZedConfig.js"
import { readBody } from "./body.js"
import { storageFailureReply } from "./errors.js"
import { Reply } from "./reply.js"
import type { ZedRequest } from "./request.js"
import { type Method, publicRoute } from "./route.js"

// The edge of the endpoints PostHog's SDKs send to (capture, recordings, flags). Every answer
// carries CORS headers echoing the origin (browsers send from any site), errors included, and
// success is exactly 200 {"status":"Ok"}: posthog-js retries any other 2xx or 3xx.

const OK = { status: "Ok" } as const

/** What the SDKs read from a capture response. */
export const CaptureOk = Schema.Struct({ status: Schema.Literal("Ok") }).annotations({ identifier: "CaptureOk" })

export const corsHeaders = (request: ZedRequest): Record<string, string> => {
  const origin = request.header("origin")
  return {
    "access-control-allow-origin": origin ?? "*",
    ...(origin === undefined ? {} : { "access-control-allow-credentials": "true", vary: "Origin" }),
    "access-control-allow-methods": "GET, POST, OPTIONS",
    "access-control-allow-headers": request.header("access-control-request-headers") ?? "content-type",
    "access-control-max-age": "86400"
  }
}

const PROBLEMS: Record<CaptureProblem, readonly [status: number, type: string]> = {
  invalid_payload: [400, "validation_error"],
  payload_too_large: [413, "invalid_request"],
  invalid_api_key: [401, "authentication_error"]
}

/** The reply refusing an SDK's request for `problem`. */
export const failure = (request: ZedRequest, problem: CaptureProblem, detail: string) => {
  const [status, type] = PROBLEMS[problem]
  return Reply.json(status, { type, code: problem, detail, attr: null }, corsHeaders(request))
}

/** The reply refusing a capture request the domain refused. */
export const refusalReply = (request: ZedRequest) => (refused: CaptureRefused) =>
  failure(request, refused.problem, refused.detail)

/** The client's address; behind a trusted proxy, the first address of `X-Forwarded-For`. */
export const clientIp = (request: ZedRequest, trustProxy: boolean): string | undefined => {
  const forwarded = trustProxy ? request.header("x-forwarded-for")?.split(",")[0]?.trim() : undefined
  const ip = forwarded || request.remoteAddress
  return ip?.startsWith("::ffff:") ? ip.slice(7) : ip
}

/** Decodes a capture request of a kind (`/batch/`, say) into its project and body shape, or the reply refusing it. */
export const readBatch = (request: ZedRequest, kind: keyof BodyLimits) =>
  Effect.gen(function* () {
    const refuse = (problem: CaptureProblem, detail: string) => Effect.fail(failure(request, problem, detail))
    const { limits } = yield* ZedConfig
    const body =
      request.method === "GET"
        ? new Uint8Array()
        : yield* Effect.mapError(readBody(request, limits.bodyBytes[kind]), (error) =>
            failure(
              request,
              error._tag === "PayloadTooLarge" ? "payload_too_large" : "invalid_payload",
              error._tag === "PayloadTooLarge"
                ? `maximum event size exceeded: the body is larger than ${error.limit} bytes`
                : error.detail
            )
          )

    const query = request.url.searchParams
    const decoded = decodeCapturePayload({
      method: request.method,
      query,
      contentType: request.header("content-type"),
      contentEncoding: request.header("content-encoding"),
      body,
      maxDecodedBytes: limits.decodedBytes[kind]
    })
    if (decoded._tag === "Invalid") return yield* refuse("invalid_payload", decoded.detail)
    if (decoded._tag === "TooLarge")
      return yield* refuse("payload_too_large", `maximum event size exceeded: ${decoded.detail}`)
    const shape = parseShape(decoded.value)
    if (shape._tag === "Invalid") return yield* refuse(shape.problem, shape.detail)
    const { batch } = shape
    if (batch.events.length > limits.eventsPerBatch) {
      return yield* refuse(
        "invalid_payload",
        `the request holds ${batch.events.length} events, more than the ${limits.eventsPerBatch} taken at once: send them in smaller batches`
      )
    }

    const token = batch.token ?? query.get("token") ?? undefined
    if (token === undefined)
      return yield* refuse("invalid_api_key", "API key is not valid: event submitted without an api_key")
    if (!plausibleToken(token))
      return yield* refuse("invalid_api_key", "API key is not valid: it is not a project API key")
    const project = yield* Effect.catchTag((yield* ProjectTokens).find(token), "StorageError", (error) =>
      Effect.zipRight(
        Effect.logError("capture: storage failure", error.message),
        Effect.fail(storageFailureReply(error, corsHeaders(request)))
      )
    )
    if (Option.isNone(project))
      return yield* refuse("invalid_api_key", "API key is not valid: no project has this API key")
    return { project: project.value satisfies Project, batch, decoded }
  })

/**
 * A capture endpoint's handler: CORS preflight, then `store` (which answers the reply refusing the
 * request, or fails with a storage error), then PostHog's acknowledgement.
 */
export const captureEndpoint =
  <R>(store: (request: ZedRequest) => Effect.Effect<void, Reply | StorageError, R>) =>
  ({ request }: { readonly request: ZedRequest }): Effect.Effect<Reply, never, R> =>
    Effect.gen(function* () {
      if (request.method === "OPTIONS") return Reply.json(200, OK, corsHeaders(request))
      const stored = yield* Effect.either(store(request))
      if (stored._tag === "Left") {
        if (stored.left instanceof Reply) return stored.left
        yield* Effect.logError("capture: storage failure", stored.left.message)
        return storageFailureReply(stored.left, corsHeaders(request))
      }
      // A beacon's answer is never read; everything else must see exactly 200.
      if (request.url.searchParams.get("beacon") === "1") return Reply.empty(204, corsHeaders(request))
      return Reply.json(200, OK, corsHeaders(request))
    })

/** A capture endpoint's routes: GET, POST and the CORS preflight, on the path and its aliases. */
export const captureRoutes = <R>(
  path: string,
  aliases: ReadonlyArray<string>,
  summary: string,
  description: string,
  handler: (input: { readonly request: ZedRequest }) => Effect.Effect<Reply, never, R>
) =>
  (["GET", "POST", "OPTIONS"] as const satisfies ReadonlyArray<Method>).map((method) =>
    publicRoute({
      method,
      path,
      aliases,
      tag: "capture",
      summary: method === "OPTIONS" ? `${summary} (CORS preflight)` : summary,
      description,
      response: CaptureOk,
      handler
    })
  )
