import { Effect, Schema } from "effect"
import type { Project } from "../../domain/models.js"
import type { RecordingFilters } from "../../recordings/filters.js"
import { selectRecordings } from "../../recordings/select.js"
import { IntFromString } from "../../schema/fields.js"
import { PersonStore } from "../../services/PersonStore.js"
import { type RecordingMeta, RecordingStore } from "../../services/RecordingStore.js"
import { queryFailure } from "../queryReplies.js"
import { Person, toWire } from "./persons.js"

// Session recordings as the API lists them, here and in playlists.

export const Recording = Schema.Struct({
  id: Schema.String,
  distinct_id: Schema.String,
  viewed: Schema.Boolean,
  recording_duration: Schema.Int,
  active_seconds: Schema.Int,
  inactive_seconds: Schema.Int,
  start_time: Schema.Date,
  end_time: Schema.Date,
  click_count: Schema.Int,
  keypress_count: Schema.Int,
  mouse_activity_count: Schema.Int,
  console_log_count: Schema.Int,
  console_warn_count: Schema.Int,
  console_error_count: Schema.Int,
  start_url: Schema.NullOr(Schema.String),
  person: Schema.NullOr(Person),
  snapshot_source: Schema.String,
  snapshot_library: Schema.NullOr(Schema.String),
  event_count: Schema.Int.annotations({ description: "rrweb events stored." }),
  message_count: Schema.Int.annotations({ description: "Chunks stored." }),
  size: Schema.Int.annotations({ description: "Bytes of rrweb JSON stored." }),
  storage: Schema.Literal("object_storage")
}).annotations({ identifier: "SessionRecording" })
type Recording = typeof Recording.Type

/** Recordings as the API shows them: with their person and whether the user has watched them. */
export const presentRecordings = (projectId: number, userId: number, recordings: ReadonlyArray<RecordingMeta>) =>
  Effect.gen(function* () {
    const ids = recordings.map((r) => r.session_id)
    const viewed = yield* (yield* RecordingStore).viewed(projectId, userId, ids)
    const persons = yield* (yield* PersonStore).load(projectId, [...new Set(recordings.map((r) => r.distinct_id))])
    return recordings.map((r): Recording => {
      const duration = Math.max(0, Math.round((r.end_time.getTime() - r.start_time.getTime()) / 1000))
      const active = Math.min(duration, Math.round(r.active_ms / 1000))
      const person = persons.find((p) => p.distinct_ids.includes(r.distinct_id))
      return {
        id: r.session_id,
        distinct_id: r.distinct_id,
        viewed: viewed.has(r.session_id),
        recording_duration: duration,
        active_seconds: active,
        inactive_seconds: duration - active,
        start_time: r.start_time,
        end_time: r.end_time,
        click_count: r.click_count,
        keypress_count: r.keypress_count,
        mouse_activity_count: r.mouse_activity_count,
        console_log_count: r.console_log_count,
        console_warn_count: r.console_warn_count,
        console_error_count: r.console_error_count,
        start_url: r.first_url,
        person: person === undefined ? null : toWire(person),
        snapshot_source: r.snapshot_source,
        snapshot_library: r.snapshot_library,
        event_count: r.event_count,
        message_count: r.message_count,
        size: r.size,
        storage: "object_storage"
      }
    })
  })

export const RecordingList = Schema.Struct({
  results: Schema.Array(Recording),
  has_next: Schema.Boolean,
  version: Schema.Literal(4)
}).annotations({ identifier: "SessionRecordingList" })

/** `limit` (50, at most 1000) and `offset` of a list of recordings. */
export const RecordingPageParams = Schema.Struct({
  limit: Schema.optional(IntFromString(1)),
  offset: Schema.optional(IntFromString(0))
})

export const recordingPage = (query: typeof RecordingPageParams.Type) => ({
  limit: Math.min(query.limit ?? 50, 1000),
  offset: query.offset ?? 0
})

/** A page of the project's recordings that `filters` select, as the list endpoints answer it. */
export const recordingList = (
  project: Project,
  userId: number,
  filters: RecordingFilters,
  page: ReturnType<typeof recordingPage>
) =>
  Effect.gen(function* () {
    const { hasNext, recordings } = yield* selectRecordings(project, filters, page).pipe(Effect.catchAll(queryFailure))
    return { results: yield* presentRecordings(project.id, userId, recordings), has_next: hasNext, version: 4 as const }
  })
