import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type ZedStorage, type Zed } from "@zed/core"
import { Effect } from "effect"
import { ADMIN_KEY, call, importEvents, PROJECT_KEY } from "../../core/test/support.js"
import { backends, wrapExecute } from "./backends.js"

// A dashboard's tiles are computed several at a time, never more than the bound
// (`COMPUTED_AT_ONCE` in api/wire/insights.ts): the store's query executor is wrapped to count the
// statements in flight, and each statement is held until the bound is reached (or until no new one
// has started for a moment, so that a dashboard computing one tile after another still finishes,
// with a peak of one). Opening a dashboard of 8 tiles must then reach exactly the bound.

const BOUND = 4
const TILES = 8
/** How long a held statement waits for others before it runs anyway. */
const QUIET_MS = 250

/** The executor's statements in flight and their peak, counted while `armed`. */
const inFlight = () => {
  const state = { armed: false, now: 0, peak: 0, started: 0 }
  let waiting: Array<() => void> = []
  let quiet: ReturnType<typeof setTimeout> | undefined
  const releaseAll = () => {
    for (const release of waiting) release()
    waiting = []
  }
  const hold = () =>
    new Promise<void>((release) => {
      waiting.push(release)
      if (state.now >= BOUND) releaseAll()
      clearTimeout(quiet)
      quiet = setTimeout(releaseAll, QUIET_MS)
    })
  const wrap = (storage: ZedStorage): ZedStorage =>
    wrapExecute(storage, (execute) => (request) => {
      if (!state.armed) return execute(request)
      return Effect.acquireUseRelease(
        Effect.sync(() => {
          state.now++
          state.started++
          state.peak = Math.max(state.peak, state.now)
        }),
        () => Effect.zipRight(Effect.promise(hold), execute(request)),
        () => Effect.sync(() => state.now--)
      )
    })
  return { state, wrap }
}

const DAY = 86_400_000
const EVENTS = Array.from({ length: 24 }, (_, i) => ({
  event: "$pageview",
  distinct_id: `u${i % 5}`,
  timestamp: new Date(Date.UTC(2025, 4, 1) + (i % 12) * DAY + i * 60_000).toISOString()
}))

/** Eight different trends (so eight statements), each counting page views on its own days. */
const trend = (days: number) => ({
  kind: "InsightVizNode",
  source: {
    kind: "TrendsQuery",
    series: [{ kind: "EventsNode", event: "$pageview", math: "total" }],
    interval: "day",
    dateRange: { date_from: "2025-05-01", date_to: `2025-05-${String(days).padStart(2, "0")}` }
  }
})

describe.each(["pglite", "postgres"])("%s dashboard tiles", (name) => {
  let zed: Zed
  let cleanup: () => Promise<void>
  const counter = inFlight()
  beforeAll(async () => {
    const backend = await backends("dashboard-tiles")[name]!()
    cleanup = backend.cleanup
    zed = await createZed({
      storage: counter.wrap(backend.storage),
      bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY, adminPassword: null }
    })
    await importEvents(zed, PROJECT_KEY, EVENTS)
  })
  afterAll(async () => {
    await zed?.close()
    await cleanup?.()
  })

  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await call(zed, `/api/projects/1${path}`, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    expect(res.status, res.text).toBeLessThan(300)
    return res.json
  }

  it(`computes ${TILES} tiles ${BOUND} at a time, never more`, async () => {
    const dashboard = await ok("POST", "/dashboards/", { name: "Tiles" })
    for (let days = 2; days < 2 + TILES; days++)
      await ok("POST", "/insights/", { name: `Until day ${days}`, query: trend(days), dashboards: [dashboard.id] })

    counter.state.armed = true
    const opened = await ok("GET", `/dashboards/${dashboard.id}/?refresh=force_blocking`).finally(() => {
      counter.state.armed = false
    })

    expect(counter.state.started).toBeGreaterThanOrEqual(TILES)
    expect(counter.state.peak).toBe(BOUND)
    // Each tile has its own result: the views of its own days.
    const views = (days: number) => EVENTS.filter((e) => new Date(e.timestamp).getUTCDate() <= days).length
    const totals = opened.tiles
      .map((t: { insight: { name: string; result: Array<{ count: number }> } }) => [
        t.insight.name,
        t.insight.result[0]!.count
      ])
      .sort()
    const expected = Array.from({ length: TILES }, (_, i) => [`Until day ${i + 2}`, views(i + 2)]).sort()
    expect(totals).toEqual(expected)
  })
})
