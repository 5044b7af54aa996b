import { Effect, Option } from "effect"
import {
  ACTIVITY_THRESHOLD_MS,
  type ChunkInfo,
  type NewChunk,
  type RecordingMeta,
  RecordingStore
} from "../RecordingStore.js"
import type { Journal } from "./journal.js"

interface Chunk extends ChunkInfo {
  readonly project_id: number
  readonly session_id: string
  readonly key: string
  readonly data: Uint8Array
}

// SQL's least and greatest: a null gives way to the other.
const least = <B extends Date | null>(a: Date | null, b: B): Date | B => (a === null || (b !== null && b < a) ? b : a)
const greatest = <B extends Date | null>(a: Date | null, b: B): Date | B =>
  a === null || (b !== null && b > a) ? b : a

/** The session's metadata once the chunk is folded in, as the SQL upsert computes it. */
const fold = (
  meta: RecordingMeta | undefined,
  { sessionId, distinctId, source, library, summary: s }: NewChunk
): RecordingMeta => {
  const firstUrl =
    s.firstUrl !== null && (meta?.first_url_at == null || s.firstUrl.at < meta.first_url_at)
      ? { first_url: s.firstUrl.url, first_url_at: s.firstUrl.at }
      : { first_url: meta?.first_url ?? null, first_url_at: meta?.first_url_at ?? null }
  const gap =
    meta?.last_active != null && s.firstActive !== null ? s.firstActive.getTime() - meta.last_active.getTime() : 0
  return {
    session_id: sessionId,
    distinct_id: meta?.distinct_id ?? distinctId,
    start_time: least(meta?.start_time ?? null, s.firstTimestamp),
    end_time: greatest(meta?.end_time ?? null, s.lastTimestamp),
    active_ms: (meta?.active_ms ?? 0) + s.activeMs + (gap > 0 && gap < ACTIVITY_THRESHOLD_MS ? gap : 0),
    last_active: greatest(meta?.last_active ?? null, s.lastActive),
    ...firstUrl,
    click_count: (meta?.click_count ?? 0) + s.clickCount,
    keypress_count: (meta?.keypress_count ?? 0) + s.keypressCount,
    mouse_activity_count: (meta?.mouse_activity_count ?? 0) + s.mouseActivityCount,
    console_log_count: (meta?.console_log_count ?? 0) + s.consoleLogCount,
    console_warn_count: (meta?.console_warn_count ?? 0) + s.consoleWarnCount,
    console_error_count: (meta?.console_error_count ?? 0) + s.consoleErrorCount,
    size: (meta?.size ?? 0) + s.bytes,
    message_count: (meta?.message_count ?? 0) + 1,
    event_count: (meta?.event_count ?? 0) + s.eventCount,
    snapshot_source: meta?.snapshot_source ?? source,
    snapshot_library: meta === undefined ? library : meta.snapshot_library,
    created_at: meta?.created_at ?? new Date()
  }
}

const info = ({ seq, firstTimestamp, lastTimestamp, eventCount, bytes }: Chunk): ChunkInfo => ({
  seq,
  firstTimestamp,
  lastTimestamp,
  eventCount,
  bytes
})

export const makeMemoryRecordings = (journal: Journal) => {
  const recordings = new Map<string, RecordingMeta>()
  const chunks = new Map<number, Chunk>()
  // Viewer's key to the recording's.
  const views = new Map<string, string>()
  let seq = 1

  const id = (projectId: number, sessionId: string) => `${projectId}:${sessionId}`
  const chunksOf = (projectId: number, sessionId: string) =>
    [...chunks.values()].filter((c) => c.project_id === projectId && c.session_id === sessionId)

  return RecordingStore.of({
    append: (projectId, chunk) =>
      Effect.sync(() => {
        if (chunksOf(projectId, chunk.sessionId).some((c) => c.key === chunk.key)) return false
        const { summary } = chunk
        const stored: Chunk = {
          seq: seq++,
          project_id: projectId,
          session_id: chunk.sessionId,
          key: chunk.key,
          firstTimestamp: summary.firstTimestamp,
          lastTimestamp: summary.lastTimestamp,
          eventCount: summary.eventCount,
          bytes: summary.bytes,
          data: chunk.data
        }
        journal.set(chunks, stored.seq, stored)
        const key = id(projectId, chunk.sessionId)
        journal.set(recordings, key, fold(recordings.get(key), chunk))
        return true
      }),
    get: (projectId, sessionId) => Effect.sync(() => Option.fromNullable(recordings.get(id(projectId, sessionId)))),
    getMany: (projectId, sessionIds) =>
      Effect.sync(() => sessionIds.flatMap((s) => recordings.get(id(projectId, s)) ?? [])),
    sessionsOf: (projectId, distinctIds) =>
      Effect.sync(() => {
        const wanted = new Set(distinctIds)
        return [...recordings]
          .filter(([key, r]) => key === id(projectId, r.session_id) && wanted.has(r.distinct_id))
          .map(([, r]) => r.session_id)
      }),
    chunks: (projectId, sessionId) =>
      Effect.sync(() =>
        chunksOf(projectId, sessionId)
          .sort((a, b) => a.firstTimestamp.getTime() - b.firstTimestamp.getTime() || a.seq - b.seq)
          .map(info)
      ),
    chunkData: (projectId, sessionId, seqs) =>
      Effect.sync(() =>
        seqs.flatMap((s) => {
          const c = chunks.get(s)
          return c === undefined || c.project_id !== projectId || c.session_id !== sessionId
            ? []
            : [{ seq: s, data: c.data }]
        })
      ),
    remove: (projectId, sessionId) =>
      Effect.sync(() => {
        const key = id(projectId, sessionId)
        if (!recordings.has(key)) return false
        for (const c of chunksOf(projectId, sessionId)) journal.delete(chunks, c.seq)
        for (const [view, recording] of views) if (recording === key) journal.delete(views, view)
        journal.delete(recordings, key)
        return true
      }),
    markViewed: (projectId, sessionId, userId) =>
      Effect.sync(() => {
        const recording = id(projectId, sessionId)
        journal.set(views, `${recording}:${userId}`, recording)
      }),
    viewed: (projectId, userId, sessionIds) =>
      Effect.sync(() => new Set(sessionIds.filter((s) => views.has(`${id(projectId, s)}:${userId}`))))
  })
}
