import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { ADMIN_KEY, call, importEvents, PROJECT_KEY, readCsv } from "../../core/test/support.js"
import { backends } from "./backends.js"

// Insights holding ZedQL (DataVisualizationNode / DataTableNode) computed through the query API's
// runner on real stores: nothing without asking (force_cache), the result once computed, then
// from the cache; a dashboard's date range and properties applied with from_dashboard.

const HOUR = 3_600_000
const EVENTS = Array.from({ length: 30 }, (_, i) => ({
  event: ["$pageview", "signed_up", "$pageview", "purchase", "$pageview"][i % 5]!,
  distinct_id: `u${i % 4}`,
  timestamp: new Date(Date.UTC(2025, 4, 1) + i * 5 * HOUR).toISOString(),
  properties: { $browser: i % 3 === 0 ? "Firefox" : "Chrome" }
}))
type Event = (typeof EVENTS)[number]

/** `[event, count]` rows ordered by event, as the insight's query asks, over the events kept. */
const countsByEvent = (keep: (e: Event) => boolean = () => true) => {
  const counts = new Map<string, number>()
  for (const e of EVENTS.filter(keep)) counts.set(e.event, (counts.get(e.event) ?? 0) + 1)
  return [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([event, n]) => [event, n])
}

const TEXT = "SELECT event, count() FROM events WHERE {filters} GROUP BY event ORDER BY event"

describe.each(["pglite", "postgres", "chdb"])("%s ZedQL insights", (name) => {
  let zed: Zed
  let cleanup: () => Promise<void>
  beforeAll(async () => {
    const backend = await backends("insights-api")[name]!()
    cleanup = backend.cleanup
    zed = await createZed({
      storage: backend.storage,
      bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY }
    })
    await importEvents(zed, PROJECT_KEY, EVENTS)
  })
  afterAll(async () => {
    await zed.close()
    await cleanup()
  })

  const send = (method: string, path: string, body?: unknown) =>
    call(zed, `/api/projects/1${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) })

  it("answers CSV wherever the contract takes format=csv: create, retrieve, update, list and activity", async () => {
    const csv = async (method: string, path: string, body?: unknown) => {
      const res = await send(method, path, body)
      expect(res.headers.get("content-type"), `${method} ${path}`).toMatch(/^text\/csv/)
      const [columns, ...records] = readCsv(res.text)
      const rows = records.map((record) => Object.fromEntries(columns!.map((column, i) => [column, record[i]])))
      return { status: res.status, rows }
    }
    const created = await csv("POST", "/insights/?format=csv", {
      name: "As CSV",
      query: { kind: "DataVisualizationNode", source: { kind: "ZedQLQuery", query: TEXT } }
    })
    expect(created.status).toBe(201)
    expect(created.rows).toHaveLength(1)
    const id = Number(created.rows[0]!.id)
    expect(created.rows[0]!.name).toBe("As CSV")
    const updated = await csv("PATCH", `/insights/${id}/?format=csv`, { name: "As CSV, renamed" })
    expect(updated.status).toBe(200)
    expect(updated.rows[0]!.name).toBe("As CSV, renamed")
    expect((await csv("GET", `/insights/${id}/?format=csv`)).rows).toHaveLength(1)
    expect((await csv("GET", "/insights/?format=csv")).rows.length).toBeGreaterThanOrEqual(1)
    const activity = await csv("GET", `/insights/${id}/activity/?format=csv`)
    expect(activity.status).toBe(200)
    expect(activity.rows.map((row) => row.activity)).toEqual(["updated", "created"])
    expect((await send("GET", `/insights/${id}/activity/`)).json.results).toHaveLength(2)
  })

  it("computes only when asked, then answers from the cache, also on a dashboard and a shared link", async () => {
    const insight = (
      await send("POST", "/insights/", {
        name: "Events",
        query: { kind: "DataVisualizationNode", source: { kind: "ZedQLQuery", query: TEXT } }
      })
    ).json
    expect(insight).toMatchObject({ result: null, zedql: null, is_cached: false, last_refresh: null })
    expect((await send("GET", `/insights/${insight.id}/`)).json).toMatchObject({ result: null, is_cached: false })

    const computed = (await send("GET", `/insights/${insight.id}/?refresh=blocking`)).json
    expect(computed.result).toEqual(countsByEvent())
    expect(computed).toMatchObject({ columns: ["event", "count()"], is_cached: false, query_status: null })
    expect(computed.zedql).toContain("SELECT event, count()")
    expect(computed.last_refresh).not.toBeNull()

    const cached = (await send("GET", `/insights/${insight.id}/`)).json
    expect(cached).toMatchObject({ result: computed.result, is_cached: true, last_refresh: computed.last_refresh })
    const listed = (await send("GET", "/insights/")).json.results.find((i: { id: number }) => i.id === insight.id)
    expect(listed).toMatchObject({ result: computed.result, is_cached: true })
    // `true` is the old spelling of force_blocking: computed again.
    const forced = (await send("GET", `/insights/${insight.id}/?refresh=true`)).json
    expect(forced).toMatchObject({ result: computed.result, is_cached: false })
    expect(forced.last_refresh > computed.last_refresh).toBe(true)

    const [from, to] = ["2025-05-02T00:00:00Z", "2025-05-05T00:00:00Z"]
    const chrome = [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }]
    const board = (
      await send("POST", "/dashboards/", { name: "May", filters: { date_from: from, date_to: to, properties: chrome } })
    ).json
    await send("PATCH", `/insights/${insight.id}/`, { dashboards: [board.id] })
    const viewed = (await send("GET", `/insights/${insight.id}/?from_dashboard=${board.id}&refresh=blocking`)).json
    const iso = (text: string) => new Date(text).toISOString()
    expect(viewed.result).toEqual(
      countsByEvent((e) => e.properties.$browser === "Chrome" && e.timestamp >= iso(from) && e.timestamp < iso(to))
    )
    expect(viewed.result).not.toEqual(computed.result)
    const tile = (await send("GET", `/dashboards/${board.id}/`)).json.tiles[0].insight
    expect(tile).toMatchObject({ result: viewed.result, is_cached: true })

    const { access_token } = (await send("PATCH", `/insights/${insight.id}/sharing/`, { enabled: true })).json
    const shared = await call(zed, `/shared/${access_token}`, { key: null })
    expect(shared.json).toMatchObject({ id: insight.id, result: computed.result, is_cached: true })
    const page = (await call(zed, `/shared/${access_token}`, { key: null, headers: { accept: "text/html" } })).text
    expect(page.match(/<tr>/g)).toHaveLength(countsByEvent().length + 1)
    for (const [event, n] of countsByEvent()) expect(page).toContain(`<tr><td>${event}</td><td>${n}</td></tr>`)
  })

  it("computes in the background with refresh=async, reporting through query_status", async () => {
    const text = "SELECT distinct_id, count() FROM events WHERE {filters} GROUP BY distinct_id ORDER BY distinct_id"
    const insight = (
      await send("POST", "/insights/", {
        name: "Per user",
        query: { kind: "DataTableNode", source: { kind: "ZedQLQuery", query: text } }
      })
    ).json
    const started = (await send("GET", `/insights/${insight.id}/?refresh=async`)).json
    expect(started.query_status).toMatchObject({ query_async: true, team_id: 1 })
    expect(started.result).toBeNull()
    const perUser = new Map<string, number>()
    for (const e of EVENTS) perUser.set(e.distinct_id, (perUser.get(e.distinct_id) ?? 0) + 1)
    const expected = [...perUser.entries()].sort(([a], [b]) => (a < b ? -1 : 1))
    const deadline = Date.now() + 15_000
    let read = (await send("GET", `/insights/${insight.id}/`)).json
    while (!read.is_cached && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50))
      read = (await send("GET", `/insights/${insight.id}/`)).json
    }
    expect(read).toMatchObject({ is_cached: true, result: expected })
  })

  it("answers a query that fails to compute with a 400 naming the problem", async () => {
    const insight = (
      await send("POST", "/insights/", {
        name: "Broken",
        query: { kind: "DataTableNode", source: { kind: "ZedQLQuery", query: "SELECT nope FROM events" } }
      })
    ).json
    expect((await send("GET", `/insights/${insight.id}/`)).status).toBe(200)
    const failed = await send("GET", `/insights/${insight.id}/?refresh=force_blocking`)
    expect(failed.status).toBe(400)
    expect(failed.json).toMatchObject({ type: "validation_error", code: "zedql_query_error" })
  })

  it("computes the insight kinds through their plans: a daily trend and an ordered funnel", async () => {
    const days = ["2025-05-01", "2025-05-02", "2025-05-03", "2025-05-04", "2025-05-05", "2025-05-06", "2025-05-07"]
    const trend = (
      await send("POST", "/insights/", {
        name: "Pageviews",
        query: {
          kind: "InsightVizNode",
          source: {
            kind: "TrendsQuery",
            series: [{ kind: "EventsNode", event: "$pageview", math: "total" }],
            interval: "day",
            dateRange: { date_from: days[0], date_to: days.at(-1) }
          }
        }
      })
    ).json
    expect((await send("GET", `/insights/${trend.id}/`)).json).toMatchObject({ result: null, is_cached: false })
    const computed = (await send("GET", `/insights/${trend.id}/?refresh=blocking`)).json
    const perDay = days.map(
      (day) => EVENTS.filter((e) => e.event === "$pageview" && e.timestamp.startsWith(day)).length
    )
    expect(computed.result).toHaveLength(1)
    expect(computed.result[0]).toMatchObject({
      days,
      data: perDay,
      count: perDay.reduce((a, b) => a + b, 0),
      label: "$pageview"
    })
    expect(computed.zedql).toContain("FROM events")
    expect((await send("GET", `/insights/${trend.id}/`)).json).toMatchObject({
      result: computed.result,
      is_cached: true
    })

    // Each user's furthest step: from any pageview, signed_up then purchase, each after the last, within 14 days.
    const steps = ["$pageview", "signed_up", "purchase"]
    const furthest = (id: string, window: number) => {
      const own = EVENTS.filter((e) => e.distinct_id === id).map((e) => ({
        event: e.event,
        at: Date.parse(e.timestamp)
      }))
      let best = 0
      for (const start of own.filter((e) => e.event === steps[0])) {
        let reached = 1
        let at = start.at
        for (const step of steps.slice(1)) {
          const next = own.find((e) => e.event === step && e.at > at && e.at - start.at <= window)
          if (next === undefined) break
          reached++
          at = next.at
        }
        best = Math.max(best, reached)
      }
      return best
    }
    const users = [...new Set(EVENTS.map((e) => e.distinct_id))]
    for (const days of [14, 2]) {
      const funnel = (
        await send("POST", "/insights/", {
          name: `Sign-up funnel, ${days} days`,
          query: {
            kind: "InsightVizNode",
            source: {
              kind: "FunnelsQuery",
              series: steps.map((event) => ({ kind: "EventsNode", event })),
              dateRange: { date_from: "2025-04-30", date_to: "2025-05-10" },
              funnelsFilter: { funnelWindowInterval: days, funnelWindowIntervalUnit: "day" }
            }
          }
        })
      ).json
      const result = (await send("GET", `/insights/${funnel.id}/?refresh=blocking`)).json.result
      expect(result.map((s: { name: string; count: number }) => [s.name, s.count])).toEqual(
        steps.map((step, i) => [step, users.filter((id) => furthest(id, days * 24 * HOUR) > i).length])
      )
    }
  })
})
