import { Effect, Option, Schema } from "effect"
import type { Project } from "../../domain/models.js"
import { EventPipeline } from "../../functions/pipeline.js"
import { decodeCapturePayload } from "../../ingest/decode.js"
import { type IncomingEvent, normalizeEvent, sentAtOf } from "../../ingest/normalize.js"
import { ProjectTokens } from "../../ingest/projectTokens.js"
import { parseShape, plausibleToken } from "../../ingest/shapes.js"
import { IngestWriter } from "../../ingest/writer.js"
import type { StorageError } from "../../services/StorageError.js"
import { type BodyLimits, ZedConfig } from "../../services/ZedConfig.js"
import { readBody } from "../body.js"
import { storageFailureReply } from "../errors.js"
import { Reply } from "../reply.js"
import type { ZedRequest } from "../request.js"
import { type Method, publicRoute } from "../route.js"

// Event capture as PostHog's SDKs speak it. Every answer carries CORS headers echoing the origin
// (browsers send from any site), errors included, and success is exactly 200 {"status":"Ok"}:
// posthog-js retries any other 2xx or 3xx.

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

export const failure = (request: ZedRequest, status: number, detail: string) => {
  const [type, code] = status === 401
    ? ["authentication_error", "invalid_api_key"]
    : status === 413
    ? ["invalid_request", "payload_too_large"]
    : ["validation_error", "invalid_payload"]
  return Reply.json(status, { type, code, detail, attr: null }, corsHeaders(request))
}

/** The client's address; behind a trusted proxy, the first address of `X-Forwarded-For`. */
const clientIp = (request: ZedRequest, trustProxy: boolean): string | undefined => {
  const forwarded = trustProxy ? request.header("x-forwarded-for")?.split(",")[0]?.trim() : undefined
  const ip = forwarded || request.remoteAddress
  return ip?.startsWith("::ffff:") ? ip.slice(7) : ip
}

/** Events posthog-js sends that are not analytics events (replay has its own endpoint). */
const NOT_ANALYTICS = new Set(["$snapshot", "$snapshot_items", "$performance_event"])

/** Decodes a capture request of a kind (`/batch/`, say) into its project and body shape, or the reply refusing it. */
export const readBatch = (request: ZedRequest, kind: keyof BodyLimits) =>
  Effect.gen(function*() {
    const refuse = (status: number, detail: string) => Effect.fail(failure(request, status, detail))
    const { limits } = yield* ZedConfig
    const body = request.method === "GET"
      ? new Uint8Array()
      : yield* Effect.mapError(readBody(request, limits.bodyBytes[kind]), (error) =>
        failure(request, error._tag === "PayloadTooLarge" ? 413 : 400, error._tag === "PayloadTooLarge" ? `maximum event size exceeded: the body is larger than ${error.limit} bytes` : error.detail))

    const query = request.url.searchParams
    const decoded = decodeCapturePayload({
      method: request.method,
      query,
      contentType: request.header("content-type"),
      contentEncoding: request.header("content-encoding"),
      body,
      maxDecodedBytes: limits.decodedBytes[kind]
    })
    if (decoded._tag === "Invalid") return yield* refuse(400, decoded.detail)
    if (decoded._tag === "TooLarge") return yield* refuse(413, `maximum event size exceeded: ${decoded.detail}`)
    const shape = parseShape(decoded.value)
    if (shape._tag === "Invalid") return yield* refuse(shape.status, shape.detail)
    const { batch } = shape
    if (batch.events.length > limits.eventsPerBatch) {
      return yield* refuse(400, `the request holds ${batch.events.length} events, more than the ${limits.eventsPerBatch} taken at once: send them in smaller batches`)
    }

    const token = batch.token ?? query.get("token") ?? undefined
    if (token === undefined) return yield* refuse(401, "API key is not valid: event submitted without an api_key")
    if (!plausibleToken(token)) return yield* refuse(401, "API key is not valid: it is not a project API key")
    const project = yield* Effect.catchTag((yield* ProjectTokens).find(token), "StorageError", (error) =>
      Effect.zipRight(Effect.logError("capture: storage failure", error.message), Effect.fail(storageFailureReply(error, corsHeaders(request)))))
    if (Option.isNone(project)) return yield* refuse(401, "API key is not valid: no project has this API key")
    return { project: project.value satisfies Project, batch, decoded }
  })

/** Decodes a capture request into its project and normalized events, or the reply refusing it. */
const readCapture = (request: ZedRequest, kind: keyof BodyLimits, defaultEvent: string | undefined) =>
  Effect.gen(function*() {
    const { batch, decoded, project } = yield* readBatch(request, kind)
    const { trustProxy } = yield* ZedConfig
    const context = {
      now: new Date(),
      sentAt: sentAtOf(batch.sentAt, decoded.sentAtMs),
      ip: clientIp(request, trustProxy),
      historical: batch.historical,
      anonymizeIps: project.anonymize_ips,
      defaultEvent,
      payloadBytes: decoded.bytes
    }
    // All or nothing: one invalid event refuses the whole request, and nothing of it is stored.
    const events: Array<IncomingEvent> = []
    let filtered = 0
    for (const raw of batch.events) {
      const normalized = normalizeEvent(raw, context)
      if (normalized._tag === "Rejected") return yield* Effect.fail(failure(request, normalized.status, normalized.detail))
      if (normalized._tag === "Dropped") continue
      if (NOT_ANALYTICS.has(normalized.event.event)) filtered++
      else events.push(normalized.event)
    }
    if (events.length === 0 && filtered > 0) return yield* Effect.fail(failure(request, 400, "request holds no analytics event (recordings go to /s/)"))
    return { project, events, historical: batch.historical }
  })

/**
 * A capture endpoint's handler: CORS preflight, then `store` (which answers the reply refusing the
 * request, or fails with a storage error), then PostHog's acknowledgement.
 */
export const captureEndpoint = <R>(store: (request: ZedRequest) => Effect.Effect<void, Reply | StorageError, R>) =>
  ({ request }: { readonly request: ZedRequest }): Effect.Effect<Reply, never, R> =>
    Effect.gen(function*() {
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

/**
 * Stores a request's events after the project's plugins and transformations, then hands the newly
 * stored ones to its destinations (not those of historical imports: a backfill is not news).
 */
const captureHandler = (kind: keyof BodyLimits, defaultEvent?: string) =>
  captureEndpoint((request) =>
    Effect.gen(function*() {
      const { events, historical, project } = yield* readCapture(request, kind, defaultEvent)
      const pipeline = yield* EventPipeline
      const stored = yield* (yield* IngestWriter).write(project.id, yield* pipeline.beforeStorage(project, events))
      if (historical) return
      // The events are stored: whatever happens to their delivery, the request succeeded.
      yield* Effect.catchAll(pipeline.afterStorage(project, stored), (error) => Effect.logError("destinations: could not enqueue events", error.message))
    }))

const description = `Takes events from PostHog SDKs and curl: a single event, an array of events, or \`{api_key, batch, sent_at, historical_migration}\`;
as JSON, gzip (\`Content-Encoding\`, \`?compression=gzip-js\` or sniffed), base64, form \`data=\`, lz64, or GET \`?data=\`.
The project API key comes from \`api_key\`/\`token\` in the body, each event's \`token\` or \`properties.token\`, or \`?token=\`.
Answers 200 \`{"status":"Ok"}\` once the events are stored; 400 when any event is invalid or the request holds more events
than \`limits.eventsPerBatch\` (nothing is stored), 401 for a missing or unknown project API key, 413 past the size limits,
503 with \`Retry-After\` while storage is unavailable (retry).`

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

export const captureRouteList = [
  ...captureRoutes("/i/v0/e", ["/e", "/capture", "/track"], "Capture events", description, captureHandler("capture")),
  ...captureRoutes("/batch", [], "Capture a batch of events (also historical imports)", description, captureHandler("batch")),
  ...captureRoutes("/engage", [], "Capture person updates (an event without a name is `$identify`)", description, captureHandler("capture", "$identify"))
]
