import { describe, expect, it } from "@effect/vitest"
import { InsightStore, type NewDashboard, type NewInsight, Transactor } from "@zed/core/storage"
import { Effect, Option } from "effect"
import { backends as storageBackends, suiteStorage } from "./backends.js"

// The insight store (insights, dashboards and tiles, sharing, activity), alike on every backend.

const backends = storageBackends("insights")

const insight = (short_id: string, fields: Partial<NewInsight> = {}): NewInsight => ({
  short_id,
  name: `Insight ${short_id}`,
  derived_name: null,
  description: "",
  filters: {},
  query: { kind: "InsightVizNode", source: { kind: "TrendsQuery", series: [{ event: "$pageview" }] } },
  order: null,
  deleted: false,
  favorited: false,
  saved: false,
  tags: [],
  created_by: 1,
  ...fields
})

const page = { limit: 100, offset: 0 }

const board: NewDashboard = {
  name: "",
  description: "",
  filters: {},
  pinned: false,
  tags: [],
  deleted: false,
  created_by: null
}

describe.each(Object.keys(backends))("%s", (name) => {
  const suite = suiteStorage(backends[name]!)
  const { run } = suite
  const store = () => run(InsightStore)

  it("insights: create, get, list with filters and pages, update (material or not), soft delete", async () => {
    const s = await store()
    const a = await run(
      s.create(1, insight("AAAAAAAA", { name: "Weekly Growth", tags: ["core"], saved: true, order: 3 }))
    )
    const b = await run(
      s.create(
        1,
        insight("BBBBBBBB", { name: null, derived_name: "Pageview count", description: "Traffic", favorited: true })
      )
    )
    const c = await run(s.create(1, insight("CCCCCCCC", { tags: ["GROWTH-team"], query: null, created_by: null })))
    await run(s.create(suite.other, insight("AAAAAAAA")))
    expect(a).toMatchObject({
      short_id: "AAAAAAAA",
      name: "Weekly Growth",
      order: 3,
      tags: ["core"],
      deleted: false,
      last_modified_by: 1
    })
    expect(c.query).toBeNull()
    expect(Option.getOrThrow(await run(s.get(1, b.id)))).toEqual(b)

    const ids = async (query: Partial<Parameters<typeof s.list>[1]>) =>
      (await run(s.list(1, { ...page, ...query }))).results.map((i) => i.id)
    expect(await ids({})).toEqual([c.id, b.id, a.id])
    expect(await ids({ search: "growth" })).toEqual([c.id, a.id])
    expect(await ids({ search: "TRAFF" })).toEqual([b.id])
    expect(await ids({ search: "pageview" })).toEqual([b.id])
    expect(await ids({ short_id: "AAAAAAAA" })).toEqual([a.id])
    expect(await ids({ created_by: 1 })).toEqual([b.id, a.id])
    expect(await ids({ favorited: true })).toEqual([b.id])
    expect(await ids({ saved: true })).toEqual([a.id])
    expect(await ids({ saved: false })).toEqual([c.id, b.id])
    const second = await run(s.list(1, { limit: 1, offset: 1 }))
    expect(second).toMatchObject({ count: 3, results: [{ id: b.id }] })

    const quiet = Option.getOrThrow(
      await run(s.update(1, a.id, { favorited: true, last_modified_by: 1, material: false }))
    )
    expect(quiet.last_modified_at).toEqual(a.last_modified_at)
    expect(quiet.updated_at.getTime()).toBeGreaterThanOrEqual(a.updated_at.getTime())
    await new Promise((r) => setTimeout(r, 5))
    const query = { kind: "DataVisualizationNode", source: { kind: "ZedQLQuery", query: "SELECT 1" } }
    const loud = Option.getOrThrow(
      await run(
        s.update(1, a.id, { name: null, query, tags: ["x"], order: null, last_modified_by: null, material: true })
      )
    )
    expect(loud).toMatchObject({ name: null, query, tags: ["x"], order: null, favorited: true, last_modified_by: null })
    expect(loud.last_modified_at.getTime()).toBeGreaterThan(a.last_modified_at.getTime())
    expect(
      Option.isNone(await run(s.update(suite.other, a.id, { deleted: true, last_modified_by: 1, material: false })))
    ).toBe(true)

    await run(s.update(1, b.id, { deleted: true, last_modified_by: 1, material: false }))
    expect(Option.isNone(await run(s.get(1, b.id)))).toBe(true)
    expect(Option.getOrThrow(await run(s.get(1, b.id, true))).deleted).toBe(true)
    expect(await ids({ favorited: true })).toEqual([a.id])
  })

  it("dashboards and tiles: placing, moving, reviving, marking; saved=true takes insights on a dashboard", async () => {
    const s = await store()
    const filters = { date_from: "-7d", properties: [{ key: "$browser", value: "Chrome" }] }
    const d1 = await run(s.createDashboard(1, { ...board, name: "One", description: "first", filters, created_by: 1 }))
    const d2 = await run(s.createDashboard(1, { ...board, name: "Two" }))
    const elsewhere = await run(s.createDashboard(suite.other, { ...board, name: "Elsewhere", created_by: 1 }))
    expect(d1).toMatchObject({ name: "One", filters })
    expect((await run(s.getDashboards(1, [d2.id, d1.id, elsewhere.id]))).map((d) => d.id)).toEqual([d1.id, d2.id])
    expect(await run(s.listDashboards(1, { limit: 1, offset: 0 }))).toMatchObject({
      count: 2,
      results: [{ id: d2.id }]
    })

    const i = await run(s.create(1, insight("TILETILE")))
    await run(s.placeOn(i.id, [d1.id, d2.id]))
    const tiles = async () => (await run(s.tiles([i.id]))).map((t) => [t.dashboard_id, t.deleted])
    expect(await tiles()).toEqual([
      [d1.id, false],
      [d2.id, false]
    ])
    expect((await run(s.list(1, { ...page, saved: true }))).results.map((x) => x.id)).toContain(i.id)
    await run(s.placeOn(i.id, [d2.id]))
    expect(await tiles()).toEqual([
      [d1.id, true],
      [d2.id, false]
    ])
    await run(s.placeOn(i.id, [d1.id]))
    expect(await tiles()).toEqual([
      [d1.id, false],
      [d2.id, true]
    ])
    expect((await run(s.dashboardTiles(d1.id))).map((t) => [t.insight_id, t.deleted])).toEqual([[i.id, false]])
    await run(s.markTiles(i.id, true))
    expect(await tiles()).toEqual([
      [d1.id, true],
      [d2.id, true]
    ])
    expect((await run(s.list(1, { ...page, saved: true }))).results.map((x) => x.id)).not.toContain(i.id)
    await run(s.placeOn(i.id, []))
    expect(await tiles()).toEqual([
      [d1.id, true],
      [d2.id, true]
    ])
    expect(await run(s.tiles([]))).toEqual([])

    // Text cards, layouts and colours; soft deletion and restoring of dashboards.
    const card = await run(s.addTile(d2.id, { insight_id: null, text: "Notes", layouts: {}, color: null }))
    const layouts = { sm: { x: 6, y: 0, w: 6, h: 3 } }
    const moved = await run(s.updateTile(d2.id, card.id, { layouts, color: "blue", text: undefined }))
    expect(Option.getOrThrow(moved)).toMatchObject({ insight_id: null, text: "Notes", layouts, color: "blue" })
    expect(Option.isNone(await run(s.updateTile(d1.id, card.id, { deleted: true })))).toBe(true)
    expect((await run(s.dashboardTiles(d2.id))).map((t) => t.id)).toContain(card.id)
    await run(s.updateDashboard(1, d2.id, { deleted: true, pinned: true }))
    expect((await run(s.getDashboards(1, [d2.id]))).length).toBe(0)
    expect((await run(s.getDashboards(1, [d2.id], true)))[0]).toMatchObject({ deleted: true, pinned: true })
    expect((await run(s.listDashboards(1, page))).results.map((d) => d.id)).not.toContain(d2.id)
    expect(Option.isNone(await run(s.updateDashboard(suite.other, d2.id, { deleted: false })))).toBe(true)
  })

  it("sharing: one configuration per insight or dashboard, found by token only while enabled", async () => {
    const s = await store()
    const i = { kind: "insight", id: (await run(s.create(1, insight("SHARESHA")))).id } as const
    expect(Option.isNone(await run(s.sharing(i)))).toBe(true)
    const first = await run(s.saveSharing(i, { enabled: true, access_token: "token-one" }))
    expect(first).toMatchObject({ enabled: true, access_token: "token-one" })
    expect(Option.getOrThrow(await run(s.shared("token-one")))).toEqual({ project_id: 1, ...i })
    const rotated = await run(s.saveSharing(i, { enabled: true, access_token: "token-two" }))
    expect(rotated.created_at).toEqual(first.created_at)
    expect(Option.isNone(await run(s.shared("token-one")))).toBe(true)
    expect(Option.getOrThrow(await run(s.sharing(i)))).toEqual(rotated)
    await run(s.saveSharing(i, { enabled: false, access_token: "token-two" }))
    expect(Option.isNone(await run(s.shared("token-two")))).toBe(true)

    // A dashboard's configuration is its own, with the same id as the insight's or not.
    const d = { kind: "dashboard", id: (await run(s.createDashboard(1, { ...board, name: "Shared" }))).id } as const
    await run(s.saveSharing(d, { enabled: true, access_token: "board-token" }))
    expect(Option.getOrThrow(await run(s.shared("board-token")))).toEqual({ project_id: 1, ...d })
    expect(Option.getOrThrow(await run(s.sharing(i))).access_token).toBe("token-two")
    // A deleted dashboard's link answers nothing.
    await run(s.updateDashboard(1, d.id, { deleted: true }))
    expect(Option.isNone(await run(s.shared("board-token")))).toBe(true)
  })

  it("activity: entries per item, newest first, paged, kept apart by project", async () => {
    const s = await store()
    const entry = (activity: string, item = "7") => ({
      user_id: 1,
      activity,
      scope: "Insight",
      item_id: item,
      detail: { changes: [{ field: "name", before: "a", after: "b" }] }
    })
    // Written in one transaction, as an update and its log would be: the order must still hold.
    await run(
      Effect.flatMap(Transactor, (t) =>
        t.transaction(Effect.forEach(["created", "updated", "deleted"], (a) => s.logActivity(1, entry(a))))
      )
    )
    await run(s.logActivity(1, { ...entry("created", "8"), user_id: null }))
    await run(s.logActivity(suite.other, entry("created")))
    const all = await run(s.activity(1, "Insight", "7", page))
    expect(all.count).toBe(3)
    expect(all.results.map((e) => e.activity)).toEqual(["deleted", "updated", "created"])
    expect(all.results[0]).toMatchObject({ user_id: 1, scope: "Insight", item_id: "7", detail: entry("x").detail })
    expect(all.results[0]!.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(all.results[0]!.created_at).toBeInstanceOf(Date)
    expect((await run(s.activity(1, "Insight", "7", { limit: 1, offset: 1 }))).results.map((e) => e.activity)).toEqual([
      "updated"
    ])
    expect((await run(s.activity(1, "Insight", "8", page))).results[0]!.user_id).toBeNull()
    const everyItem = await run(s.activity(1, "Insight", undefined, page))
    expect(everyItem.results.map((e) => [e.item_id, e.activity])).toEqual([
      ["8", "created"],
      ["7", "deleted"],
      ["7", "updated"],
      ["7", "created"]
    ])
    expect((await run(s.activity(1, "Dashboard", undefined, page))).count).toBe(0)
  })
})
