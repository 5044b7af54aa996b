import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import fc from "fast-check"
import { ADMIN_KEY, call, importEvents, PROJECT_KEY } from "../../core/test/support.js"
import { backends } from "./backends.js"

// Dashboards through HTTP: create, list, PATCH, soft delete and restore; tiles arranged, coloured,
// removed and text cards written through PATCH `tiles`; duplicates (`use_dashboard`); the
// dashboard's date range and properties applied to every tile's result, compared with what the
// test counts itself; public links; and the template a new project gets, on posthog-js data.

const DAY = 86_400_000
const BROWSERS = ["Chrome", "Firefox", "Safari"]
/** Pageviews on 1–20 May 2025 by four persons, and sign-ups (`$identify`) by two of them. */
const EVENTS = Array.from({ length: 40 }, (_, i) => ({
  event: i % 10 === 9 ? "signed_up" : "$pageview",
  distinct_id: `u${i % 4}`,
  timestamp: new Date(Date.UTC(2025, 4, 1) + (i % 20) * DAY + i * 60_000).toISOString(),
  properties: { $browser: BROWSERS[i % 3]!, $pathname: ["/", "/pricing", "/docs"][i % 3]! }
}))
type Event = (typeof EVENTS)[number]

const pageviewTrend = {
  kind: "InsightVizNode",
  source: {
    kind: "TrendsQuery",
    series: [{ kind: "EventsNode", event: "$pageview", math: "total" }],
    interval: "day",
    dateRange: { date_from: "2025-05-01", date_to: "2025-05-20" }
  }
}

const count = (keep: (e: Event) => boolean) => EVENTS.filter((e) => e.event === "$pageview" && keep(e)).length

describe.each(["memory", "pglite", "postgres"])("%s dashboards", (name) => {
  let zed: Zed
  let cleanup: () => Promise<void>
  beforeAll(async () => {
    const backend = await backends("dashboards-api")[name]!()
    cleanup = backend.cleanup
    zed = await createZed({
      storage: backend.storage,
      bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY, adminPassword: null }
    })
    await importEvents(zed, PROJECT_KEY, EVENTS)
  })
  afterAll(async () => {
    await zed?.close()
    await cleanup?.()
  })

  const send = async (method: string, path: string, body?: unknown, project = 1) => {
    const res = await call(zed, `/api/projects/${project}${path}`, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    return res
  }
  const ok = async (method: string, path: string, body?: unknown, status = 200) => {
    const res = await send(method, path, body)
    expect(res.status, res.text).toBe(status)
    return res.json
  }
  // Results need a SQL store: the memory store cannot compute them.
  const computes = name !== "memory"
  const listed = async () => (await ok("GET", "/dashboards/?limit=100")).results.map((d: { name: string }) => d.name)

  it("creates, lists pinned first, updates, soft-deletes and restores", async () => {
    const made = await ok("POST", "/dashboards/", { name: "Growth", tags: ["kpi"] }, 201)
    expect(made).toMatchObject({
      name: "Growth",
      description: "",
      pinned: false,
      tags: ["kpi"],
      deleted: false,
      is_shared: false,
      filters: {},
      date_from: null,
      tiles: [],
      created_by: { email: "admin@localhost" }
    })
    const pinned = await ok("POST", "/dashboards/", { name: "Pinned", pinned: true }, 201)
    await ok("POST", "/dashboards/", { name: "Newest" }, 201)
    expect((await listed()).slice(0, 3)).toEqual(["Pinned", "Newest", "Growth"])

    const changed = await ok("PATCH", `/dashboards/${made.id}/`, {
      name: "Growth 2",
      description: "Weekly",
      filters: { date_from: "-7d" },
      tags: ["kpi", "weekly"]
    })
    expect(changed).toMatchObject({
      name: "Growth 2",
      description: "Weekly",
      date_from: "-7d",
      tags: ["kpi", "weekly"]
    })
    expect(await ok("GET", `/dashboards/${made.id}/`)).toMatchObject({ name: "Growth 2", description: "Weekly" })

    expect((await send("DELETE", `/dashboards/${pinned.id}/`)).status).toBe(405)
    expect((await ok("PATCH", `/dashboards/${pinned.id}/`, { deleted: true })).deleted).toBe(true)
    expect(await listed()).not.toContain("Pinned")
    // A deleted dashboard takes no insights and is no dashboard to view insights from …
    expect((await send("POST", "/insights/", { name: "x", dashboards: [pinned.id] })).json).toMatchObject({
      attr: "dashboards"
    })
    const insight = await ok("POST", "/insights/", { name: "Seen from", query: pageviewTrend }, 201)
    expect((await send("GET", `/insights/${insight.id}/?from_dashboard=${pinned.id}`)).json).toMatchObject({
      attr: "from_dashboard"
    })
    // … until it is restored.
    await ok("PATCH", `/dashboards/${pinned.id}/`, { deleted: false })
    expect((await listed())[0]).toBe("Pinned")
    expect((await send("GET", "/dashboards/999999/")).status).toBe(404)
  })

  it("refuses bad input with 400 naming the field", async () => {
    const board = await ok("POST", "/dashboards/", { name: "Strict" }, 201)
    const cases: Array<[string, string, unknown, string]> = [
      ["POST", "/dashboards/", { name: 5 }, "name"],
      ["POST", "/dashboards/", { use_dashboard: 999999 }, "use_dashboard"],
      ["POST", "/dashboards/", { use_template: "NOPE" }, "use_template"],
      ["PATCH", `/dashboards/${board.id}/`, { pinned: "yes" }, "pinned"],
      ["PATCH", `/dashboards/${board.id}/`, { tiles: [{ id: 999999, color: "blue" }] }, "tiles__0__id"],
      [
        "PATCH",
        `/dashboards/${board.id}/`,
        { tiles: [{ layouts: { sm: { x: 0, y: 0, w: 2, h: 2 } } }] },
        "tiles__0__id"
      ],
      ["PATCH", `/dashboards/${board.id}/`, { tiles: [{ text: { body: 1 } }] }, "tiles__0__text__body"]
    ]
    for (const [method, path, body, attr] of cases) {
      const res = await send(method, path, body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.json).toMatchObject({ type: "validation_error", attr })
    }
  })

  it("keeps tile layouts, colours and text cards; removes tiles; bad layouts are refused by field", async () => {
    const board = await ok("POST", "/dashboards/", { name: "Layout" }, 201)
    const a = await ok("POST", "/insights/", { name: "A", query: pageviewTrend, dashboards: [board.id] }, 201)
    const b = await ok("POST", "/insights/", { name: "B", query: pageviewTrend, dashboards: [board.id] }, 201)
    const tiles = (await ok("GET", `/dashboards/${board.id}/`)).tiles
    expect(tiles.map((t: { insight: { id: number } }) => t.insight.id)).toEqual([a.id, b.id])
    const [ta, tb] = tiles
    const arranged = await ok("PATCH", `/dashboards/${board.id}/`, {
      tiles: [
        { id: ta.id, layouts: { sm: { x: 6, y: 0, w: 6, h: 5 }, xs: { x: 0, y: 5, w: 1, h: 5 } }, color: "blue" },
        { id: tb.id, layouts: { sm: { x: 0, y: 0, w: 6, h: 5 } } },
        { text: { body: "# Notes\nWeekly numbers" }, layouts: { sm: { x: 0, y: 5, w: 12, h: 2 } } }
      ]
    })
    expect(arranged.tiles).toHaveLength(3)
    const again = (await ok("GET", `/dashboards/${board.id}/`)).tiles
    expect(again).toEqual(arranged.tiles)
    expect(again[0]).toMatchObject({ layouts: { sm: { x: 6, y: 0, w: 6, h: 5 }, xs: { x: 0, y: 5, w: 1, h: 5 } } })
    expect(again[0].color).toBe("blue")
    expect(again[2]).toMatchObject({ insight: null, text: { body: "# Notes\nWeekly numbers" }, color: null })

    const edited = await ok("PATCH", `/dashboards/${board.id}/`, {
      tiles: [
        { id: again[2].id, text: { body: "Edited" } },
        { id: ta.id, deleted: true }
      ]
    })
    expect(edited.tiles.map((t: { id: number }) => t.id)).toEqual([tb.id, again[2].id])
    expect(edited.tiles[1].text.body).toBe("Edited")
    expect((await ok("GET", `/insights/${a.id}/`)).dashboards).toEqual([])
    expect(
      (await send("PATCH", `/dashboards/${board.id}/`, { tiles: [{ id: tb.id, text: { body: "no" } }] })).json
    ).toMatchObject({ attr: "tiles__0__text" })

    // Any layout out of the grid is refused, naming the field, and changes nothing.
    const field = fc.constantFrom("x", "y", "w", "h")
    await fc.assert(
      fc.asyncProperty(field, fc.integer({ min: -50, max: 200 }), async (key, value) => {
        const layout = { x: 0, y: 0, w: 6, h: 5, [key]: value }
        const valid =
          layout.x >= 0 && layout.y >= 0 && layout.w >= 1 && layout.w <= 12 && layout.h >= 1 && layout.h <= 100
        const res = await send("PATCH", `/dashboards/${board.id}/`, { tiles: [{ id: tb.id, layouts: { sm: layout } }] })
        if (valid) expect(res.json.tiles[0].layouts.sm).toEqual(layout)
        else {
          expect(res.status).toBe(400)
          expect(res.json.attr).toBe(`tiles__0__layouts__sm__${key}`)
        }
      }),
      { numRuns: 15 }
    )
  })

  it("duplicates a dashboard with use_dashboard: filters and tiles on the same insights", async () => {
    const board = await ok("POST", "/dashboards/", { name: "Original", filters: { date_from: "-14d" } }, 201)
    const a = await ok("POST", "/insights/", { name: "On both", query: pageviewTrend, dashboards: [board.id] }, 201)
    const [tile] = (await ok("GET", `/dashboards/${board.id}/`)).tiles
    await ok("PATCH", `/dashboards/${board.id}/`, {
      tiles: [{ id: tile.id, layouts: { sm: { x: 3, y: 1, w: 4, h: 4 } } }, { text: { body: "Read me" } }]
    })
    const copy = await ok("POST", "/dashboards/", { name: "Original (Copy)", use_dashboard: board.id }, 201)
    expect(copy).toMatchObject({ name: "Original (Copy)", filters: { date_from: "-14d" } })
    expect(copy.id).not.toBe(board.id)
    expect(
      copy.tiles.map((t: { insight: { id: number } | null; text: unknown; layouts: unknown }) => [
        t.insight?.id ?? null,
        t.text === null ? null : (t.text as { body: string }).body,
        t.layouts
      ])
    ).toEqual([
      [a.id, null, { sm: { x: 3, y: 1, w: 4, h: 4 } }],
      [null, "Read me", {}]
    ])
    expect((await ok("GET", `/insights/${a.id}/`)).dashboards.sort()).toEqual([board.id, copy.id].sort())
  })

  it.runIf(computes)("applies the dashboard's date range and properties to every tile's result", async () => {
    const filters = {
      date_from: "2025-05-05",
      date_to: "2025-05-12",
      properties: [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }]
    }
    const board = await ok("POST", "/dashboards/", { name: "Filtered", filters }, 201)
    const insight = await ok("POST", "/insights/", { name: "Views", query: pageviewTrend, dashboards: [board.id] }, 201)
    const shown = await ok("GET", `/dashboards/${board.id}/?refresh=blocking`)
    const [result] = shown.tiles[0].insight.result
    const from = Date.UTC(2025, 4, 5)
    const to = Date.UTC(2025, 4, 13)
    const inRange = (e: Event) => Date.parse(e.timestamp) >= from && Date.parse(e.timestamp) < to
    const expected = count((e) => inRange(e) && e.properties.$browser === "Chrome")
    expect(expected).toBeGreaterThan(0)
    expect(result.count).toBe(expected)
    expect(result.days).toHaveLength(8)
    // The same as the insight fetched from the dashboard, and not what it shows on its own.
    const fromDashboard = await ok("GET", `/insights/${insight.id}/?from_dashboard=${board.id}&refresh=blocking`)
    expect(fromDashboard.result[0].count).toBe(expected)
    const alone = await ok("GET", `/insights/${insight.id}/?refresh=blocking`)
    expect(alone.result[0].count).toBe(count(() => true))
  })

  it.runIf(computes)("keeps a failing tile's error on that tile, the others computed", async () => {
    const board = await ok("POST", "/dashboards/", { name: "One broken" }, 201)
    const broken = { kind: "DataTableNode", source: { kind: "ZedQLQuery", query: "SELECT nope FROM events" } }
    const tiles = [
      await ok("POST", "/insights/", { name: "Views", query: pageviewTrend, dashboards: [board.id] }, 201),
      await ok("POST", "/insights/", { name: "Broken", query: broken, dashboards: [board.id] }, 201),
      await ok("POST", "/insights/", { name: "Views again", query: pageviewTrend, dashboards: [board.id] }, 201)
    ]
    // Alone, the broken insight is a 400; on the dashboard, only its tile says so.
    const alone = await send("GET", `/insights/${tiles[1]!.id}/?refresh=blocking`)
    expect(alone.status).toBe(400)
    const shown = await ok("GET", `/dashboards/${board.id}/?refresh=blocking`)
    const byName = new Map(shown.tiles.map((t: { insight: { name: string } }) => [t.insight.name, t.insight]))
    for (const name of ["Views", "Views again"])
      expect(byName.get(name)).toMatchObject({ error: null, result: [{ count: count(() => true) }] })
    const { type, code, detail, attr } = alone.json
    expect(byName.get("Broken")).toMatchObject({ result: null, error: { type, code, detail, attr } })
    expect(code).toBe("zedql_query_error")
  })

  it.runIf(computes)(
    "shares a dashboard by link: its tiles and results without credentials, until disabled",
    async () => {
      const board = await ok("POST", "/dashboards/", { name: "Public <board>" }, 201)
      await ok("POST", "/insights/", { name: "Shared views", query: pageviewTrend, dashboards: [board.id] }, 201)
      await ok("PATCH", `/dashboards/${board.id}/`, { tiles: [{ text: { body: "Hello <world>" } }] })
      const before = await ok("GET", `/dashboards/${board.id}/sharing/`)
      expect(before).toMatchObject({ enabled: false, created_at: null })
      const enabled = await ok("PATCH", `/dashboards/${board.id}/sharing/`, { enabled: true })
      expect((await ok("GET", `/dashboards/${board.id}/`)).is_shared).toBe(true)
      // Computed once by a member; the public view reads it.
      await ok("GET", `/dashboards/${board.id}/?refresh=blocking`)
      const shared = (accept: string) =>
        call(zed, `/shared/${enabled.access_token}`, { key: null, headers: { accept } })
      const json = (await shared("application/json")).json
      expect(json.name).toBe("Public <board>")
      expect(json.tiles[0].insight.result[0].count).toBe(count(() => true))
      expect(json.tiles[1].text.body).toBe("Hello <world>")
      expect(json.created_by).toBeNull()
      const html = (await shared("text/html")).text
      expect(html).toContain("<h1>Public &lt;board&gt;</h1>")
      expect(html).toContain("<h2>Shared views</h2>")
      expect(html).toContain(`<b>${count(() => true)}</b>`)
      expect(html).toContain("Hello &lt;world&gt;")

      const rotated = await ok("POST", `/dashboards/${board.id}/sharing/refresh/`)
      expect(rotated.access_token).not.toBe(enabled.access_token)
      expect((await shared("application/json")).status).toBe(404)
      await ok("PATCH", `/dashboards/${board.id}/sharing/`, { enabled: false })
      expect((await call(zed, `/shared/${rotated.access_token}`, { key: null })).status).toBe(404)
      expect((await send("GET", "/dashboards/999999/sharing/")).status).toBe(404)
    }
  )

  it.runIf(computes)("gives a new project the template dashboard, computing on what posthog-js sends", async () => {
    const project = (await call(zed, "/api/projects/", { method: "POST", body: JSON.stringify({ name: "Fresh" }) }))
      .json
    const boards = (await send("GET", "/dashboards/", undefined, project.id)).json.results
    expect(boards.map((d: { name: string }) => d.name)).toEqual(["My App Dashboard"])
    // posthog-js: pageviews with $pathname; $identify when the app identifies a visitor at sign-up.
    const now = Date.now()
    const visits = Array.from({ length: 24 }, (_, i) => ({
      event: "$pageview",
      distinct_id: `v${i % 5}`,
      timestamp: new Date(now - (1 + (i % 6)) * DAY - i * 1000).toISOString(),
      properties: { $pathname: ["/", "/pricing", "/blog"][i % 3]!, $lib: "web" }
    }))
    const signups = ["v0", "v3"].map((id) => ({
      event: "$identify",
      distinct_id: id,
      timestamp: new Date(now - DAY / 2).toISOString(),
      properties: { $lib: "web" }
    }))
    await importEvents(zed, project.api_token, [...visits, ...signups])
    const answer = await send("GET", `/dashboards/${boards[0].id}/?refresh=blocking`, undefined, project.id)
    expect(answer.status, answer.text).toBe(200)
    const board = answer.json
    const tile = (name: string) =>
      board.tiles.find((t: { insight: { name: string } }) => t.insight.name === name).insight
    expect(board.tiles).toHaveLength(5)
    for (const t of board.tiles) expect(t.layouts.sm).toBeDefined()

    expect(tile("Page views").result[0].count).toBe(visits.length)
    // Unique users per day, summed over the days.
    const daily = new Set(visits.map((v) => `${v.timestamp.slice(0, 10)} ${v.distinct_id}`))
    expect(tile("Unique users").result[0].count).toBe(daily.size)
    const byPath = new Map<string, number>()
    for (const v of visits) byPath.set(v.properties.$pathname, (byPath.get(v.properties.$pathname) ?? 0) + 1)
    const pages = tile("Top pages").result.map((r: { breakdown_value: string; aggregated_value: number }) => [
      r.breakdown_value,
      r.aggregated_value
    ])
    expect(new Map(pages)).toEqual(byPath)
    expect(tile("Sign-up funnel").result.map((s: { count: number }) => s.count)).toEqual([5, 2])
    const cohorts = tile("Retention").result as Array<{ values: Array<{ count: number }> }>
    expect(cohorts.reduce((n, c) => n + (c.values[0]?.count ?? 0), 0)).toBe(5)
  })
})
