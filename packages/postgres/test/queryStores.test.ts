import { describe, expect, it } from "@effect/vitest"
import { type CachedResponse, QueryCache, type QueryStatus, QueryStatusStore } from "@zed/core/storage"
import { Option } from "effect"
import { backends as storageBackends, suiteStorage } from "./backends.js"

// The query cache and the query status store, alike on every backend.

const backends = storageBackends("queries")

const T0 = new Date("2025-01-01T12:00:00.000Z")
const later = (ms: number) => new Date(T0.getTime() + ms)
const MINUTE = 60_000

const response = (n: number) => ({
  results: [["Chrome", n]],
  columns: ["b", "count()"],
  types: [
    ["b", "Nullable(String)"],
    ["count()", "UInt64"]
  ],
  is_cached: false,
  last_refresh: T0.toISOString(),
  query_status: null
})

const cached = (key: string, n: number, lastRefresh = T0, expiresAt = later(7 * 24 * 60 * MINUTE)): CachedResponse => ({
  key,
  response: response(n),
  lastRefresh,
  expiresAt
})

const status = (projectId: number, id: string, fields: Partial<QueryStatus> = {}): QueryStatus => ({
  id,
  team_id: projectId,
  query_async: true,
  complete: false,
  error: false,
  error_message: null,
  results: null,
  start_time: T0,
  pickup_time: null,
  end_time: null,
  expiration_time: later(10 * MINUTE),
  task_id: null,
  insight_id: null,
  dashboard_id: null,
  labels: null,
  query_progress: null,
  ...fields
})

/** Rows as a query returns them: many, each with a nested object and text that needs escaping. */
const largeResults = (rows: number) => ({
  ...response(0),
  results: Array.from({ length: rows }, (_, i) => [
    i,
    `row "${i}" ✓\n`,
    { nested: { i, even: i % 2 === 0 } },
    null,
    1.5e-7 * i
  ])
})

describe.each(Object.keys(backends))("%s", (name) => {
  const suite = suiteStorage(backends[name]!)
  const run = suite.run

  describe("query cache", () => {
    it("put, get and replace: dates as dates, the response as JSON", async () => {
      const cache = await run(QueryCache)
      expect(Option.isNone(await run(cache.get(1, "cache_a")))).toBe(true)
      await run(cache.put(1, cached("cache_a", 1)))
      const got = Option.getOrThrow(await run(cache.get(1, "cache_a")))
      expect(got).toEqual(cached("cache_a", 1))
      expect(got.lastRefresh).toBeInstanceOf(Date)
      expect(got.expiresAt).toBeInstanceOf(Date)

      await run(cache.put(1, cached("cache_a", 2, later(MINUTE), later(2 * MINUTE))))
      expect(Option.getOrThrow(await run(cache.get(1, "cache_a")))).toEqual(
        cached("cache_a", 2, later(MINUTE), later(2 * MINUTE))
      )
    })

    it("keeps the response as written: key order, dates as their JSON text, \\u0000 in strings", async () => {
      const cache = await run(QueryCache)
      const written = { zed: "last", a: "\u0000nul", when: T0, nested: { z: 1, b: 2 }, dropped: undefined }
      await run(cache.put(1, { ...cached("cache_text", 1), response: written }))
      const read = Option.getOrThrow(await run(cache.get(1, "cache_text"))).response as Record<string, unknown>
      expect(read).toEqual({ zed: "last", a: "\u0000nul", when: T0.toISOString(), nested: { z: 1, b: 2 } })
      expect(Object.keys(read)).toEqual(["zed", "a", "when", "nested"])
      expect(Object.keys(read.nested as object)).toEqual(["z", "b"])
    })

    it("another project's key is none, and its entry is its own", async () => {
      const cache = await run(QueryCache)
      await run(cache.put(1, cached("cache_shared", 1)))
      expect(Option.isNone(await run(cache.get(suite.other, "cache_shared")))).toBe(true)
      await run(cache.put(suite.other, cached("cache_shared", 2)))
      expect(
        (Option.getOrThrow(await run(cache.get(1, "cache_shared"))).response as { results: unknown }).results
      ).toEqual([["Chrome", 1]])
      expect(
        (Option.getOrThrow(await run(cache.get(suite.other, "cache_shared"))).response as { results: unknown }).results
      ).toEqual([["Chrome", 2]])
    })

    it("removeExpired drops entries expired at `now` (inclusive) and counts them", async () => {
      const cache = await run(QueryCache)
      const now = later(365 * 24 * 60 * MINUTE)
      // Whatever earlier tests left expires before `now`.
      await run(cache.removeExpired(new Date(now.getTime() - 1)))
      await run(cache.put(1, cached("cache_gone", 1, T0, now)))
      await run(cache.put(suite.other, cached("cache_gone_too", 1, T0, new Date(now.getTime() - 1))))
      await run(cache.put(1, cached("cache_kept", 1, T0, new Date(now.getTime() + 1))))
      expect(await run(cache.removeExpired(now))).toBe(2)
      expect(await run(cache.removeExpired(now))).toBe(0)
      expect(Option.isNone(await run(cache.get(1, "cache_gone")))).toBe(true)
      expect(Option.isNone(await run(cache.get(suite.other, "cache_gone_too")))).toBe(true)
      expect(Option.isSome(await run(cache.get(1, "cache_kept")))).toBe(true)
    })

    it("holds large responses", async () => {
      const cache = await run(QueryCache)
      const big = largeResults(20_000)
      await run(cache.put(1, { ...cached("cache_big", 1), response: big }))
      expect(Option.getOrThrow(await run(cache.get(1, "cache_big"))).response).toEqual(big)
    })
  })

  describe("query statuses", () => {
    it("put, get and replace: every field round-trips", async () => {
      const statuses = await run(QueryStatusStore)
      expect(Option.isNone(await run(statuses.get(1, "q1", T0)))).toBe(true)
      const pending = status(1, "q1", {
        task_id: "exec-1",
        insight_id: 7,
        dashboard_id: 8,
        labels: ["a", "b"],
        query_progress: { bytes_read: 10, rows_read: 2, estimated_rows_total: 4, time_elapsed: 0.5, active_cpu_time: 1 }
      })
      await run(statuses.put(pending))
      const got = Option.getOrThrow(await run(statuses.get(1, "q1", T0)))
      expect(got).toEqual(pending)
      expect(got.start_time).toBeInstanceOf(Date)

      const done = status(1, "q1", {
        complete: true,
        results: response(3),
        pickup_time: later(1000),
        end_time: later(2000),
        expiration_time: later(2000 + 10 * MINUTE)
      })
      await run(statuses.put(done))
      expect(Option.getOrThrow(await run(statuses.get(1, "q1", T0)))).toEqual(done)

      const failed = status(1, "q1", {
        complete: true,
        error: true,
        error_message: "Unknown table `nope`",
        expiration_time: null,
        start_time: null
      })
      await run(statuses.put(failed))
      expect(Option.getOrThrow(await run(statuses.get(1, "q1", T0)))).toEqual(failed)
    })

    it("update replaces only a status that is there: a removed one stays removed", async () => {
      const statuses = await run(QueryStatusStore)
      expect(await run(statuses.update(status(1, "q-update")))).toBe(false)
      expect(Option.isNone(await run(statuses.get(1, "q-update", T0)))).toBe(true)
      await run(statuses.put(status(1, "q-update")))
      const picked = status(1, "q-update", { pickup_time: later(500), labels: ["x"], results: response(2) })
      expect(await run(statuses.update(picked))).toBe(true)
      expect(Option.getOrThrow(await run(statuses.get(1, "q-update", T0)))).toEqual(picked)
      expect(await run(statuses.update(status(suite.other, "q-update")))).toBe(false)
      await run(statuses.remove(1, "q-update"))
      expect(await run(statuses.update(picked))).toBe(false)
      expect(Option.isNone(await run(statuses.get(1, "q-update", T0)))).toBe(true)
    })

    it("another project's id is none, and its status is its own", async () => {
      const statuses = await run(QueryStatusStore)
      await run(statuses.put(status(1, "q-shared")))
      expect(Option.isNone(await run(statuses.get(suite.other, "q-shared", T0)))).toBe(true)
      await run(statuses.put(status(suite.other, "q-shared", { complete: true })))
      expect(Option.getOrThrow(await run(statuses.get(1, "q-shared", T0))).complete).toBe(false)
      expect(Option.getOrThrow(await run(statuses.get(suite.other, "q-shared", T0))).complete).toBe(true)
      await run(statuses.remove(suite.other, "q-shared"))
      expect(Option.isNone(await run(statuses.get(suite.other, "q-shared", T0)))).toBe(true)
      expect(Option.isSome(await run(statuses.get(1, "q-shared", T0)))).toBe(true)
    })

    it("get hides expired statuses; removeExpired drops them (inclusive) and counts; no expiration is kept", async () => {
      const statuses = await run(QueryStatusStore)
      const now = later(365 * 24 * 60 * MINUTE)
      await run(statuses.removeExpired(new Date(now.getTime() - 1)))
      await run(statuses.put(status(1, "q-expiring", { expiration_time: now })))
      await run(statuses.put(status(suite.other, "q-expired", { expiration_time: new Date(now.getTime() - 1) })))
      await run(statuses.put(status(1, "q-live", { expiration_time: new Date(now.getTime() + 1) })))
      await run(statuses.put(status(1, "q-forever", { expiration_time: null })))

      expect(Option.isSome(await run(statuses.get(1, "q-expiring", new Date(now.getTime() - 1))))).toBe(true)
      expect(Option.isNone(await run(statuses.get(1, "q-expiring", now)))).toBe(true)
      expect(Option.isNone(await run(statuses.get(suite.other, "q-expired", now)))).toBe(true)
      expect(Option.isSome(await run(statuses.get(1, "q-live", now)))).toBe(true)

      expect(await run(statuses.removeExpired(now))).toBe(2)
      expect(await run(statuses.removeExpired(now))).toBe(0)
      // Gone for good: no earlier `now` brings it back.
      expect(Option.isNone(await run(statuses.get(1, "q-expiring", T0)))).toBe(true)
      expect(Option.isSome(await run(statuses.get(1, "q-live", now)))).toBe(true)
      expect(Option.isSome(await run(statuses.get(1, "q-forever", later(100 * 365 * 24 * 60 * MINUTE))))).toBe(true)
    })

    it("holds large results", async () => {
      const statuses = await run(QueryStatusStore)
      const big = largeResults(20_000)
      await run(statuses.put(status(1, "q-big", { complete: true, results: big })))
      expect(Option.getOrThrow(await run(statuses.get(1, "q-big", T0))).results).toEqual(big)
    })
  })
})
