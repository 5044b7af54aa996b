import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { csvRows } from "../src/api/csv.js"
import { withDashboardFilters } from "../src/insights/queryNode.js"
import { sharedInsightPage } from "../src/insights/sharedPage.js"
import type { Zed } from "../src/index.js"
import { call, issueKey, memoryZed, readCsv } from "./support.js"

// Insights, dashboards, sharing and activity through HTTP on memory storage.

let zed: Zed
beforeAll(async () => {
  zed = await memoryZed()
})
afterAll(() => zed.close())

const BASE = "/api/projects/1"
const send = (method: string, path: string, body?: unknown, key?: string) =>
  call(zed, BASE + path, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    ...(key === undefined ? {} : { key })
  })
const get = (path: string, key?: string) => send("GET", path, undefined, key)
const post = (path: string, body: unknown, key?: string) => send("POST", path, body, key)
const patch = (path: string, body: unknown, key?: string) => send("PATCH", path, body, key)

const trends = {
  kind: "InsightVizNode",
  source: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview", math: "dau" }] }
}
const sqlTable = { kind: "DataVisualizationNode", source: { kind: "ZedQLQuery", query: "SELECT count() FROM events" } }

const createInsight = async (body: Record<string, unknown>) => {
  const res = await post("/insights/", body)
  expect(res.status).toBe(201)
  return res.json
}

describe("insight lifecycle", () => {
  it("creates with the read-only fields filled, retrieves the same, and answers from the cache only by default", async () => {
    const created = await createInsight({ name: "Daily visitors", query: trends, tags: ["web"], description: "DAU" })
    expect(created.short_id).toMatch(/^[A-Za-z0-9]{8}$/)
    expect(created).toMatchObject({
      name: "Daily visitors",
      derived_name: null,
      query: trends,
      filters: {},
      deleted: false,
      saved: false,
      favorited: false,
      tags: ["web"],
      dashboards: [],
      dashboard_tiles: [],
      result: null,
      zedql: null,
      is_cached: false,
      last_refresh: null,
      query_status: null,
      is_sample: false,
      timezone: "UTC",
      created_by: { email: "admin@localhost" },
      last_modified_by: { email: "admin@localhost" }
    })
    expect(created.created_at).toBe(created.last_modified_at)
    const again = await get(`/insights/${created.id}/`)
    expect(again.json).toEqual(created)
    expect((await call(zed, `/api/environments/1/insights/${created.id}`)).json).toEqual(created)
    expect((await get(`/insights/${created.id}/?refresh=sometimes`)).json).toMatchObject({
      type: "validation_error",
      attr: "refresh"
    })
  })

  it("moves last_modified_at only for material changes, and saves on any update", async () => {
    const created = await createInsight({ name: "Material", query: sqlTable })
    await new Promise((r) => setTimeout(r, 5))
    const favorited = (await patch(`/insights/${created.id}/`, { favorited: true })).json
    expect(favorited).toMatchObject({ favorited: true, saved: true, last_modified_at: created.last_modified_at })
    expect(favorited.updated_at > created.updated_at).toBe(true)
    const renamed = (await patch(`/insights/${created.id}/`, { name: "Renamed" })).json
    expect(renamed.name).toBe("Renamed")
    expect(renamed.last_modified_at > created.last_modified_at).toBe(true)
  })

  it("refuses query nodes of unknown kinds, naming the field", async () => {
    const refusals = [
      { kind: "Nonsense" },
      { kind: "InsightVizNode", source: { kind: "ZedQLQuery", query: "SELECT 1" } },
      { kind: "DataTableNode", source: { kind: "TrendsQuery", series: [] } },
      { kind: "InsightVizNode", source: { kind: "FunnelsQuery" } },
      { kind: "DataVisualizationNode", source: { kind: "HogQLQuery" } },
      { kind: "DataVisualizationNode", source: { kind: "ZedQLQuery", query: "SELECT 1", unknown_field: true } },
      {
        kind: "DataTableNode",
        source: { kind: "ZedQLQuery", query: "SELECT 1", filters: { dateRange: { date_from: "last tuesday" } } }
      },
      // Shaped right, but not something the planner can compute: refused before it is stored.
      {
        kind: "InsightVizNode",
        source: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }], interval: "minute" }
      },
      {
        kind: "InsightVizNode",
        source: { kind: "FunnelsQuery", series: [{ kind: "EventsNode", event: "$pageview" }] }
      },
      "SELECT 1"
    ]
    for (const query of refusals) {
      const res = await post("/insights/", { name: "bad", query })
      expect(res.status).toBe(400)
      expect(res.json).toMatchObject({ type: "validation_error", code: "parse_error", attr: "query" })
    }
    expect((await post("/insights/", { query: refusals[0] })).json.detail).toMatch(/^Unknown query kind "Nonsense"/)
    expect((await post("/insights/", { query: refusals[5] })).json.detail).toMatch(
      /^Invalid ZedQLQuery at source__unknown_field/
    )
    expect((await post("/insights/", { query: refusals[7] })).json.detail).toMatch(/^Invalid TrendsQuery: interval/)
    const before = (await get("/insights/")).json.count
    expect((await post("/insights/", { name: "bad", query: refusals[8] })).status).toBe(400)
    expect((await get("/insights/")).json.count).toBe(before)
    const step = (event: string) => ({ kind: "EventsNode", event })
    for (const source of ["TrendsQuery", "StickinessQuery", "LifecycleQuery"]) {
      await createInsight({ query: { kind: "InsightVizNode", source: { kind: source, series: [step("$pageview")] } } })
    }
    await createInsight({
      query: {
        kind: "InsightVizNode",
        source: { kind: "FunnelsQuery", series: [step("$pageview"), step("signed_up")] }
      }
    })
    await createInsight({ query: { kind: "InsightVizNode", source: { kind: "RetentionQuery", retentionFilter: {} } } })
    await createInsight({ query: { kind: "DataTableNode", source: { kind: "HogQLQuery", query: "SELECT 1" } } })
  })

  it("answers DELETE with 405 and no body; deletes softly with PATCH and restores", async () => {
    const created = await createInsight({ name: "Doomed", query: trends })
    const deleting = await send("DELETE", `/insights/${created.id}/`)
    expect(deleting.status).toBe(405)
    expect(deleting.text).toBe("")
    expect((await get(`/insights/${created.id}/`)).status).toBe(200)

    expect((await patch(`/insights/${created.id}/`, { deleted: true })).json.deleted).toBe(true)
    expect((await get(`/insights/${created.id}/`)).status).toBe(404)
    expect((await get(`/insights/?short_id=${created.short_id}`)).json.count).toBe(0)
    expect((await patch(`/insights/${created.id}/`, { name: "Still doomed" })).status).toBe(404)

    const restored = await patch(`/insights/${created.id}/`, { deleted: false })
    expect(restored.json).toMatchObject({ deleted: false, name: "Doomed" })
    expect(
      (await get(`/insights/?short_id=${created.short_id}`)).json.results.map((i: { id: number }) => i.id)
    ).toEqual([created.id])
  })

  it("needs insight:read to read and insight:write to change", async () => {
    const reader = await issueKey(zed, ["insight:read"])
    expect((await get("/insights/", reader)).status).toBe(200)
    const denied = await post("/insights/", { name: "x" }, reader)
    expect(denied.status).toBe(403)
    expect(denied.json.detail).toBe("API key missing required scope 'insight:write'")
    expect((await send("DELETE", "/insights/1/", undefined, reader)).status).toBe(403)
  })
})

describe("insight lists", () => {
  // A project of its own, so the fixture is the whole list.
  let project: number
  interface Fixture {
    readonly name: string
    readonly description: string
    readonly tags: Array<string>
    readonly saved: boolean
    readonly favorited: boolean
  }
  const fixtures: Array<Fixture> = [
    { name: "Signups per week", description: "growth", tags: ["Marketing"], saved: true, favorited: false },
    { name: "Checkout funnel", description: "conversion of carts", tags: [], saved: false, favorited: true },
    { name: "Retention", description: "", tags: ["growth", "core"], saved: true, favorited: true },
    { name: "Browsers", description: "Which browsers", tags: ["web"], saved: false, favorited: false },
    { name: "Pageviews", description: "traffic", tags: ["web", "GROWTH"], saved: false, favorited: false }
  ]
  const created: Array<{ id: number; short_id: string } & Fixture> = []
  let dashboard: number

  beforeAll(async () => {
    const p = await call(zed, "/api/projects/", { method: "POST", body: JSON.stringify({ name: "Lists" }) })
    project = p.json.id
    // A new project starts with the template dashboard's insights: out of the way of these lists.
    for (const { id } of (await call(zed, `/api/projects/${project}/insights/`)).json.results)
      await call(zed, `/api/projects/${project}/insights/${id}/`, {
        method: "PATCH",
        body: JSON.stringify({ deleted: true })
      })
    dashboard = (
      await call(zed, `/api/projects/${project}/dashboards/`, {
        method: "POST",
        body: JSON.stringify({ name: "Board" })
      })
    ).json.id
    for (const [i, f] of fixtures.entries()) {
      const res = await call(zed, `/api/projects/${project}/insights/`, {
        method: "POST",
        // The fourth is only on a dashboard: saved=true takes it too.
        body: JSON.stringify({ ...f, query: trends, ...(i === 3 ? { dashboards: [dashboard] } : {}) })
      })
      created.push({ ...f, id: res.json.id, short_id: res.json.short_id })
    }
  })

  const ids = async (query: string) =>
    (await call(zed, `/api/projects/${project}/insights/?${query}`)).json.results.map((i: { id: number }) => i.id)
  const newestFirst = (xs: typeof created) => xs.map((x) => x.id).sort((a, b) => b - a)

  it("filter by saved (or on a dashboard), favorited (by presence), short_id and created_by", async () => {
    expect(await ids("saved=true")).toEqual(newestFirst(created.filter((c, i) => c.saved || i === 3)))
    expect(await ids("saved=false")).toEqual(newestFirst(created.filter((c) => !c.saved)))
    const favorites = newestFirst(created.filter((c) => c.favorited))
    expect(await ids("favorited=true")).toEqual(favorites)
    expect(await ids("favorited=false")).toEqual(favorites)
    expect(await ids(`short_id=${created[2]!.short_id}`)).toEqual([created[2]!.id])
    const admin = (await call(zed, `/api/projects/${project}/insights/${created[0]!.id}`)).json.created_by.id
    expect(await ids(`created_by=${admin}`)).toEqual(newestFirst(created))
    expect(await ids(`created_by=${admin + 1000}`)).toEqual([])
  })

  it("search name, description and tags without regard to case", async () => {
    const words = ["growth", "WEB", "brow", "cart", "nothing-like-it", "s"]
    for (const word of words) {
      const w = word.toLowerCase()
      const expected = created.filter((c) =>
        [c.name, c.description, ...c.tags].some((t) => t.toLowerCase().includes(w))
      )
      expect(await ids(`search=${encodeURIComponent(word)}`)).toEqual(newestFirst(expected))
    }
  })

  it("page with limit and offset", async () => {
    const all = newestFirst(created)
    const first = (await call(zed, `/api/projects/${project}/insights/?limit=2`)).json
    expect(first.count).toBe(all.length)
    expect(first.results.map((i: { id: number }) => i.id)).toEqual(all.slice(0, 2))
    expect(first.previous).toBeNull()
    const next = new URL(first.next)
    expect(next.searchParams.get("offset")).toBe("2")
    expect(await ids("limit=2&offset=4")).toEqual(all.slice(4))
  })

  it("render as CSV, one row per insight with nested fields flattened", async () => {
    const res = await call(zed, `/api/projects/${project}/insights/?format=csv&search=growth`)
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/)
    const [header, ...rows] = res.text.trimEnd().split("\r\n")
    const columns = header!.split(",")
    expect(columns).toContain("created_by.email")
    expect(columns).toContain("query.source.kind")
    const expected = created.filter((c) =>
      [c.name, c.description, ...c.tags].some((t) => t.toLowerCase().includes("growth"))
    )
    expect(rows).toHaveLength(expected.length)
    const at = columns.indexOf("short_id")
    expect(rows.map((r) => r.split(",")[at])).toEqual(
      newestFirst(expected).map((id) => created.find((c) => c.id === id)!.short_id)
    )
    const one = await call(zed, `/api/projects/${project}/insights/${created[0]!.id}/?format=csv`)
    expect(one.text.trimEnd().split("\r\n")).toHaveLength(2)
  })
})

describe("CSV rendering", () => {
  it("round-trips every cell through quoting", () => {
    const text = fc.string({ unit: fc.constantFrom("a", ",", '"', "\n", "\r", "x", " ") })
    fc.assert(
      fc.property(
        fc.array(fc.record({ a: text, nested: fc.record({ b: text }) }), { minLength: 1, maxLength: 4 }),
        (rows) => {
          const records = readCsv(csvRows(rows))
          expect(records[0]).toEqual(["a", "nested.b"])
          expect(records.slice(1)).toEqual(rows.map((r) => [r.a, r.nested.b]))
        }
      )
    )
  })
})

describe("dashboards", () => {
  it("place insights through `dashboards`, show tiles, and apply their filters with from_dashboard", async () => {
    const filters = {
      date_from: "-14d",
      date_to: null,
      properties: [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }]
    }
    const board = await post("/dashboards/", { name: "Growth", filters })
    expect(board.status).toBe(201)
    expect(board.json).toMatchObject({ name: "Growth", filters, date_from: "-14d", date_to: null, tiles: [] })
    const other = (await post("/dashboards/", { name: "Other" })).json

    const insight = await createInsight({ name: "On a board", query: trends, dashboards: [board.json.id] })
    expect(insight.dashboards).toEqual([board.json.id])
    expect(insight.dashboard_tiles).toEqual([{ id: expect.any(Number), dashboard_id: board.json.id, deleted: false }])

    const viewed = (await get(`/insights/${insight.id}/?from_dashboard=${board.json.id}`)).json
    expect(viewed.query.source).toEqual({
      ...trends.source,
      dateRange: { date_from: "-14d" },
      properties: filters.properties
    })
    expect((await get(`/insights/${insight.id}/`)).json.query).toEqual(trends)
    expect((await get(`/insights/${insight.id}/?from_dashboard=999999`)).json).toMatchObject({ attr: "from_dashboard" })

    const shown = (await get(`/dashboards/${board.json.id}/`)).json
    expect(shown.tiles.map((t: { insight: { id: number } }) => t.insight.id)).toEqual([insight.id])
    expect(shown.tiles[0].insight.query).toEqual(viewed.query)

    const moved = (await patch(`/insights/${insight.id}/`, { dashboards: [other.id] })).json
    expect(moved.dashboards).toEqual([other.id])
    expect(
      moved.dashboard_tiles.map((t: { dashboard_id: number; deleted: boolean }) => [t.dashboard_id, t.deleted])
    ).toEqual([
      [board.json.id, true],
      [other.id, false]
    ])
    expect((await get(`/dashboards/${board.json.id}/`)).json.tiles).toEqual([])

    expect((await post("/insights/", { name: "x", dashboards: [424242] })).json).toMatchObject({
      attr: "dashboards",
      detail: "Dashboard 424242 does not exist."
    })
    const listed = (await get("/dashboards/")).json
    expect(listed.results.map((d: { id: number }) => d.id)).toEqual(expect.arrayContaining([board.json.id, other.id]))
  })

  it("filters: a dashboard's bounds replace the query's, its properties join the query's", () => {
    const bound = fc.option(fc.constantFrom("-7d", "-30d", "2025-01-01", "mStart"), { nil: null })
    const property = fc.record({ key: fc.string(), value: fc.string() })
    const range = fc.record({ date_from: bound, date_to: bound }, { requiredKeys: [] })
    const arbitrary = fc.record({
      sql: fc.boolean(),
      own: fc.record({ dateRange: range, properties: fc.array(property, { maxLength: 3 }) }, { requiredKeys: [] }),
      board: fc.record(
        { date_from: bound, date_to: bound, properties: fc.array(property, { maxLength: 3 }) },
        { requiredKeys: [] }
      )
    })
    fc.assert(
      fc.property(arbitrary, ({ sql, own, board }) => {
        const node = sql
          ? { kind: "DataTableNode", source: { kind: "ZedQLQuery", query: "SELECT 1", filters: own } }
          : { kind: "InsightVizNode", source: { kind: "TrendsQuery", series: [], ...own } }
        const copy = structuredClone(node)
        const out = withDashboardFilters(node, board) as typeof node
        expect(node).toEqual(copy)
        const target = (sql ? (out.source as { filters: typeof own }).filters : out.source) as typeof own
        for (const bound of ["date_from", "date_to"] as const) {
          expect(target.dateRange?.[bound]).toEqual(board[bound] ?? own.dateRange?.[bound])
        }
        expect(target.properties ?? []).toEqual([...(own.properties ?? []), ...(board.properties ?? [])])
        expect((out.source as { kind: string }).kind).toBe(node.source.kind)
      })
    )
  })

  it("need dashboard scopes", async () => {
    const reader = await issueKey(zed, ["dashboard:read"])
    expect((await get("/dashboards/", reader)).status).toBe(200)
    expect((await post("/dashboards/", { name: "no" }, reader)).json.detail).toBe(
      "API key missing required scope 'dashboard:write'"
    )
  })
})

describe("sharing", () => {
  const shared = (token: string, accept?: string) =>
    call(zed, `/shared/${token}`, { key: null, ...(accept === undefined ? {} : { headers: { accept } }) })

  it("is off until enabled, answers publicly only while enabled, and rotates the token", async () => {
    const insight = await createInsight({ name: "Public <chart>", query: trends })
    const first = (await get(`/insights/${insight.id}/sharing/`)).json
    expect(first).toMatchObject({
      enabled: false,
      created_at: null,
      settings: null,
      password_required: false,
      share_passwords: []
    })
    expect(first.access_token).toMatch(/^[A-Za-z0-9_-]{30}$/)
    expect((await get(`/insights/${insight.id}/sharing/`)).json.access_token).not.toBe(first.access_token)
    expect((await shared(first.access_token)).status).toBe(404)

    const enabled = (await patch(`/insights/${insight.id}/sharing/`, { enabled: true })).json
    expect(enabled.enabled).toBe(true)
    expect(enabled.created_at).not.toBeNull()
    expect((await get(`/insights/${insight.id}/sharing/`)).json).toEqual(enabled)

    const json = await shared(enabled.access_token)
    expect(json.status).toBe(200)
    expect(json.json).toMatchObject({
      id: insight.id,
      name: "Public <chart>",
      query: trends,
      created_by: null,
      effective_privilege_level: 21
    })
    const html = await shared(enabled.access_token, "text/html,application/xhtml+xml")
    expect(html.headers.get("content-type")).toMatch(/^text\/html/)
    expect(html.text).toContain("<h1>Public &lt;chart&gt;</h1>")

    const rotated = (await post(`/insights/${insight.id}/sharing/refresh/`, {})).json
    expect(rotated).toMatchObject({ enabled: true, created_at: enabled.created_at })
    expect(rotated.access_token).not.toBe(enabled.access_token)
    expect((await shared(enabled.access_token)).status).toBe(404)
    expect((await shared(rotated.access_token)).status).toBe(200)

    expect((await patch(`/insights/${insight.id}/sharing/`, { enabled: false })).json).toMatchObject({
      enabled: false,
      access_token: rotated.access_token
    })
    expect((await shared(rotated.access_token)).json).toMatchObject({ code: "not_found" })
    const page = await shared(rotated.access_token, "text/html")
    expect(page.status).toBe(404)
    expect(page.headers.get("content-type")).toMatch(/^text\/html/)

    // A deleted insight is not shared, even with sharing enabled.
    await patch(`/insights/${insight.id}/sharing/`, { enabled: true })
    await patch(`/insights/${insight.id}/`, { deleted: true })
    expect((await shared(rotated.access_token)).status).toBe(404)
    expect((await get(`/insights/${insight.id}/sharing/`)).json).toMatchObject({ detail: "Insight not found." })
  })

  it("needs sharing_configuration scopes", async () => {
    const insight = await createInsight({ name: "Scoped", query: trends })
    const reader = await issueKey(zed, ["sharing_configuration:read"])
    expect((await get(`/insights/${insight.id}/sharing/`, reader)).status).toBe(200)
    expect((await patch(`/insights/${insight.id}/sharing/`, { enabled: true }, reader)).json.detail).toBe(
      "API key missing required scope 'sharing_configuration:write'"
    )
    expect((await get(`/insights/${insight.id}/sharing/`, await issueKey(zed, ["insight:write"]))).status).toBe(403)
  })

  it("draws series results as one line each, and rows as a table, on the public page", () => {
    const shown = (result: unknown, columns: Array<string> | null = null) =>
      sharedInsightPage({ name: "Chart", derived_name: null, description: "", result, columns })
    const series = fc.array(
      fc.record({
        label: fc.string(),
        data: fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 30 })
      }),
      { minLength: 1, maxLength: 5 }
    )
    fc.assert(
      fc.property(series, (result) => {
        const page = shown(result)
        expect(page.match(/<polyline /g)).toHaveLength(result.length)
        // Every point lies inside the drawing.
        const points = [...page.matchAll(/points="([^"]*)"/g)].flatMap(([, list]) =>
          list!.split(" ").map((p) => p.split(","))
        )
        expect(points).toHaveLength(result.reduce((n, s) => n + s.data.length, 0))
        for (const [x, y] of points) {
          expect(Number(x)).toBeGreaterThanOrEqual(0)
          expect(Number(x)).toBeLessThanOrEqual(640)
          expect(Number(y)).toBeGreaterThanOrEqual(0)
          expect(Number(y)).toBeLessThanOrEqual(240)
        }
      })
    )
    const table = shown(
      [
        ["<b>", 1],
        ["x", 2]
      ],
      ["event", "count()"]
    )
    expect(table.match(/<tr>/g)).toHaveLength(3)
    expect(table).toContain("<td>&lt;b&gt;</td>")
    expect(shown(null)).toContain("No result")
  })

  it("draws a funnel's conversion over time as rates named by breakdown value, not as series totals", () => {
    const page = sharedInsightPage({
      name: "Conversion",
      derived_name: null,
      description: "",
      columns: null,
      result: [
        { count: 3, data: [10, 25.5, 40], days: ["2026-01-01", "2026-01-02", "2026-01-03"], breakdown_value: "Chrome" },
        { count: 3, data: [0, 50, 12.5], days: ["2026-01-01", "2026-01-02", "2026-01-03"], breakdown_value: "Safari" }
      ]
    })
    expect(page.match(/<polyline /g)).toHaveLength(2)
    expect(page).toContain("Chrome: <b>40% in the last interval</b>")
    expect(page).toContain("Safari: <b>12.5% in the last interval</b>")
    const single = sharedInsightPage({
      name: "Conversion",
      derived_name: null,
      description: "",
      columns: null,
      result: [{ count: 2, data: [30, 60], days: ["2026-01-01", "2026-01-02"] }]
    })
    expect(single).toContain("Conversion rate: <b>60% in the last interval</b>")
  })
})

describe("activity", () => {
  it("records create, the changed fields of updates, delete, restore and sharing, newest first, with the user", async () => {
    const board = (await post("/dashboards/", { name: "Activity board" })).json
    const insight = await createInsight({ name: "Tracked", description: "before", query: trends })
    await patch(`/insights/${insight.id}/`, { name: "Tracked", favorited: false }) // nothing changes
    await patch(`/insights/${insight.id}/`, { name: "Tracked 2", description: "after", tags: ["x"] })
    await patch(`/insights/${insight.id}/`, { dashboards: [board.id] })
    await patch(`/insights/${insight.id}/`, { deleted: true })
    await patch(`/insights/${insight.id}/`, { deleted: false })
    await patch(`/insights/${insight.id}/sharing/`, { enabled: true })
    await post(`/insights/${insight.id}/sharing/refresh/`, {})

    const log = (await get(`/insights/${insight.id}/activity/?limit=50`)).json
    expect(log.total_count).toBe(7)
    expect(log.results.map((e: { activity: string }) => e.activity)).toEqual([
      "access token refreshed",
      "sharing enabled",
      "restored",
      "deleted",
      "updated",
      "updated",
      "created"
    ])
    for (const entry of log.results) {
      expect(entry).toMatchObject({
        scope: "Insight",
        item_id: String(insight.id),
        user: { email: "admin@localhost" },
        detail: { short_id: insight.short_id }
      })
    }
    const [, sharing, restored, deleted, placed, updated, created] = log.results
    expect(created.detail.changes).toBeNull()
    expect(updated.detail.changes).toEqual([
      { type: "Insight", action: "changed", field: "name", before: "Tracked", after: "Tracked 2" },
      { type: "Insight", action: "changed", field: "description", before: "before", after: "after" },
      { type: "Insight", action: "changed", field: "tags", before: [], after: ["x"] }
    ])
    expect(placed.detail.changes).toEqual([
      {
        type: "Insight",
        action: "changed",
        field: "dashboards",
        before: [],
        after: [{ id: board.id, name: "Activity board" }]
      }
    ])
    expect(deleted.detail.changes).toEqual([
      { type: "Insight", action: "changed", field: "deleted", before: false, after: true }
    ])
    expect(restored.detail.changes).toEqual([
      { type: "Insight", action: "changed", field: "deleted", before: true, after: false }
    ])
    expect(sharing.detail.changes).toEqual([
      { type: "Insight", action: "changed", field: "sharing", before: false, after: true }
    ])

    const second = (await get(`/insights/${insight.id}/activity/?limit=3&page=2`)).json
    expect(second.results.map((e: { id: string }) => e.id)).toEqual(
      log.results.slice(3, 6).map((e: { id: string }) => e.id)
    )
    expect(new URL(second.next).searchParams.get("page")).toBe("3")
    expect(new URL(second.previous).searchParams.get("page")).toBe("1")
  })

  it("is not kept for insights without a name, and needs activity_log:read", async () => {
    const unnamed = await createInsight({ query: trends })
    await patch(`/insights/${unnamed.id}/`, { description: "changed" })
    expect((await get(`/insights/${unnamed.id}/activity/`)).json).toMatchObject({ total_count: 0, results: [] })
    expect((await get(`/insights/${unnamed.id}/activity/`, await issueKey(zed, ["insight:read"]))).status).toBe(403)
    expect((await get(`/insights/${unnamed.id}/activity/`, await issueKey(zed, ["activity_log:read"]))).status).toBe(
      200
    )
    expect((await get("/insights/999999/activity/")).status).toBe(404)
  })

  it("of every insight, newest first, at …/insights/activity/", async () => {
    const project = (await call(zed, "/api/projects/", { method: "POST", body: JSON.stringify({ name: "Activity" }) }))
      .json.id
    const at = (path: string, method = "GET", body?: unknown) =>
      call(zed, `/api/projects/${project}${path}`, {
        method,
        body: body === undefined ? undefined : JSON.stringify(body)
      })
    const a = (await at("/insights/", "POST", { name: "A" })).json
    const b = (await at("/insights/", "POST", { name: "B" })).json
    await at(`/insights/${a.id}/`, "PATCH", { name: "A2" })
    const all = (await at("/insights/activity/")).json
    expect(all.total_count).toBe(3)
    expect(all.results.map((e: { item_id: string; activity: string }) => [e.item_id, e.activity])).toEqual([
      [String(a.id), "updated"],
      [String(b.id), "created"],
      [String(a.id), "created"]
    ])
  })
})
