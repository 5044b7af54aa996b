import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, importProjectFrom, memoryStorage, TRANSFER_FORMAT, TRANSFER_VERSION, type Zed } from "@zed/core"
import { pgliteStorage, postgresStorage, temporaryDatabase } from "@zed/postgres"
import { ADMIN_KEY, call, importEvents, PROJECT_KEY, zedqlRequest } from "../../core/test/support.js"
import { TEST_SERVER_URL } from "../../postgres/test/server.js"
import { runZed } from "./processes.js"

// `zed export` on an embedded PGlite install and `zed import` into a PostgreSQL one move a project
// whole: what the API answers about the imported project equals what it answers about the source,
// where ids are compared by what they name, and matches what the test works out from the data it
// sent. A second import stores no event or person twice.

const root = mkdtempSync(join(tmpdir(), "zed-transfer-"))
const sourceDir = join(root, "source")
const targetDir = join(root, "target")
const file = join(root, "project.jsonl")

const DAY0 = Date.parse("2026-03-02T00:00:00Z")
const HOUR = 3_600_000
const PEOPLE = Array.from({ length: 40 }, (_, i) => ({
  i,
  plan: i % 3 === 0 ? "pro" : "free",
  email: `p${i}@x.test`,
  // Every fourth person browsed anonymously first, then signed in (two distinct ids, one person).
  anonymous: i % 4 === 1
}))
const purchasesOf = (i: number) => i % 5

/** The events the source gets: pageviews, purchases and sign-ins, over three days. */
const EVENTS = PEOPLE.flatMap((p) => {
  const at = (n: number) => new Date(DAY0 + ((p.i * 7 + n * 13) % 72) * HOUR + p.i * 1000 + n).toISOString()
  const id = `u${p.i}`
  return [
    ...(p.anonymous
      ? [
          { event: "$pageview", distinct_id: `anon${p.i}`, timestamp: at(0), properties: { $current_url: "/" } },
          { event: "$identify", distinct_id: id, timestamp: at(1), properties: { $anon_distinct_id: `anon${p.i}` } }
        ]
      : []),
    {
      event: "$pageview",
      distinct_id: id,
      timestamp: at(2),
      properties: { $current_url: "/pricing", $set: { plan: p.plan, email: p.email } }
    },
    ...Array.from({ length: purchasesOf(p.i) }, (_, n) => ({
      event: "purchase",
      distinct_id: id,
      timestamp: at(3 + n),
      properties: { amount: 10 + n }
    }))
  ]
})

const STATIC = PEOPLE.filter((p) => p.i % 2 === 0)

const send = async (zed: Zed, project: number, method: string, path: string, body?: unknown) => {
  const res = await call(zed, `/api/projects/${project}${path}`, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300)
  return res.json
}

/** The project's data set up through the API, as a user would. */
const populate = async (zed: Zed) => {
  await importEvents(zed, PROJECT_KEY, EVENTS)
  const bought = await send(zed, 1, "POST", "/actions/", { name: "Bought", steps: [{ event: "purchase" }] })
  const pro = await send(zed, 1, "POST", "/cohorts/", {
    name: "Pro",
    filters: { properties: { type: "AND", values: [{ key: "plan", value: "pro", type: "person" }] } }
  })
  const listed = await send(zed, 1, "POST", "/cohorts/", {
    name: "Listed",
    is_static: true,
    csv: `distinct_id\n${STATIC.map((p) => `u${p.i}`).join("\n")}\n`
  })
  const proUnlisted = await send(zed, 1, "POST", "/cohorts/", {
    name: "Pro, not listed",
    filters: {
      properties: {
        type: "AND",
        values: [
          { key: "id", value: pro.id, type: "cohort" },
          { key: "id", value: listed.id, type: "cohort", operator: "not_in" }
        ]
      }
    }
  })
  const gate = await send(zed, 1, "POST", "/feature_flags/", {
    key: "pro-gate",
    filters: {
      groups: [{ properties: [{ key: "id", value: proUnlisted.id, type: "cohort" }], rollout_percentage: 100 }]
    }
  })
  await send(zed, 1, "POST", "/feature_flags/", {
    key: "gradual",
    filters: { groups: [{ properties: [], rollout_percentage: 40 }] }
  })
  await send(zed, 1, "POST", "/feature_flags/", {
    key: "after-gate",
    filters: { groups: [{ properties: [{ key: String(gate.id), type: "flag", value: true }] }] }
  })
  const dateRange = { date_from: "2026-03-02", date_to: "2026-03-04" }
  const trend = await send(zed, 1, "POST", "/insights/", {
    name: "Purchases a day",
    query: {
      kind: "InsightVizNode",
      source: { kind: "TrendsQuery", series: [{ kind: "ActionsNode", id: bought.id }], interval: "day", dateRange }
    }
  })
  const byCohort = await send(zed, 1, "POST", "/insights/", {
    name: "Pro pageviews",
    query: {
      kind: "InsightVizNode",
      source: {
        kind: "TrendsQuery",
        series: [{ kind: "EventsNode", event: "$pageview", math: "dau" }],
        interval: "day",
        dateRange,
        properties: [{ key: "id", value: pro.id, type: "cohort" }]
      }
    }
  })
  const listedBuys = await send(zed, 1, "POST", "/insights/", {
    name: "Listed purchases",
    query: {
      kind: "InsightVizNode",
      source: {
        kind: "TrendsQuery",
        series: [{ kind: "EventsNode", event: "purchase" }],
        interval: "day",
        dateRange,
        properties: [{ key: "id", value: listed.id, type: "cohort" }]
      }
    }
  })
  const board = await send(zed, 1, "POST", "/dashboards/", { name: "Sales" })
  for (const insight of [trend, byCohort])
    await send(zed, 1, "PATCH", `/insights/${insight.id}/`, { dashboards: [board.id] })
  await send(zed, 1, "POST", "/annotations/", {
    content: "Launch",
    date_marker: "2026-03-03T09:00:00.000Z",
    scope: "project"
  })
  await send(zed, 1, "POST", "/annotations/", {
    content: "Odd dip",
    date_marker: "2026-03-04T00:00:00.000Z",
    scope: "dashboard_item",
    dashboard_item: listedBuys.id
  })
  const events = await send(zed, 1, "GET", "/event_definitions/?search=purchase")
  await send(zed, 1, "PATCH", `/event_definitions/${events.results[0].id}/`, { description: "A sale", verified: true })
  const props = await send(zed, 1, "GET", "/property_definitions/?search=amount")
  await send(zed, 1, "PATCH", `/property_definitions/${props.results[0].id}/`, {
    description: "In euros",
    tags: ["money"]
  })
}

/** What the API answers about a project, with ids replaced by what they name. */
const answers = async (zed: Zed, project: number) => {
  const get = (path: string) => send(zed, project, "GET", path)
  const rows = async (query: string) =>
    (await send(zed, project, "POST", "/query/", zedqlRequest(query))).results as Array<Array<unknown>>
  const token = (await get("/")).api_token as string
  const cohorts = (await get("/cohorts/?limit=100")).results as Array<{ id: number; name: string }>
  const insights = (await get("/insights/?limit=100")).results as Array<{ id: number; name: string }>
  const insightName = new Map(insights.map((i) => [i.id, i.name]))
  const flagsFor = async (distinctId: string) => {
    const res = await call(zed, "/flags/?v=2", {
      method: "POST",
      key: null,
      body: JSON.stringify({ token, distinct_id: distinctId })
    })
    expect(res.status, res.text).toBe(200)
    return Object.fromEntries(
      Object.entries(res.json.flags as Record<string, { enabled: boolean }>).map(([k, v]) => [k, v.enabled])
    )
  }
  const boards = (await get("/dashboards/")).results as Array<{ id: number; name: string }>
  return {
    events: await rows(
      "SELECT uuid, event, distinct_id, person_id, toString(timestamp), properties.amount, properties.$current_url FROM events ORDER BY uuid LIMIT 1000"
    ),
    persons: ((await get("/persons/?limit=1000")).results as Array<Record<string, any>>)
      .map((p) => ({
        uuid: p["uuid"],
        distinct_ids: [...p["distinct_ids"]].sort(),
        properties: p["properties"],
        is_identified: p["is_identified"]
      }))
      .sort((a, b) => a.uuid.localeCompare(b.uuid)),
    cohorts: Object.fromEntries(
      await Promise.all(
        cohorts.map(async (c) => [
          c.name,
          ((await get(`/cohorts/${c.id}/persons/?limit=1000`)).results as Array<{ distinct_ids: Array<string> }>)
            .map((p) => p.distinct_ids.find((d) => d.startsWith("u")))
            .sort()
        ])
      )
    ),
    flags: Object.fromEntries(
      await Promise.all(PEOPLE.map(async (p) => [`u${p.i}`, await flagsFor(`u${p.i}`)] as const))
    ),
    insights: Object.fromEntries(
      await Promise.all(
        insights.map(async (i) => {
          const result = (await get(`/insights/${i.id}/?refresh=blocking`)).result as Array<Record<string, any>>
          return [
            i.name,
            result.map((s) => ({
              label: s["label"],
              labels: s["labels"],
              data: s["data"]
            }))
          ]
        })
      )
    ),
    dashboards: Object.fromEntries(
      await Promise.all(
        boards.map(async (b) => [
          b.name,
          ((await get(`/dashboards/${b.id}/`)).tiles as Array<{ insight: { name: string } | null }>)
            .map((t) => t.insight?.name)
            .sort()
        ])
      )
    ),
    annotations: ((await get("/annotations/")).results as Array<Record<string, any>>)
      .map((a) => ({
        content: a["content"],
        date_marker: a["date_marker"],
        scope: a["scope"],
        insight: a["dashboard_item"] === null ? null : insightName.get(a["dashboard_item"])
      }))
      .sort((a, b) => String(a.content).localeCompare(String(b.content))),
    actions: ((await get("/actions/")).results as Array<Record<string, any>>).map((a) => ({
      name: a["name"],
      steps: a["steps"].map((s: Record<string, unknown>) => s["event"])
    })),
    definitions: {
      purchase: ((await get("/event_definitions/?search=purchase")).results as Array<Record<string, any>>).map((d) => [
        d["name"],
        d["description"],
        d["verified"]
      ]),
      amount: ((await get("/property_definitions/?search=amount")).results as Array<Record<string, any>>).map((d) => [
        d["name"],
        d["description"],
        d["tags"],
        d["property_type"]
      ])
    }
  }
}

describe("zed export / zed import", () => {
  let dropTarget: () => Promise<void> = async () => {}
  let targetUrl = ""
  let source: Awaited<ReturnType<typeof answers>>

  beforeAll(async () => {
    const zed = await createZed({
      storage: pgliteStorage({ dataDir: join(sourceDir, "pgdata") }),
      bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY, adminPassword: null }
    })
    try {
      await populate(zed)
      source = await answers(zed, 1)
    } finally {
      await zed.close()
    }
    const db = await temporaryDatabase(TEST_SERVER_URL)
    dropTarget = db.drop
    targetUrl = db.url
  })
  afterAll(async () => {
    await dropTarget()
    rmSync(root, { recursive: true, force: true })
  })

  it("moves a project from PGlite to PostgreSQL, answering the same", async () => {
    const exported = await runZed(["export", "--output", file], { ZED_DATA_DIR: sourceDir })
    expect(exported.code, exported.stderr).toBe(0)
    const lines = readFileSync(file, "utf8").trimEnd().split("\n")
    expect(JSON.parse(lines[0]!)).toMatchObject({ format: TRANSFER_FORMAT, version: TRANSFER_VERSION })
    const types = lines.slice(1).map((l) => JSON.parse(l).type as string)
    expect(types.filter((t) => t === "event").length).toBe(EVENTS.length)
    expect(types.filter((t) => t === "person").length).toBe(PEOPLE.length)
    expect(types.filter((t) => t === "cohort_person").length).toBe(STATIC.length)

    const env = { ZED_DATA_DIR: targetDir, DATABASE_URL: targetUrl, ZED_PERSONAL_API_KEY: ADMIN_KEY }
    const imported = await runZed(["import", "--input", file], env)
    expect(imported.code, imported.stderr).toBe(0)
    // A fresh install makes project 1 for itself; the import makes project 2.
    expect(imported.stdout).toMatch(
      new RegExp(`^Imported into project 2 \\(".*"\\) .*${EVENTS.length} events new$`, "m")
    )

    const zed = await createZed({ storage: postgresStorage({ url: targetUrl }), bootstrap: false })
    try {
      const target = await answers(zed, 2)
      expect(target).toEqual(source)

      // What the source answers is what the data sent says.
      expect(target.events.length).toBe(EVENTS.length)
      expect(target.persons.length).toBe(PEOPLE.length)
      const pro = PEOPLE.filter((p) => p.plan === "pro")
      const ids = (list: ReadonlyArray<{ i: number }>) => list.map((p) => `u${p.i}`).sort()
      expect(target.cohorts["Pro"]).toEqual(ids(pro))
      expect(target.cohorts["Listed"]).toEqual(ids(STATIC))
      const proUnlisted = pro.filter((p) => !STATIC.includes(p))
      expect(target.cohorts["Pro, not listed"]).toEqual(ids(proUnlisted))
      for (const p of PEOPLE) {
        const flags = target.flags[`u${p.i}`]!
        expect(flags["pro-gate"]).toBe(proUnlisted.includes(p))
        expect(flags["after-gate"]).toBe(proUnlisted.includes(p))
      }
      const gradual = Object.values(target.flags).filter((f) => f["gradual"]).length
      expect(gradual).toBeGreaterThan(0)
      expect(gradual).toBeLessThan(PEOPLE.length)
      const perDay = [0, 1, 2].map(
        (d) =>
          EVENTS.filter(
            (e) => e.event === "purchase" && Math.floor((Date.parse(e.timestamp) - DAY0) / (24 * HOUR)) === d
          ).length
      )
      expect(target.insights["Purchases a day"]![0]!.data).toEqual(perDay)
      expect(target.dashboards["Sales"]).toEqual(["Pro pageviews", "Purchases a day"])
      expect(target.annotations.map((a) => a.insight)).toEqual([null, "Listed purchases"])
      expect(target.definitions.purchase).toEqual([["purchase", "A sale", true]])
    } finally {
      await zed.close()
    }

    // Importing the same stream into the same project again stores no event or person twice.
    const again = await runZed(["import", "--input", file, "--project", "2"], env)
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toMatch(/; 0 events new$/m)
    const reopened = await createZed({ storage: postgresStorage({ url: targetUrl }), bootstrap: false })
    try {
      const count = await send(reopened, 2, "POST", "/query/", zedqlRequest("SELECT count() FROM events"))
      expect(count.results).toEqual([[EVENTS.length]])
      expect((await send(reopened, 2, "GET", "/persons/?limit=1000")).results.length).toBe(PEOPLE.length)
    } finally {
      await reopened.close()
    }
  })

  it("refuses a stream that is not the transfer format, or a newer version of it", async () => {
    const zed = await createZed({
      storage: memoryStorage(),
      bootstrap: { personalApiKey: ADMIN_KEY, adminPassword: null }
    })
    try {
      for (const [lines, message] of [
        [[], "the stream is empty"],
        [['{"hello":1}'], "line 1: not a zed-project stream"],
        [[JSON.stringify({ ...HEADER, version: TRANSFER_VERSION + 1 })], "line 1: format version 2 is newer"],
        [[JSON.stringify(HEADER), "", '{"type":"nonsense","data":{}}'], "line 3: a record is"],
        [[JSON.stringify(HEADER), '{"type":"flag","data":{"key":7}}'], "line 2: "],
        [[JSON.stringify(HEADER), '{"type":"person","data":{"uuid":"x","distinct_ids":[]}}'], "line 2: "],
        [[JSON.stringify(HEADER), "{not json"], "line 2: not JSON"]
      ] as const) {
        await expect(importProjectFrom(zed, fromLines(lines))).rejects.toThrow(message)
      }
    } finally {
      await zed.close()
    }
  })

  it("renumbers a cohort's reference to one later in the stream", async () => {
    const zed = await createZed({
      storage: memoryStorage(),
      bootstrap: { personalApiKey: ADMIN_KEY, adminPassword: null }
    })
    const ref = (id: number) => ({ properties: { type: "AND", values: [{ key: "id", value: id, type: "cohort" }] } })
    try {
      const { project } = await importProjectFrom(
        zed,
        fromLines([
          JSON.stringify(HEADER),
          JSON.stringify({ type: "cohort", data: { id: 50, name: "Refers on", ...ref(90) } }),
          JSON.stringify({ type: "cohort", data: { id: 90, name: "Later", is_static: true, properties: null } }),
          JSON.stringify({ type: "flag", data: { id: 3, key: "f", filters: { groups: [ref(90).properties] } } })
        ])
      )
      const cohorts = (await send(zed, project.id, "GET", "/cohorts/")).results as Array<Record<string, any>>
      const later = cohorts.find((c) => c.name === "Later")!
      const referring = cohorts.find((c) => c.name === "Refers on")!
      expect(later.id).not.toBe(90)
      expect(referring.filters.properties.values[0].value).toBe(later.id)
      const flag = (await send(zed, project.id, "GET", "/feature_flags/")).results[0]
      expect(flag.filters.groups[0].values[0].value).toBe(later.id)
    } finally {
      await zed.close()
    }
  })
})

const HEADER = {
  format: TRANSFER_FORMAT,
  version: TRANSFER_VERSION,
  project: { id: 1, name: "x", timezone: "UTC", settings: {} }
}

async function* fromLines(lines: ReadonlyArray<string>) {
  yield* lines
}
