import { gunzipSync } from "node:zlib"
import { Effect, Option, Schema } from "effect"
import { toChunks } from "../../recordings/chunks.js"
import { RECORDING_ORDERS, RecordingFilters } from "../../recordings/filters.js"
import { parseSnapshots } from "../../recordings/payload.js"
import { RecordingStore } from "../../services/RecordingStore.js"
import { NotFound } from "../errors.js"
import { ValidationError } from "../../schema/ValidationError.js"
import { Reply } from "../reply.js"
import { environmentRoute } from "../route.js"
import { decode } from "../../schema/decode.js"
import { captureEndpoint, captureRoutes, failure, readBatch } from "../captureEdge.js"
import {
  presentRecordings,
  Recording,
  RecordingList,
  recordingList,
  recordingPage,
  RecordingPageParams
} from "../wire/recordings.js"

// Session recordings: posthog-js sends rrweb events to `/s/`; they are stored per session in
// chunks, listed with their metadata, and replayed from the snapshots API, chunk by chunk.

const recordingCapture = captureEndpoint((request) =>
  Effect.gen(function* () {
    const { batch, project } = yield* readBatch(request, "recordings")
    const parsed = parseSnapshots(batch.events)
    if (parsed._tag === "Invalid") return yield* Effect.fail(failure(request, "invalid_payload", parsed.detail))
    const store = yield* RecordingStore
    // Chunk by chunk, each idempotent: a retry after a partial failure stores only what is missing.
    yield* Effect.forEach(toChunks(parsed.batch), (chunk) => store.append(project.id, chunk), { discard: true })
  })
)

const captureDescription = `Takes posthog-js session recordings: \`$snapshot\` events of one session carrying rrweb events in
\`$snapshot_data\` (or \`$snapshot_items\`), in any capture encoding. Answers 200 \`{"status":"Ok"}\` once stored; 400 when the
request has no \`$session_id\`, no \`distinct_id\`, or an event without rrweb events (nothing is stored); a retried request is stored once.`

export const recordingCaptureRoutes = captureRoutes(
  "/s",
  [],
  "Capture session recordings",
  captureDescription,
  recordingCapture
)

/** Query parameters holding JSON (as PostHog's clients send filters). */
const JSON_PARAMS = new Set([
  "duration",
  "session_recording_duration",
  "events",
  "actions",
  "properties",
  "filter_group",
  "session_ids"
])
const PAGE_PARAMS = new Set(["limit", "offset"])

/** The filters a list request's query parameters give, or a 400 naming the parameter. */
const filtersFromQuery = (params: URLSearchParams) =>
  Effect.gen(function* () {
    const raw: Record<string, unknown> = {}
    for (const [key, value] of params) {
      if (PAGE_PARAMS.has(key)) continue
      if (JSON_PARAMS.has(key)) {
        try {
          raw[key] = JSON.parse(value)
        } catch {
          return yield* new ValidationError({ code: "invalid_input", detail: "Expected JSON.", attr: key })
        }
      } else if (key === "filter_test_accounts") {
        raw[key] = value === "true" || value === "1"
      } else {
        raw[key] = value
      }
    }
    return yield* decode(RecordingFilters, raw)
  })

const SessionRef = Schema.Struct({ id: Schema.String })

/** A recording of the project, or 404. */
const findRecording = (projectId: number, sessionId: string) =>
  Effect.flatMap(
    Effect.flatMap(RecordingStore, (s) => s.get(projectId, sessionId)),
    Option.match({
      onNone: () => Effect.fail(new NotFound({ detail: "Not found." })),
      onSome: Effect.succeed
    })
  )

const optionalText = (description: string) => Schema.optional(Schema.String.annotations({ description }))

const list = environmentRoute({
  method: "GET",
  path: "/session_recordings",
  tag: "session recordings",
  summary: "List session recordings",
  description:
    "Newest first (or by `order`), `limit` (50) at a time from `offset`. Filters as PostHog's clients send them; any parameter Zed does not interpret is refused with 400 naming it.",
  scope: "session_recording:read",
  query: RecordingPageParams.pipe(
    Schema.extend(
      Schema.Struct({
        date_from: optionalText("Recordings started at or after: a date or a relative date (`-3d`)."),
        date_to: optionalText("Recordings started before."),
        duration: optionalText(
          'JSON: `[{"type": "recording", "key": "duration"|"active_seconds"|"inactive_seconds", "operator": "gt"|"gte"|"lt"|"lte"|"exact", "value": seconds}]`.'
        ),
        session_recording_duration: optionalText("JSON: one duration filter (the older form)."),
        events: optionalText(
          'JSON: `[{"id": "$pageview", "type": "events", "properties": [...]}]`: the session has such an event (`id` null: any event).'
        ),
        properties: optionalText("JSON: person (`type: person`) and event (`type: event`) property filters."),
        filter_group: optionalText(
          'JSON: PostHog\'s universal filters, `{"type": "AND"|"OR", "values": [groups or filters]}`.'
        ),
        person_uuid: optionalText("Recordings of this person."),
        session_ids: optionalText("JSON: only these sessions."),
        filter_test_accounts: optionalText("`true`: leave out the project's test accounts."),
        order: Schema.optional(Schema.Literal(...RECORDING_ORDERS)),
        order_direction: Schema.optional(Schema.Literal("ASC", "DESC"))
      })
    )
  ),
  response: RecordingList,
  handler: ({ principal, project, query, request }) =>
    Effect.gen(function* () {
      const filters = yield* filtersFromQuery(request.url.searchParams)
      return yield* recordingList(project, principal.user.id, filters, recordingPage(query))
    })
})

const retrieve = environmentRoute({
  method: "GET",
  path: "/session_recordings/:id",
  tag: "session recordings",
  summary: "Retrieve a session recording's metadata",
  scope: "session_recording:read",
  params: SessionRef,
  response: Recording,
  handler: ({ params, principal, project }) =>
    Effect.flatMap(findRecording(project.id, params.id), (r) =>
      Effect.map(presentRecordings(project.id, principal.user.id, [r]), (rows) => rows[0]!)
    )
})

const remove = environmentRoute({
  method: "DELETE",
  path: "/session_recordings/:id",
  tag: "session recordings",
  summary: "Delete a session recording",
  description: "Removes the recording's snapshots and metadata; the session's analytics events stay.",
  scope: "session_recording:write",
  params: SessionRef,
  handler: ({ params, project }) =>
    Effect.flatMap(
      Effect.flatMap(RecordingStore, (s) => s.remove(project.id, params.id)),
      (removed) => (removed ? Effect.succeed(Reply.empty(204)) : Effect.fail(new NotFound({ detail: "Not found." })))
    )
})

/** Blobs one snapshots request may ask for: the answer holds them uncompressed. */
const MAX_BLOBS = 20

const Source = Schema.Struct({
  source: Schema.Literal("blob_v2"),
  start_timestamp: Schema.Date,
  end_timestamp: Schema.Date,
  blob_key: Schema.String
})

const Sources = Schema.Struct({ sources: Schema.Array(Source) }).annotations({
  identifier: "SessionRecordingSnapshotSources"
})

const BlobKey = Schema.String.pipe(
  Schema.pattern(/^\d{1,18}$/, { message: () => "A blob key from the recording's sources." })
)

const snapshots = environmentRoute({
  method: "GET",
  path: "/session_recordings/:id/snapshots",
  tag: "session recordings",
  summary: "A session recording's rrweb events, for replay",
  description: `Without \`source\`: the recording's blobs in replay order, \`{"sources": [{"source": "blob_v2", "start_timestamp", "end_timestamp", "blob_key"}]}\`.
With \`source=blob_v2\` and \`blob_key\` (or \`start_blob_key\`…\`end_blob_key\`, a range of the sources list, at most ${MAX_BLOBS}): the blobs' rrweb
events as JSONL, one \`["<window_id>", {rrweb event}]\` per line, in timestamp order within a blob. Marks the recording as watched by the caller.`,
  scope: "session_recording:read",
  params: SessionRef,
  query: Schema.Struct({
    source: Schema.optional(Schema.Literal("blob_v2")),
    blob_key: Schema.optional(BlobKey),
    start_blob_key: Schema.optional(BlobKey),
    end_blob_key: Schema.optional(BlobKey)
  }),
  handler: ({ params, principal, project, query }) =>
    Effect.gen(function* () {
      const store = yield* RecordingStore
      yield* findRecording(project.id, params.id)
      const chunks = yield* store.chunks(project.id, params.id)
      yield* store.markViewed(project.id, params.id, principal.user.id)
      if (query.source === undefined) {
        const sources = chunks.map((c) => ({
          source: "blob_v2" as const,
          start_timestamp: c.firstTimestamp,
          end_timestamp: c.lastTimestamp,
          blob_key: String(c.seq)
        }))
        return Reply.json(200, Schema.encodeSync(Sources)({ sources }))
      }
      const first = query.blob_key ?? query.start_blob_key
      const last = query.blob_key ?? query.end_blob_key ?? first
      if (first === undefined)
        return yield* new ValidationError({
          code: "required",
          detail: "blob_key (or start_blob_key and end_blob_key) is required with source.",
          attr: "blob_key"
        })
      const from = chunks.findIndex((c) => String(c.seq) === first)
      const to = chunks.findIndex((c) => String(c.seq) === last)
      if (from < 0 || to < 0) return yield* new NotFound({ detail: "No such blob in this recording." })
      if (to < from || to - from >= MAX_BLOBS) {
        return yield* new ValidationError({
          code: "invalid_input",
          detail: `Ask for 1 to ${MAX_BLOBS} blobs in replay order.`,
          attr: "end_blob_key"
        })
      }
      const data = yield* store.chunkData(
        project.id,
        params.id,
        chunks.slice(from, to + 1).map((c) => c.seq)
      )
      return new Reply(200, Buffer.concat(data.map((d) => gunzipSync(d.data))), {
        "content-type": "text/plain; charset=utf-8"
      })
    })
})

export const recordingRoutes = [list, retrieve, remove, snapshots]
