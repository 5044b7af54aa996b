import { Effect } from "effect"
import { ingestEvents, normalizeBatch } from "../../ingest/capture.js"
import { sentAtOf } from "../../ingest/normalize.js"
import { type BodyLimits, ZedConfig } from "../../services/ZedConfig.js"
import { captureEndpoint, captureRoutes, clientIp, readBatch, refusalReply } from "../captureEdge.js"
import type { ZedRequest } from "../request.js"

// Event capture as PostHog's SDKs speak it.

/** The events of a capture request, normalized, with its project. */
const readCapture = (request: ZedRequest, kind: keyof BodyLimits, defaultEvent: string | undefined) =>
  Effect.gen(function* () {
    const { batch, decoded, project } = yield* readBatch(request, kind)
    const { trustProxy } = yield* ZedConfig
    const events = yield* Effect.mapError(
      normalizeBatch(batch.events, {
        now: new Date(),
        sentAt: sentAtOf(batch.sentAt, decoded.sentAtMs),
        ip: clientIp(request, trustProxy),
        historical: batch.historical,
        anonymizeIps: project.anonymize_ips,
        defaultEvent,
        payloadBytes: decoded.bytes
      }),
      refusalReply(request)
    )
    return { project, events, historical: batch.historical }
  })

const captureHandler = (kind: keyof BodyLimits, defaultEvent?: string) =>
  captureEndpoint((request) =>
    Effect.flatMap(readCapture(request, kind, defaultEvent), ({ events, historical, project }) =>
      ingestEvents(project, events, historical)
    )
  )

const description = `Takes events from PostHog SDKs and curl: a single event, an array of events, or \`{api_key, batch, sent_at, historical_migration}\`;
as JSON, gzip (\`Content-Encoding\`, \`?compression=gzip-js\` or sniffed), base64, form \`data=\`, lz64, or GET \`?data=\`.
The project API key comes from \`api_key\`/\`token\` in the body, each event's \`token\` or \`properties.token\`, or \`?token=\`.
Answers 200 \`{"status":"Ok"}\` once the events are stored; 400 when any event is invalid or the request holds more events
than \`limits.eventsPerBatch\` (nothing is stored), 401 for a missing or unknown project API key, 413 past the size limits,
503 with \`Retry-After\` while storage is unavailable (retry).`

export const captureRouteList = [
  ...captureRoutes("/i/v0/e", ["/e", "/capture", "/track"], "Capture events", description, captureHandler("capture")),
  ...captureRoutes(
    "/batch",
    [],
    "Capture a batch of events (also historical imports)",
    description,
    captureHandler("batch")
  ),
  ...captureRoutes(
    "/engage",
    [],
    "Capture person updates (an event without a name is `$identify`)",
    description,
    captureHandler("capture", "$identify")
  )
]
