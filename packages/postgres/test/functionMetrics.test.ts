import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { ADMIN_KEY, call, PROJECT_KEY } from "../../core/test/support.js"
import { backends } from "./backends.js"

// A zed function's metrics at PostHog's app metrics endpoints, on each store: the invocations the
// function ran (those its filters admit), succeeded or failed, as the test counts them from what it
// sent; per interval, in total, by name or kind; bad parameters refused with the field named.

/** Fails on events whose `boom` property is set; the filter admits only `order` events. */
const CODE = "if (event.properties.boom) {\n  throw Error('boom')\n}\nreturn event"

describe.each(["memory", "pglite", "postgres"])("%s function metrics", (name) => {
  let zed: Zed
  let cleanup: () => Promise<void>
  let fn: string
  // What the test sent: orders that fail, orders that pass, and events the filter keeps out.
  const failures = 2 + Math.floor(Math.random() * 4)
  const successes = 3 + Math.floor(Math.random() * 5)
  const filteredOut = 1 + Math.floor(Math.random() * 3)

  const get = async (path: string) => call(zed, `/api/environments/1/zed_functions/${fn}${path}`)
  const ok = async (path: string) => {
    const res = await get(path)
    expect(res.status, res.text).toBe(200)
    return res.json
  }

  beforeAll(async () => {
    const backend = await backends("function-metrics")[name]!()
    cleanup = backend.cleanup
    zed = await createZed({
      storage: backend.storage,
      bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY }
    })
    const created = await call(zed, "/api/environments/1/zed_functions/", {
      method: "POST",
      body: JSON.stringify({
        type: "transformation",
        name: "Fails on boom",
        code: CODE,
        enabled: true,
        filters: { events: [{ id: "order", type: "events" }] }
      })
    })
    expect(created.status, created.text).toBe(201)
    fn = created.json.id
    const batch = [
      ...Array.from({ length: failures }, (_, i) => ({
        event: "order",
        distinct_id: `f${i}`,
        properties: { boom: 1 }
      })),
      ...Array.from({ length: successes }, (_, i) => ({ event: "order", distinct_id: `s${i}`, properties: {} })),
      ...Array.from({ length: filteredOut }, (_, i) => ({ event: "visit", distinct_id: `v${i}`, properties: {} }))
    ].sort(() => Math.random() - 0.5)
    const res = await call(zed, "/batch/", {
      method: "POST",
      key: null,
      body: JSON.stringify({ api_key: PROJECT_KEY, batch })
    })
    expect(res.status, res.text).toBe(200)
  })
  afterAll(async () => {
    await zed.close()
    await cleanup()
  })

  it("counts invocations per interval, by kind and by name", async () => {
    const sum = (values: ReadonlyArray<number>) => values.reduce((a, b) => a + b, 0)
    /** Each series' total, and the labels holding any count (the last ones: it all ran just now). */
    const summary = (answer: { labels: Array<string>; series: Array<{ name: string; values: Array<number> }> }) => ({
      totals: answer.series.map((s) => [s.name, sum(s.values)]),
      counted: answer.labels.filter((_, i) => answer.series.some((s) => s.values[i]! > 0))
    })
    const now = new Date().toISOString()
    const byHour = await ok("/metrics/?after=-1d&interval=hour")
    // Labels: every hour from the start of the one a day ago to now.
    expect(byHour.labels).toHaveLength(25)
    expect(byHour.labels.at(-1)).toBe(`${now.slice(0, 13)}:00`)
    expect(byHour.series.every((s: { values: Array<number> }) => s.values.length === 25)).toBe(true)
    const hourly = summary(byHour)
    expect(hourly.totals).toEqual([
      ["failure", failures],
      ["success", successes]
    ])
    expect(hourly.counted).toHaveLength(1)
    const byDay = await ok("/metrics/?breakdown_by=name")
    expect(byDay.labels).toHaveLength(8)
    expect(byDay.labels.at(-1)).toBe(now.slice(0, 10))
    expect(summary(byDay).totals).toEqual([
      ["failed", failures],
      ["succeeded", successes]
    ])
    expect(summary(byDay).counted).toEqual([hourly.counted[0]!.slice(0, 10)])
    const onlyFailed = await ok("/metrics/?kind=failure&interval=week")
    expect(summary(onlyFailed).totals).toEqual([["failure", failures]])
  })

  it("totals them, over all time or a range", async () => {
    expect(await ok("/metrics/totals/")).toEqual({ totals: { success: successes, failure: failures } })
    expect(await ok("/metrics/totals/?breakdown_by=name&after=-1h")).toEqual({
      totals: { succeeded: successes, failed: failures }
    })
    expect(await ok("/metrics/totals/?before=-2d")).toEqual({ totals: {} })
  })

  it("refuses bad parameters and unknown functions", async () => {
    for (const [query, attr] of [
      ["?interval=minute", "interval"],
      ["?after=yesterday-ish", "after"],
      ["?before=99999-01-01", "before"],
      ["?after=-5y&interval=hour", "interval"]
    ] as const) {
      const res = await get(`/metrics/${query}`)
      expect(res.status, query).toBe(400)
      expect(res.json.attr, query).toBe(attr)
    }
    const unknown = await call(zed, `/api/environments/1/zed_functions/${crypto.randomUUID()}/metrics/`)
    expect(unknown.status).toBe(404)
  })
})
