import { SqlClient } from "@effect/sql"
import { ACTIVITY_THRESHOLD_MS, type ChunkInfo, type RecordingMeta, RecordingStore } from "@zed/core/storage"
import { Array as Arr, Effect, Layer } from "effect"
import { orStorageError, transactionFailures } from "./sqlErrors.js"

const RECORDING_COLUMNS = `session_id, distinct_id, start_time, end_time, active_ms, last_active, first_url, first_url_at,
  click_count, keypress_count, mouse_activity_count, console_log_count, console_warn_count, console_error_count,
  size, message_count, event_count, snapshot_source, snapshot_library, created_at`
const CHUNK_COLUMNS = `seq, first_timestamp AS "firstTimestamp", last_timestamp AS "lastTimestamp", event_count AS "eventCount", bytes`

export const RecordingStoreSql = Layer.effect(
  RecordingStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const recordingColumns = sql.literal(RECORDING_COLUMNS)
    const chunkColumns = sql.literal(CHUNK_COLUMNS)

    return RecordingStore.of({
      // The chunk's key decides whether anything happens: a retry inserts no chunk and folds nothing.
      append: (projectId, { sessionId, key, distinctId, source, library, data, summary: s }) =>
        transactionFailures(
          orStorageError(
            sql.withTransaction(
              Effect.gen(function* () {
                const inserted = yield* sql`
            INSERT INTO recording_chunks (project_id, session_id, key, first_timestamp, last_timestamp, event_count, bytes, data)
            VALUES (${projectId}, ${sessionId}, ${key}, ${s.firstTimestamp}, ${s.lastTimestamp}, ${s.eventCount}, ${s.bytes}, ${data})
            ON CONFLICT (project_id, session_id, key) DO NOTHING
            RETURNING seq`
                if (inserted.length === 0) return false
                // Milliseconds from the session's last interaction to this chunk's first; null when either has none.
                const gap = sql`(extract(epoch FROM ${s.firstActive}::timestamptz - r.last_active) * 1000)`
                yield* sql`
            INSERT INTO session_recordings AS r (project_id, session_id, distinct_id, start_time, end_time, active_ms, last_active,
              first_url, first_url_at, click_count, keypress_count, mouse_activity_count, console_log_count, console_warn_count,
              console_error_count, size, message_count, event_count, snapshot_source, snapshot_library)
            VALUES (${projectId}, ${sessionId}, ${distinctId}, ${s.firstTimestamp}, ${s.lastTimestamp}, ${s.activeMs}, ${s.lastActive},
              ${s.firstUrl?.url ?? null}, ${s.firstUrl?.at ?? null}, ${s.clickCount}, ${s.keypressCount}, ${s.mouseActivityCount},
              ${s.consoleLogCount}, ${s.consoleWarnCount}, ${s.consoleErrorCount}, ${s.bytes}, 1, ${s.eventCount}, ${source}, ${library})
            ON CONFLICT (project_id, session_id) DO UPDATE SET
              start_time = least(r.start_time, excluded.start_time),
              end_time = greatest(r.end_time, excluded.end_time),
              active_ms = r.active_ms + excluded.active_ms
                + CASE WHEN ${gap} > 0 AND ${gap} < ${ACTIVITY_THRESHOLD_MS} THEN round(${gap})::bigint ELSE 0 END,
              last_active = greatest(r.last_active, excluded.last_active),
              first_url = CASE WHEN r.first_url_at IS NULL OR excluded.first_url_at < r.first_url_at THEN excluded.first_url ELSE r.first_url END,
              first_url_at = least(r.first_url_at, excluded.first_url_at),
              click_count = r.click_count + excluded.click_count,
              keypress_count = r.keypress_count + excluded.keypress_count,
              mouse_activity_count = r.mouse_activity_count + excluded.mouse_activity_count,
              console_log_count = r.console_log_count + excluded.console_log_count,
              console_warn_count = r.console_warn_count + excluded.console_warn_count,
              console_error_count = r.console_error_count + excluded.console_error_count,
              size = r.size + excluded.size,
              message_count = r.message_count + 1,
              event_count = r.event_count + excluded.event_count`
                return true
              })
            )
          )
        ),
      get: (projectId, sessionId) =>
        orStorageError(sql<RecordingMeta>`SELECT ${recordingColumns} FROM session_recordings
          WHERE project_id = ${projectId} AND session_id = ${sessionId}`).pipe(Effect.map(Arr.head)),
      getMany: (projectId, sessionIds) =>
        sessionIds.length === 0
          ? Effect.succeed([])
          : orStorageError(sql<RecordingMeta>`SELECT ${recordingColumns} FROM session_recordings
              WHERE project_id = ${projectId} AND ${sql.in("session_id", sessionIds)}`),
      sessionsOf: (projectId, distinctIds) =>
        distinctIds.length === 0
          ? Effect.succeed([])
          : orStorageError(sql<{ readonly session_id: string }>`SELECT session_id FROM session_recordings
              WHERE project_id = ${projectId} AND ${sql.in("distinct_id", distinctIds)}`).pipe(
              Effect.map((rows) => rows.map((r) => r.session_id))
            ),
      chunks: (projectId, sessionId) =>
        orStorageError(sql<ChunkInfo>`SELECT ${chunkColumns} FROM recording_chunks
          WHERE project_id = ${projectId} AND session_id = ${sessionId} ORDER BY first_timestamp, seq`),
      chunkData: (projectId, sessionId, seqs) =>
        seqs.length === 0
          ? Effect.succeed([])
          : orStorageError(sql<{ seq: number; data: Uint8Array }>`SELECT seq, data FROM recording_chunks
              WHERE project_id = ${projectId} AND session_id = ${sessionId} AND ${sql.in("seq", seqs)}`).pipe(
              Effect.map((rows) => {
                const bySeq = new Map(rows.map((row) => [row.seq, row]))
                return seqs.flatMap((seq) => bySeq.get(seq) ?? [])
              })
            ),
      // Data-modifying CTEs all run, whether or not the statement reads them.
      remove: (projectId, sessionId) =>
        orStorageError(sql`
          WITH chunks AS (DELETE FROM recording_chunks WHERE project_id = ${projectId} AND session_id = ${sessionId}),
            views AS (DELETE FROM recording_views WHERE project_id = ${projectId} AND session_id = ${sessionId})
          DELETE FROM session_recordings WHERE project_id = ${projectId} AND session_id = ${sessionId}
          RETURNING 1`).pipe(Effect.map((rows) => rows.length > 0)),
      markViewed: (projectId, sessionId, userId) =>
        Effect.asVoid(
          orStorageError(sql`
          INSERT INTO recording_views (project_id, session_id, user_id) VALUES (${projectId}, ${sessionId}, ${userId})
          ON CONFLICT DO NOTHING`)
        ),
      viewed: (projectId, userId, sessionIds) =>
        sessionIds.length === 0
          ? Effect.succeed(new Set())
          : orStorageError(sql<{ session_id: string }>`SELECT session_id FROM recording_views
              WHERE project_id = ${projectId} AND user_id = ${userId} AND ${sql.in("session_id", sessionIds)}`).pipe(
              Effect.map((rows) => new Set(rows.map((row) => row.session_id)))
            )
    })
  })
)
