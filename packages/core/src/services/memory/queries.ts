import { Effect, Layer, Option } from "effect"
import { type CachedResponse, QueryCache } from "../QueryCache.js"
import { QueryFailed, QueryExecutor } from "../QueryExecutor.js"
import { type QueryStatus, QueryStatusStore } from "../QueryStatusStore.js"
import { postgres } from "../../zedql/postgres/print.js"
import { type Journal, makeJournal } from "./journal.js"

// SQL keeps JSON as text: a copy through JSON answers what SQL would, and shares nothing with the caller.
const viaJson = (value: unknown): unknown => (value === undefined ? null : JSON.parse(JSON.stringify(value)))

/**
 * Cached query results kept at most, and their bytes as JSON; past either, the oldest go first. A
 * result no longer kept is computed again, as any miss is.
 */
export const QUERY_CACHE_BOUNDS = { entries: 1000, bytes: 64 * 1024 * 1024 }

export const makeMemoryQueryCache = (journal: Journal, bounds = QUERY_CACHE_BOUNDS) => {
  // Each entry carries its size, so that a rolled-back write restores both together.
  const entries = new Map<string, { readonly cached: CachedResponse; readonly bytes: number }>()
  const at = (projectId: number, key: string) => `${projectId}:${key}`
  const evict = () => {
    let bytes = 0
    for (const { bytes: size } of entries.values()) bytes += size
    for (const [key, { bytes: size }] of entries) {
      if (entries.size <= bounds.entries && bytes <= bounds.bytes) break
      journal.delete(entries, key)
      bytes -= size
    }
  }
  return QueryCache.of({
    get: (projectId, key) => Effect.sync(() => Option.fromNullable(entries.get(at(projectId, key))?.cached)),
    put: (projectId, entry) =>
      Effect.sync(() => {
        const text = JSON.stringify(entry.response ?? null)
        // Deleted first, so that a replaced entry counts as the newest.
        journal.delete(entries, at(projectId, entry.key))
        journal.set(entries, at(projectId, entry.key), {
          cached: { ...entry, response: JSON.parse(text) },
          bytes: text.length
        })
        evict()
      }),
    removeExpired: (now) =>
      Effect.sync(() => {
        let removed = 0
        for (const [key, { cached }] of [...entries]) {
          if (cached.expiresAt <= now) {
            journal.delete(entries, key)
            removed++
          }
        }
        return removed
      })
  })
}

export const makeMemoryQueryStatuses = (journal: Journal) => {
  const statuses = new Map<string, QueryStatus>()
  const at = (projectId: number, id: string) => `${projectId}:${id}`
  const expired = (status: QueryStatus, now: Date) => status.expiration_time !== null && status.expiration_time <= now
  const store = (status: QueryStatus) =>
    journal.set(statuses, at(status.team_id, status.id), {
      ...status,
      results: viaJson(status.results),
      labels: viaJson(status.labels) as QueryStatus["labels"],
      query_progress: viaJson(status.query_progress) as QueryStatus["query_progress"]
    })
  return QueryStatusStore.of({
    put: (status) => Effect.sync(() => store(status)),
    update: (status) =>
      Effect.sync(() => {
        const present = statuses.has(at(status.team_id, status.id))
        if (present) store(status)
        return present
      }),
    get: (projectId, id, now) =>
      Effect.sync(() => Option.filter(Option.fromNullable(statuses.get(at(projectId, id))), (s) => !expired(s, now))),
    remove: (projectId, id) => Effect.sync(() => journal.delete(statuses, at(projectId, id))),
    removeExpired: (now) =>
      Effect.sync(() => {
        let removed = 0
        for (const [key, status] of [...statuses]) {
          if (expired(status, now)) {
            journal.delete(statuses, key)
            removed++
          }
        }
        return removed
      })
  })
}

/** Memory holds no SQL engine: ZedQL needs PGlite or a PostgreSQL server. */
export const memoryQueryExecutor = QueryExecutor.of({
  dialect: postgres,
  execute: () =>
    Effect.fail(
      new QueryFailed({
        message: "ZedQL queries need a SQL store (PGlite or PostgreSQL); in-memory storage cannot run them."
      })
    ),
  cancel: () => Effect.succeed(false)
})

/**
 * Query results and statuses in this process's memory. For PGlite: one session that a running query
 * holds, so statuses kept there could not be read (or the query cancelled) until it ended; and only
 * one process can open its data directory, so no other instance needs them.
 */
export const processQueryStores: Layer.Layer<QueryCache | QueryStatusStore> = Layer.mergeAll(
  Layer.sync(QueryCache, () => makeMemoryQueryCache(makeJournal())),
  Layer.sync(QueryStatusStore, () => makeMemoryQueryStatuses(makeJournal()))
)
