import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { ADMIN_KEY, call, issueKey, PROJECT_KEY } from "../../core/test/support.js"
import { backends } from "./backends.js"

// Annotations through the API: where each shows (an insight, a dashboard, the project, the
// organization's projects), lists filtered by date, creation time, scope and text, soft deletion,
// and bad input refused with the field named. Expected lists are worked out here from what was made.

const DAY = 86_400_000

describe.each(["memory", "pglite", "postgres"])("%s annotations", (name) => {
  let zed: Zed
  let cleanup: () => Promise<void>
  let second: number
  let insight: number
  let dashboard: number

  beforeAll(async () => {
    const backend = await backends("annotations-api")[name]!()
    cleanup = backend.cleanup
    zed = await createZed({
      storage: backend.storage,
      bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY, adminPassword: null }
    })
    const created = await call(zed, "/api/projects/", { method: "POST", body: JSON.stringify({ name: "Second" }) })
    expect(created.status, created.text).toBe(201)
    second = created.json.id
    const madeInsight = await send(1, "POST", "/insights/", {
      name: "Events",
      query: { kind: "DataVisualizationNode", source: { kind: "ZedQLQuery", query: "SELECT count() FROM events" } }
    })
    expect(madeInsight.status, madeInsight.text).toBe(201)
    insight = madeInsight.json.id
    const madeDashboard = await send(1, "POST", "/dashboards/", { name: "Main" })
    expect(madeDashboard.status, madeDashboard.text).toBe(201)
    dashboard = madeDashboard.json.id
  })
  afterAll(async () => {
    await zed?.close()
    await cleanup?.()
  })

  const send = (project: number, method: string, path: string, body?: unknown, key = ADMIN_KEY) =>
    call(zed, `/api/projects/${project}${path}`, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
      key
    })
  const ids = async (project: number, query = "") => {
    const res = await send(project, "GET", `/annotations/?limit=1000${query}`)
    expect(res.status, res.text).toBe(200)
    expect(res.json.count).toBe(res.json.results.length)
    return res.json.results.map((a: { id: number }) => a.id) as Array<number>
  }

  const now = Date.now()
  // What each annotation is made with, and its id once made.
  const made: Array<{ id: number; content: string; date: number; scope: string }> = []
  const make = async (content: string, daysAgo: number, fields: Record<string, unknown> = {}) => {
    const date = now - daysAgo * DAY
    const res = await send(1, "POST", "/annotations/", {
      content,
      date_marker: new Date(date).toISOString(),
      ...fields
    })
    expect(res.status, res.text).toBe(201)
    made.push({ id: res.json.id, content, date, scope: res.json.scope })
    return res.json
  }
  /** The made annotations a predicate keeps, in list order: latest date first, then newest. */
  const expected = (keep: (a: (typeof made)[number]) => boolean) =>
    made
      .filter(keep)
      .sort((a, b) => b.date - a.date || b.id - a.id)
      .map((a) => a.id)

  it("creates annotations on an insight, a dashboard, the project and the organization", async () => {
    const onInsight = await make("Launched pricing page", 3, { scope: "dashboard_item", dashboard_item: insight })
    expect(onInsight).toMatchObject({
      content: "Launched pricing page",
      scope: "dashboard_item",
      dashboard_item: insight,
      dashboard_id: null,
      creation_type: "USR",
      deleted: false,
      created_by: { email: expect.any(String) }
    })
    expect(Date.parse(onInsight.date_marker)).toBe(now - 3 * DAY)
    await make("Dashboard redesign", 10, { scope: "dashboard", dashboard_id: dashboard })
    await make("Deploy 1.2", 1, { creation_type: "GIT" })
    await make("Black friday sale", 20)
    await make("Company offsite", 5, { scope: "organization" })
    expect(made.map((a) => a.scope)).toEqual(["dashboard_item", "dashboard", "project", "project", "organization"])
    expect(await ids(1)).toEqual(expected(() => true))
    const one = await send(1, "GET", `/annotations/${onInsight.id}/`)
    expect(one.json).toEqual(onInsight)
  })

  it("shows the organization's annotations in its other projects, and only those", async () => {
    expect(await ids(second)).toEqual(expected((a) => a.scope === "organization"))
    const own = (await send(second, "POST", "/annotations/", { content: "Second only" })).json
    expect(own.date_marker).toBeNull()
    expect(await ids(second)).toEqual([...expected((a) => a.scope === "organization"), own.id])
    expect(await ids(1)).not.toContain(own.id)
    expect((await send(1, "GET", `/annotations/${own.id}/`)).status).toBe(404)
  })

  it("filters by date, creation time, scope, insight and text", async () => {
    const days = (n: number) => now - n * DAY
    expect(await ids(1, "&date_from=-7d")).toEqual(expected((a) => a.date >= days(7)))
    const from = new Date(days(12)).toISOString()
    const to = new Date(days(2)).toISOString()
    expect(await ids(1, `&date_from=${from}&date_to=${to}`)).toEqual(
      expected((a) => a.date >= days(12) && a.date <= days(2))
    )
    expect(await ids(1, "&scope=project")).toEqual(expected((a) => a.scope === "project"))
    expect(await ids(1, `&dashboardItemId=${insight}`)).toEqual(expected((a) => a.scope === "dashboard_item"))
    expect(await ids(1, "&search=DEPLOY")).toEqual(expected((a) => a.content.toLowerCase().includes("deploy")))
    // All were created before now, none after.
    expect(await ids(1, `&before=${new Date(Date.now() + 60_000).toISOString()}`)).toEqual(expected(() => true))
    expect(await ids(1, `&after=${new Date(Date.now() + 60_000).toISOString()}`)).toEqual([])
    const page = await send(1, "GET", "/annotations/?limit=2&offset=1")
    expect(page.json.results.map((a: { id: number }) => a.id)).toEqual(expected(() => true).slice(1, 3))
    expect(page.json.count).toBe(made.length)
  })

  it("changes an annotation, and deletes it softly", async () => {
    const target = made.find((a) => a.content === "Black friday sale")!
    const changed = await send(1, "PATCH", `/annotations/${target.id}/`, { content: "Cyber monday sale" })
    expect(changed.status, changed.text).toBe(200)
    expect(changed.json.content).toBe("Cyber monday sale")
    expect(Date.parse(changed.json.updated_at)).toBeGreaterThanOrEqual(Date.parse(changed.json.created_at))
    expect((await send(1, "DELETE", `/annotations/${target.id}/`)).status).toBe(405)
    const deleted = await send(1, "PATCH", `/annotations/${target.id}/`, { deleted: true })
    expect(deleted.json.deleted).toBe(true)
    expect(await ids(1)).toEqual(expected((a) => a.id !== target.id))
    expect((await send(1, "GET", `/annotations/${target.id}/`)).status).toBe(404)
    expect((await send(1, "PATCH", `/annotations/${target.id}/`, { deleted: false })).status).toBe(404)
  })

  it("refuses bad input, naming the field", async () => {
    const bad = async (body: unknown, attr: string, method = "POST", path = "/annotations/") => {
      const res = await send(1, method, path, body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.json).toMatchObject({ type: "validation_error", attr })
    }
    await bad({ scope: "dashboard_item" }, "dashboard_item")
    await bad({ scope: "dashboard_item", dashboard_item: 999_999 }, "dashboard_item")
    await bad({ scope: "dashboard" }, "dashboard_id")
    await bad({ scope: "everywhere" }, "scope")
    await bad({ content: "x".repeat(401) }, "content")
    await bad({ date_marker: "soon" }, "date_marker")
    await bad({ scope: "dashboard" }, "dashboard_id", "PATCH", `/annotations/${made[2]!.id}/`)
    const res = await send(1, "GET", "/annotations/?date_from=yesterday-ish")
    expect(res.status).toBe(400)
    expect(res.json.attr).toBe("date_from")
  })

  it("needs the annotation scopes", async () => {
    const reader = await issueKey(zed, ["annotation:read"])
    expect((await send(1, "GET", "/annotations/", undefined, reader)).status).toBe(200)
    expect((await send(1, "POST", "/annotations/", { content: "x" }, reader)).status).toBe(403)
    const other = await issueKey(zed, ["insight:read"])
    expect((await send(1, "GET", "/annotations/", undefined, other)).status).toBe(403)
  })
})
