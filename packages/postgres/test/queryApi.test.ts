import { setTimeout as sleep } from "node:timers/promises"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { type CachedResponse, QueryCache, type QueryStatus, QueryStatusStore } from "@zed/core/storage"
import { Effect, Option } from "effect"
import pg from "pg"
import { ADMIN_KEY, call, importEvents, postQuery, PROJECT_KEY, zedqlRequest } from "../../core/test/support.js"
import { postgresStorage } from "../src/index.js"
import { backends, capQueryTimeout } from "./backends.js"
import { activeOnServer } from "./server.js"

// The query API running ZedQL for real, on PGlite and on PostgreSQL: the response, the refresh
// modes seen through is_cached and last_refresh, background runs polled to completion and
// cancelled (the database stops working on them), statuses seen and cancelled from a second Zed
// instance on the same PostgreSQL database, expired statuses swept, overrides, and errors with
// their position.

// Runs for hours unless stopped.
const RUNAWAY =
  "SELECT count() FROM (SELECT arrayJoin(range(1000000)) AS a) AS x CROSS JOIN (SELECT arrayJoin(range(1000000)) AS b) AS y"
// A background run is stopped by the time limit past this, should a cancel fail (Zed's own is 10 minutes).
const SAFETY_LIMIT_MS = 30_000
const MINUTE = 60_000
const HOUR = 60 * MINUTE

const EVENTS = Array.from({ length: 24 }, (_, i) => ({
  event: ["$pageview", "$pageview", "signed_up", "purchase"][i % 4]!,
  distinct_id: `u${i % 5}`,
  timestamp: new Date(Date.UTC(2025, 2, 1) + i * 6 * HOUR).toISOString(),
  properties: { $browser: i % 3 === 0 ? "Firefox" : "Chrome", amount: i }
}))
const countOf = (keep: (e: (typeof EVENTS)[number]) => boolean) => EVENTS.filter(keep).length
const BY_EVENT = [...new Set(EVENTS.map((e) => e.event))]
  .sort()
  .map((event) => [event, countOf((e) => e.event === event)])

/** The seed's query status fields (2.3). */
const STATUS_FIELDS = [
  "complete",
  "dashboard_id",
  "end_time",
  "error",
  "error_message",
  "expiration_time",
  "id",
  "insight_id",
  "labels",
  "pickup_time",
  "query_async",
  "query_progress",
  "results",
  "start_time",
  "task_id",
  "team_id"
]

const until = async <A>(what: string, probe: () => Promise<A | undefined>, timeoutMs = 15_000): Promise<A> => {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const found = await probe()
    if (found !== undefined) return found
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

const statusPath = (id: string) => `/api/environments/1/query/${encodeURIComponent(id)}/`

/** Polls a background query until it is no longer running: its final answer. */
const settled = (zed: Zed, id: string) =>
  until(`query ${id} to end`, async () => {
    const res = await call(zed, statusPath(id))
    return res.status === 202 ? undefined : res
  })

/** Writes the status of a background query that ended and expired a minute ago. */
const putExpiredStatus = (zed: Zed, id: string) => {
  const past = new Date(Date.now() - MINUTE)
  const status: QueryStatus = {
    id,
    team_id: 1,
    query_async: true,
    complete: true,
    error: false,
    error_message: null,
    results: null,
    start_time: past,
    pickup_time: past,
    end_time: past,
    expiration_time: past,
    task_id: null,
    insight_id: null,
    dashboard_id: null,
    labels: null,
    query_progress: null
  }
  return zed.run(Effect.flatMap(QueryStatusStore, (statuses) => statuses.put(status)))
}

const newZed = (storage: Parameters<typeof capQueryTimeout>[0], first = true) =>
  createZed({
    storage: capQueryTimeout(storage, SAFETY_LIMIT_MS),
    bootstrap: first ? { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY } : false
  })

describe.each(["pglite", "postgres"])("%s query API", (name) => {
  let zed: Zed
  let cleanup: () => Promise<void>
  let url: string | undefined

  beforeAll(async () => {
    const backend = await backends("query-api")[name]!()
    cleanup = backend.cleanup
    url = backend.url
    zed = await newZed(backend.storage)
    await importEvents(zed, PROJECT_KEY, EVENTS)
  })
  afterAll(async () => {
    await zed.close()
    await cleanup()
  })

  const query = (text: string, fields: Record<string, unknown> = {}, on = zed) =>
    postQuery(on, 1, zedqlRequest(text, fields))

  /** Replaces a cached result by one refreshed `ageMs` ago whose results say "stale". */
  const ageCachedResult = async (key: string, ageMs: number) => {
    const lastRefresh = new Date(Date.now() - ageMs)
    await zed.run(
      Effect.gen(function* () {
        const cache = yield* QueryCache
        const entry: CachedResponse = Option.getOrThrow(yield* cache.get(1, key))
        yield* cache.put(1, {
          ...entry,
          lastRefresh,
          response: { ...(entry.response as object), results: [["stale"]], last_refresh: lastRefresh.toISOString() }
        })
      })
    )
    return lastRefresh.toISOString()
  }

  it("answers a blocking query with its results and what the response carries", async () => {
    const before = Date.now()
    const res = await query("SELECT event, count() AS c FROM events GROUP BY event ORDER BY event")
    const after = Date.now()
    expect(res.status).toBe(200)
    expect(res.json).toMatchObject({
      results: BY_EVENT,
      columns: ["event", "c"],
      types: [
        ["event", "String"],
        ["c", "Int64"]
      ],
      hasMore: false,
      limit: 100,
      offset: 0,
      is_cached: false,
      query_status: null,
      timezone: "UTC",
      cache_key: expect.any(String)
    })
    const lastRefresh = Date.parse(res.json.last_refresh)
    expect(lastRefresh).toBeGreaterThanOrEqual(before)
    expect(lastRefresh).toBeLessThanOrEqual(after)
    expect(Date.parse(res.json.next_allowed_client_refresh)).toBeGreaterThan(lastRefresh)
    expect(res.json.timings.length).toBeGreaterThan(0)
    for (const timing of res.json.timings) expect(timing).toEqual({ k: expect.any(String), t: expect.any(Number) })
    // `zedql` is the query as run: run again, it answers the same.
    expect((await query(res.json.zedql)).json.results).toEqual(BY_EVENT)
  })

  it("pages a query without LIMIT: a page of 100 from OFFSET, and whether there is more", async () => {
    const first = await query("SELECT arrayJoin(range(250)) AS n ORDER BY n")
    expect(first.json).toMatchObject({ hasMore: true, limit: 100, offset: 0 })
    expect(first.json.results).toEqual(Array.from({ length: 100 }, (_, i) => [i]))
    const last = await query("SELECT arrayJoin(range(250)) AS n ORDER BY n OFFSET 200")
    expect(last.json).toMatchObject({ hasMore: false, limit: 100, offset: 200 })
    expect(last.json.results).toEqual(Array.from({ length: 50 }, (_, i) => [200 + i]))
    // A LIMIT of the query's own is not a page.
    const own = await query("SELECT arrayJoin(range(250)) AS n ORDER BY n LIMIT 3 OFFSET 10")
    expect(own.json.results).toEqual([[10], [11], [12]])
    expect(own.json.hasMore).toBeUndefined()
  })

  it("blocking answers from the cache while fresh; force_blocking always computes", async () => {
    const text = "SELECT count() FROM events WHERE event = 'purchase'"
    const expected = [[countOf((e) => e.event === "purchase")]]
    const computed = await query(text)
    expect(computed.json).toMatchObject({ results: expected, is_cached: false })
    const cached = await query(text, { refresh: "blocking" })
    expect(cached.json).toMatchObject({
      results: expected,
      is_cached: true,
      last_refresh: computed.json.last_refresh,
      cache_key: computed.json.cache_key
    })
    await sleep(5)
    const forced = await query(text, { refresh: "force_blocking" })
    expect(forced.json).toMatchObject({ results: expected, is_cached: false })
    expect(Date.parse(forced.json.last_refresh)).toBeGreaterThan(Date.parse(computed.json.last_refresh))
    // `refresh: true` is force_blocking's old spelling.
    expect((await query(text, { refresh: true })).json.is_cached).toBe(false)
    // The forced result replaced the cached one.
    const latest = await query(text, { refresh: true })
    expect((await query(text)).json).toMatchObject({ is_cached: true, last_refresh: latest.json.last_refresh })
  })

  it("force_cache never computes: a miss answers the cache key and no status", async () => {
    const text = "SELECT count() FROM events WHERE event = 'signed_up'"
    const miss = await query(text, { refresh: "force_cache" })
    expect(miss.status).toBe(200)
    expect(miss.json).toEqual({ cache_key: expect.any(String), query_status: null })
    // Nothing was computed or cached by it.
    const computed = await query(text)
    expect(computed.json).toMatchObject({ is_cached: false, cache_key: miss.json.cache_key })
    const hit = await query(text, { refresh: "force_cache" })
    expect(hit.json).toMatchObject({
      is_cached: true,
      results: [[countOf((e) => e.event === "signed_up")]],
      last_refresh: computed.json.last_refresh
    })
  })

  it("serves a stale result only where the mode allows it, and recomputes it otherwise", async () => {
    const text = "SELECT count() FROM events WHERE properties.$browser = 'Firefox'"
    const fresh = [[countOf((e) => e.properties.$browser === "Firefox")]]
    const { cache_key: key } = (await query(text)).json
    // 7 hours old: stale for every mode but lazy_async (12 hours).
    const staleAt = await ageCachedResult(key, 7 * HOUR)
    expect((await query(text, { refresh: "force_cache" })).json).toMatchObject({
      is_cached: true,
      results: [["stale"]],
      last_refresh: staleAt
    })
    const lazy = await query(text, { refresh: "lazy_async" })
    expect(lazy.status).toBe(200)
    expect(lazy.json).toMatchObject({ is_cached: true, results: [["stale"]], query_status: null })
    expect((await query(text, { refresh: "blocking" })).json).toMatchObject({ is_cached: false, results: fresh })

    // async: the stale result now, and a background refresh of it.
    await ageCachedResult(key, 7 * HOUR)
    const refreshing = await query(text, { refresh: "async" })
    expect(refreshing.status).toBe(202)
    expect(refreshing.json).toMatchObject({
      is_cached: true,
      results: [["stale"]],
      query_status: { id: key, complete: false, query_async: true }
    })
    expect((await settled(zed, key)).status).toBe(200)
    expect((await query(text, { refresh: "force_cache" })).json).toMatchObject({ is_cached: true, results: fresh })

    // Past 12 hours, lazy_async refreshes too.
    await ageCachedResult(key, 13 * HOUR)
    const lazyRefresh = await query(text, { refresh: "lazy_async" })
    expect(lazyRefresh.status).toBe(202)
    expect(lazyRefresh.json).toMatchObject({ is_cached: true, results: [["stale"]], query_status: { complete: false } })
    await settled(zed, key)
    expect((await query(text, { refresh: "force_cache" })).json.results).toEqual(fresh)
  })

  it("runs async queries in the background: 202 with a status, polled until complete with the results", async () => {
    const text = "SELECT distinct_id, count() FROM events GROUP BY distinct_id ORDER BY distinct_id"
    const expected = [...new Set(EVENTS.map((e) => e.distinct_id))]
      .sort()
      .map((id) => [id, countOf((e) => e.distinct_id === id)])
    const started = await query(text, { refresh: "async", client_query_id: "distinct-ids" })
    expect(started.status).toBe(202)
    expect(started.json).toEqual({ cache_key: expect.any(String), query_status: expect.any(Object) })
    const status = started.json.query_status
    expect(Object.keys(status).sort()).toEqual(STATUS_FIELDS)
    expect(status).toMatchObject({
      id: "distinct-ids",
      team_id: 1,
      query_async: true,
      complete: false,
      error: false,
      results: null,
      end_time: null
    })

    const done = await settled(zed, "distinct-ids")
    expect(done.status).toBe(200)
    const final = done.json.query_status
    expect(Object.keys(final).sort()).toEqual(STATUS_FIELDS)
    expect(final).toMatchObject({
      id: "distinct-ids",
      complete: true,
      error: false,
      error_message: null,
      task_id: status.task_id
    })
    expect(final.results).toMatchObject({ results: expected, is_cached: false, cache_key: started.json.cache_key })
    const [start, pickup, end] = [final.start_time, final.pickup_time, final.end_time].map(Date.parse)
    expect(start! <= pickup! && pickup! <= end!).toBe(true)
    // Kept 10 minutes after it ended.
    expect(Date.parse(final.expiration_time) - end!).toBe(10 * MINUTE)
    // The background run filled the cache.
    expect((await query(text)).json).toMatchObject({ is_cached: true, results: expected })

    // Legacy `async: true` and force_async (even over a fresh result) answer only the status.
    const forced = await query(text, { refresh: "force_async", client_query_id: "distinct-ids-again" })
    expect(forced.status).toBe(202)
    expect(forced.json).toEqual({
      query_status: expect.objectContaining({ id: "distinct-ids-again", complete: false })
    })
    await settled(zed, "distinct-ids-again")
    const legacy = await query("SELECT count() FROM events WHERE properties.amount > 3", { async: true })
    expect(legacy.status).toBe(202)
    expect((await settled(zed, legacy.json.cache_key)).json.query_status.results.results).toEqual([
      [countOf((e) => e.properties.amount > 3)]
    ])
    // async_except_on_cache_miss computes a miss now.
    const except = await query("SELECT count() FROM events WHERE properties.amount > 4", {
      refresh: "async_except_on_cache_miss"
    })
    expect(except.status).toBe(200)
    expect(except.json).toMatchObject({ is_cached: false, results: [[countOf((e) => e.properties.amount > 4)]] })
  })

  it("answers a background query that failed with 400 and its error message", async () => {
    const started = await query("SELECT nope FROM events", { refresh: "force_async", client_query_id: "failing" })
    expect(started.status).toBe(202)
    const failed = await settled(zed, "failing")
    expect(failed.status).toBe(400)
    expect(failed.json.query_status).toMatchObject({
      complete: true,
      error: true,
      error_message: expect.stringContaining("nope"),
      results: null
    })
  })

  it("cancels a running background query: 204, and the database stops working on it", async () => {
    const started = await query(RUNAWAY, { refresh: "force_async", client_query_id: "runaway" })
    expect(started.status).toBe(202)
    const task = started.json.query_status.task_id as string
    await until("the statement to run", async () =>
      url !== undefined
        ? (await activeOnServer(task)) || undefined
        : ((await call(zed, statusPath("runaway"))).json.query_status.pickup_time ?? undefined)
    )
    if (url === undefined) await sleep(300)
    const running = await call(zed, statusPath("runaway"))
    expect(running.status).toBe(202)
    expect(running.json.query_status).toMatchObject({ id: "runaway", complete: false, task_id: task })
    // Asking again for the same id joins the run under way.
    const joined = await query(RUNAWAY, { refresh: "force_async", client_query_id: "runaway" })
    expect(joined.json.query_status.task_id).toBe(task)

    const cancelledAt = performance.now()
    const cancelled = await call(zed, statusPath("runaway"), { method: "DELETE" })
    expect(cancelled.status).toBe(204)
    expect(cancelled.text).toBe("")
    if (url !== undefined)
      await until("the statement to stop", async () => ((await activeOnServer(task)) ? undefined : true), 5_000)
    // The database answers promptly (PGlite: after its thread restarted).
    expect((await query("SELECT count() FROM events WHERE properties.amount < 5")).json.results).toEqual([
      [countOf((e) => e.properties.amount < 5)]
    ])
    expect(performance.now() - cancelledAt).toBeLessThan(5_000)
    // Cancelled means forgotten, and the stopped run does not bring its status back.
    await sleep(200)
    expect((await call(zed, statusPath("runaway"))).status).toBe(404)
    expect((await call(zed, statusPath("runaway"), { method: "DELETE" })).status).toBe(404)
  })

  it("cancels a blocking query by its client_query_id: the request answers query_cancelled", async () => {
    const pending = query(RUNAWAY, { refresh: "force_blocking", client_query_id: "blocking-runaway" })
    const running = await until("the blocking run's status", async () => {
      const res = await call(zed, statusPath("blocking-runaway"))
      return res.status === 202 ? res.json.query_status : undefined
    })
    expect(running).toMatchObject({ id: "blocking-runaway", query_async: false, complete: false })
    if (url !== undefined)
      await until("the statement to run", async () => (await activeOnServer(running.task_id)) || undefined)
    expect((await call(zed, statusPath("blocking-runaway"), { method: "DELETE" })).status).toBe(204)
    const answer = await pending
    expect(answer.status).toBe(400)
    expect(answer.json).toMatchObject({ type: "validation_error", code: "query_cancelled" })
    if (url !== undefined) expect(await activeOnServer(running.task_id)).toBe(false)
    // A finished blocking run leaves nothing to poll: its answer went to the caller.
    expect((await query("SELECT 1", { client_query_id: "blocking-done" })).status).toBe(200)
    expect((await call(zed, statusPath("blocking-done"))).status).toBe(404)
  })

  it("answers 404 for a status past its expiration time", async () => {
    await putExpiredStatus(zed, "expired")
    expect((await call(zed, statusPath("expired"))).status).toBe(404)
    expect((await call(zed, statusPath("expired"), { method: "DELETE" })).status).toBe(404)
  })

  it("applies filters_override to {filters}, over the query's own filters", async () => {
    const text = "SELECT count() FROM events WHERE {filters}"
    const own = {
      kind: "ZedQLQuery",
      query: text,
      filters: { properties: [{ key: "$browser", value: "Firefox", operator: "exact", type: "event" }] }
    }
    const plain = await postQuery(zed, 1, { query: own })
    expect(plain.json.results).toEqual([[countOf((e) => e.properties.$browser === "Firefox")]])
    const [from, to] = ["2025-03-02T03:00:00Z", "2025-03-05T03:00:00Z"]
    const overridden = await postQuery(zed, 1, {
      query: own,
      filters_override: {
        date_from: from,
        date_to: to,
        properties: [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }]
      }
    })
    expect(overridden.json.results).toEqual([
      [
        countOf(
          (e) =>
            e.properties.$browser === "Chrome" &&
            e.timestamp >= from.replace("Z", ".000Z") &&
            e.timestamp < to.replace("Z", ".000Z")
        )
      ]
    ])
    expect(overridden.json.cache_key).not.toBe(plain.json.cache_key)
  })

  it("applies variables_override to the query's variables, by id, as an object or a bare value", async () => {
    const node = {
      kind: "ZedQLQuery",
      query: "SELECT count() FROM events WHERE event = {variables.name}",
      variables: { v1: { variableId: "v1", code_name: "name", value: "$pageview" } }
    }
    const count = (event: string) => [[countOf((e) => e.event === event)]]
    expect((await postQuery(zed, 1, { query: node })).json.results).toEqual(count("$pageview"))
    expect(
      (
        await postQuery(zed, 1, {
          query: node,
          variables_override: { v1: { variableId: "v1", code_name: "name", value: "purchase" } }
        })
      ).json.results
    ).toEqual(count("purchase"))
    expect((await postQuery(zed, 1, { query: node, variables_override: { v1: "signed_up" } })).json.results).toEqual(
      count("signed_up")
    )
    // An override of a variable the query does not have changes nothing.
    expect((await postQuery(zed, 1, { query: node, variables_override: { other: "purchase" } })).json.results).toEqual(
      count("$pageview")
    )
  })

  it("answers syntax and resolution errors with 400, the message and where in the query", async () => {
    const cases = [
      ["SELECT event FROM events WHERE", "zedql_syntax_error", null],
      ["SELECT (event FROM events", "zedql_syntax_error", null],
      ["SELECT event FROM events WHERE nope = 1", "zedql_query_error", "nope"],
      ["SELECT no_such_fn(event) FROM events", "zedql_query_error", "no_such_fn(event)"],
      ["SELECT event FROM no_such_table", "zedql_query_error", "no_such_table"]
    ] as const
    for (const [text, code, culprit] of cases) {
      const res = await query(text, { refresh: "force_blocking" })
      expect(res.status, text).toBe(400)
      expect(res.json).toEqual({
        type: "validation_error",
        code,
        detail: expect.any(String),
        attr: null,
        start: expect.any(Number),
        end: expect.any(Number)
      })
      const { end, start } = res.json as { start: number; end: number }
      expect(0 <= start && start <= end && end <= text.length, text).toBe(true)
      if (culprit !== null) expect(text.slice(start, end)).toBe(culprit)
    }
  })
})

describe("two Zed instances on one PostgreSQL database", () => {
  let first: Zed
  let second: Zed
  let cleanup: () => Promise<void>
  let url: string

  beforeAll(async () => {
    const backend = await backends("query-api-shared").postgres!()
    cleanup = backend.cleanup
    url = backend.url!
    first = await newZed(backend.storage)
    second = await newZed(postgresStorage({ url }), false)
    await importEvents(first, PROJECT_KEY, EVENTS)
  })
  afterAll(async () => {
    await second.close()
    await first.close()
    await cleanup()
  })

  it("answers from either instance for a query the other computed or runs", async () => {
    const text = "SELECT count() FROM events WHERE event = '$pageview'"
    const computed = await postQuery(first, 1, zedqlRequest(text))
    expect((await postQuery(second, 1, zedqlRequest(text))).json).toMatchObject({
      is_cached: true,
      last_refresh: computed.json.last_refresh
    })

    const started = await postQuery(
      first,
      1,
      zedqlRequest("SELECT count() FROM events WHERE properties.amount >= 10", {
        refresh: "force_async",
        client_query_id: "shared-fast"
      })
    )
    expect(started.status).toBe(202)
    const done = await settled(second, "shared-fast")
    expect(done.status).toBe(200)
    expect(done.json.query_status.results.results).toEqual([[countOf((e) => e.properties.amount >= 10)]])
  })

  it("cancels from one instance a query the other runs: the server stops it", async () => {
    const started = await postQuery(
      first,
      1,
      zedqlRequest(RUNAWAY, { refresh: "force_async", client_query_id: "shared-runaway" })
    )
    const task = started.json.query_status.task_id as string
    await until("the statement to run", async () => (await activeOnServer(task)) || undefined)
    const seen = await call(second, statusPath("shared-runaway"))
    expect(seen.status).toBe(202)
    expect(seen.json.query_status).toMatchObject({ id: "shared-runaway", complete: false, task_id: task })
    expect((await call(second, statusPath("shared-runaway"), { method: "DELETE" })).status).toBe(204)
    await until("the statement to stop", async () => ((await activeOnServer(task)) ? undefined : true), 5_000)
    await sleep(200)
    expect((await call(first, statusPath("shared-runaway"))).status).toBe(404)
    expect((await call(second, statusPath("shared-runaway"))).status).toBe(404)
  })

  it("stops a query cancelled from the other instance before its statement started", async () => {
    const started = await postQuery(
      first,
      1,
      zedqlRequest(RUNAWAY, { refresh: "force_async", client_query_id: "early-cancel" })
    )
    const task = started.json.query_status.task_id as string
    expect((await call(second, statusPath("early-cancel"), { method: "DELETE" })).status).toBe(204)
    // Given time to start, it is not running, and its status stays gone.
    await sleep(3_000)
    expect(await activeOnServer(task)).toBe(false)
    expect((await call(first, statusPath("early-cancel"))).status).toBe(404)
  })

  it("hides expired statuses at once, and a starting instance sweeps them from the database", async () => {
    await putExpiredStatus(first, "expired")
    expect((await call(first, statusPath("expired"))).status).toBe(404)
    expect((await call(second, statusPath("expired"))).status).toBe(404)
    const rows = async () => {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      try {
        return (await client.query("SELECT 1 FROM query_statuses WHERE id = 'expired'")).rowCount
      } finally {
        await client.end()
      }
    }
    expect(await rows()).toBe(1)
    // Every instance sweeps when it starts, and every minute after.
    const third = await newZed(postgresStorage({ url }), false)
    try {
      await until("the expired status to be swept", async () => (await rows()) === 0 || undefined, 5_000)
    } finally {
      await third.close()
    }
  })
})
