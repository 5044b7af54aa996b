import { beforeAll, describe, expect, it } from "@effect/vitest"
import type { Zed } from "@zed/core"
import { ADMIN_KEY, importEvents, PROJECT_KEY, readCsv } from "../../core/test/support.js"
import { apiSuite } from "./apiSuite.js"

// Exports through the API: a ZedQL query, an events table, a persons list and an insight written
// in the background as CSV, a JSON array or JSON lines, then downloaded; the content compared with
// what this test works out from its own events. The page is cut to a few rows for the test, so that
// a few hundred events and a few dozen persons take many pages, the last one short.
// Bad input is refused with the field named.

const MINUTE = 60_000
const DAY = 86_400_000
const START = Date.UTC(2025, 4, 1)
const COUNT = 250
const PERSONS = 37
/** Rows an export reads at a time, here. */
const PAGE = 20
const DAYS = Array.from({ length: 7 }, (_, d) => new Date(START + d * DAY).toISOString().slice(0, 10))

// Event i is made by person i % 37 forty minutes after the one before (a week in all); some labels
// need CSV quoting.
const EVENTS = Array.from({ length: COUNT }, (_, i) => ({
  event: "exported",
  distinct_id: `u${i % PERSONS}`,
  timestamp: new Date(START + i * 40 * MINUTE).toISOString(),
  properties: {
    n: i,
    label: i % 5 === 0 ? `a,"${i}"` : `plain ${i}`,
    ...(i < PERSONS ? { $set: { email: `u${i}@example.test`, plan: i % 2 === 0 ? "free" : "paid" } } : {})
  }
}))

// Events at one and the same moment, more than two pages of them: paging by time alone would lose
// or repeat some at a page's edge.
const TIED = Array.from({ length: PAGE * 2 + 5 }, (_, i) => ({
  event: "tied",
  distinct_id: `u${i % PERSONS}`,
  timestamp: new Date(START + 3 * DAY).toISOString(),
  properties: { n: i }
}))

/** A CSV cell as RFC 4180 has it. */
const cell = (v: unknown) => {
  const text = v === null || v === undefined ? "" : typeof v === "string" ? v : JSON.stringify(v)
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}
const csv = (rows: ReadonlyArray<ReadonlyArray<unknown>>) => rows.map((r) => `${r.map(cell).join(",")}\r\n`).join("")

describe.each(["pglite", "postgres", "chdb"])("%s exports", (name) => {
  const suite = apiSuite("exports-api", name, { exportPageRows: PAGE })
  const { send } = suite
  let zed: Zed

  beforeAll(async () => {
    zed = suite.zed
    await importEvents(zed, PROJECT_KEY, [...EVENTS, ...TIED])
    expect(COUNT % PAGE).not.toBe(0)
    expect(PERSONS).toBeGreaterThan(PAGE)
  })

  /** Creates an export, waits for its run to end, and answers it with its content. */
  const exported = async (body: Record<string, unknown>, prefix = "projects") => {
    const created = await send("POST", "/exports/", body, prefix)
    expect(created.status, created.text).toBe(201)
    expect(created.json).toMatchObject({ export_format: body["export_format"], exception: null })
    let asset = created.json
    const until = Date.now() + 120_000
    while (!asset.has_content && asset.exception === null && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      asset = (await send("GET", `/exports/${asset.id}/`, undefined, prefix)).json
    }
    expect(asset.exception).toBeNull()
    expect(asset.has_content).toBe(true)
    const response = await zed.handler(
      new Request(`http://zed.test/api/${prefix}/1/exports/${asset.id}/content/`, {
        headers: { authorization: `Bearer ${ADMIN_KEY}` }
      })
    )
    expect(response.status).toBe(200)
    const text = await response.text()
    expect(Number(response.headers.get("content-length"))).toBe(Buffer.byteLength(text))
    expect(asset.content_size).toBe(Buffer.byteLength(text))
    return { asset, text, headers: response.headers }
  }

  it("exports a ZedQL query's every row as CSV, page after page", async () => {
    const { asset, headers, text } = await exported({
      export_format: "text/csv",
      export_context: {
        query: {
          kind: "ZedQLQuery",
          query:
            "SELECT toInt(properties.n) AS n, properties.label AS label, distinct_id FROM events WHERE event = 'exported' ORDER BY timestamp"
        }
      }
    })
    expect(headers.get("content-type")).toContain("text/csv")
    expect(headers.get("content-disposition")).toContain(`filename="${asset.filename}"`)
    expect(asset.row_count).toBe(COUNT)
    expect(text).toBe(
      csv([["n", "label", "distinct_id"], ...EVENTS.map((e) => [e.properties.n, e.properties.label, e.distinct_id])])
    )
    expect(
      readCsv(text)
        .slice(1)
        .map((r) => Number(r[0]))
    ).toEqual(EVENTS.map((e) => e.properties.n))
  })

  it("keeps a query's own LIMIT and OFFSET, as JSON lines, under the environments prefix", async () => {
    const { asset, text } = await exported(
      {
        export_format: "application/jsonl",
        export_context: {
          query: {
            kind: "HogQLQuery",
            query:
              "SELECT distinct_id, toInt(properties.n) AS n FROM events WHERE event = {event} ORDER BY timestamp DESC LIMIT 15 OFFSET 3",
            values: { event: "exported" }
          }
        }
      },
      "environments"
    )
    const expected = [...EVENTS]
      .reverse()
      .slice(3, 18)
      .map((e) => ({ distinct_id: e.distinct_id, n: e.properties.n }))
    expect(asset.row_count).toBe(15)
    expect(
      text
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line))
    ).toEqual(expected)
  }, 60_000)

  it("exports an events table as a JSON array", async () => {
    const people = ["u7", "u8", "u9", "u10"]
    const { text } = await exported({
      export_format: "application/json",
      export_context: {
        query: {
          kind: "DataTableNode",
          source: {
            kind: "EventsQuery",
            select: ["event", "distinct_id", "toInt(properties.n)"],
            where: ["event = 'exported'", `distinct_id IN (${people.map((p) => `'${p}'`).join(", ")})`],
            orderBy: ["timestamp ASC"],
            after: DAYS[0]
          }
        }
      }
    })
    const expected = EVENTS.filter((e) => people.includes(e.distinct_id)).map((e) => ({
      event: e.event,
      distinct_id: e.distinct_id,
      "toInt(properties.n)": e.properties.n
    }))
    expect(expected.length).toBeGreaterThan(PAGE)
    expect(JSON.parse(text)).toEqual(expected)
  }, 60_000)

  it("exports an events table in its default order by keyset, newest first, ties included once", async () => {
    const people = ["u3", "u4", "u5"]
    const { asset, text } = await exported({
      export_format: "application/jsonl",
      export_context: {
        query: {
          kind: "EventsQuery",
          select: ["distinct_id", "toInt(properties.n)"],
          where: ["event = 'exported'", `distinct_id IN (${people.map((p) => `'${p}'`).join(", ")})`],
          after: DAYS[0]
        }
      }
    })
    const rows = text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line))
    const expected = EVENTS.filter((e) => people.includes(e.distinct_id))
      .reverse()
      .map((e) => ({ distinct_id: e.distinct_id, "toInt(properties.n)": e.properties.n }))
    expect(expected.length).toBeGreaterThan(PAGE)
    expect(asset.row_count).toBe(expected.length)
    expect(rows).toEqual(expected)

    const tied = await exported({
      export_format: "text/csv",
      export_context: {
        query: { kind: "EventsQuery", select: ["toInt(properties.n)"], where: ["event = 'tied'"], after: DAYS[0] }
      }
    })
    const ns = readCsv(tied.text)
      .slice(1)
      .map((r) => Number(r[0]))
    expect(ns.sort((a, b) => a - b)).toEqual(TIED.map((e) => e.properties.n))

    // A table that counts has no event to resume after: it is read by offset, every group once.
    const counted = await exported({
      export_format: "application/json",
      export_context: { query: { kind: "EventsQuery", select: ["event", "count()"], after: DAYS[0] } }
    })
    const counts = (JSON.parse(counted.text) as Array<{ event: string; "count()": number }>).sort((a, b) =>
      a.event.localeCompare(b.event)
    )
    expect(counts).toEqual([
      { event: "exported", "count()": COUNT },
      { event: "tied", "count()": TIED.length }
    ])
  })

  it("exports the persons list with its filters", async () => {
    const everyone = await exported({ export_format: "text/csv", export_context: { path: "/api/projects/1/persons/" } })
    const rows = readCsv(everyone.text)
    const header = rows[0]!
    expect(header.slice(0, 4)).toEqual(["id", "distinct_ids", "created_at", "is_identified"])
    expect(header).toEqual(expect.arrayContaining(["properties.email", "properties.plan"]))
    const email = header.indexOf("properties.email")
    const ids = (table: Array<Array<string>>) =>
      table
        .slice(1)
        .map((r) => JSON.parse(r[1]!)[0] as string)
        .sort()
    const all = Array.from({ length: PERSONS }, (_, p) => `u${p}`)
    expect(ids(rows)).toEqual([...all].sort())
    for (const row of rows.slice(1)) expect(row[email]).toBe(`${JSON.parse(row[1]!)[0]}@example.test`)

    const paid = await exported({
      export_format: "text/csv",
      export_context: {
        path: `/api/projects/1/persons/?properties=${encodeURIComponent(JSON.stringify([{ key: "plan", value: "paid", type: "person" }]))}`
      }
    })
    expect(ids(readCsv(paid.text))).toEqual(all.filter((_, p) => p % 2 === 1).sort())

    const searched = await exported({
      export_format: "application/jsonl",
      export_context: { path: "/api/environments/1/persons/?search=u1" }
    })
    const found = searched.text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line).distinct_ids[0])
      .sort()
    expect(found).toEqual(all.filter((id) => id.includes("u1")).sort())
  }, 120_000)

  it("exports an insight's result: a series a row, a count a day", async () => {
    const insight = await send("POST", "/insights/", {
      name: "Exported per day",
      query: {
        kind: "InsightVizNode",
        source: {
          kind: "TrendsQuery",
          series: [{ kind: "EventsNode", event: "exported" }],
          interval: "day",
          dateRange: { date_from: DAYS[0], date_to: DAYS.at(-1) }
        }
      }
    })
    expect(insight.status, insight.text).toBe(201)
    const { asset, text } = await exported({ export_format: "text/csv", insight: insight.json.id })
    expect(asset).toMatchObject({ insight: insight.json.id, filename: "Exported per day.csv" })
    const rows = readCsv(text)
    expect(rows).toHaveLength(2)
    expect(rows[0]).toHaveLength(DAYS.length + 1)
    const perDay = DAYS.map((day) => EVENTS.filter((e) => e.timestamp.startsWith(day)).length)
    expect(rows[1]!.slice(1).map(Number)).toEqual(perDay)
  }, 60_000)

  it("exports a ZedQL insight's rows", async () => {
    const insight = await send("POST", "/insights/", {
      name: "Per person",
      query: {
        kind: "DataVisualizationNode",
        source: {
          kind: "ZedQLQuery",
          query:
            "SELECT distinct_id, count() AS c FROM events WHERE event = 'exported' GROUP BY distinct_id ORDER BY distinct_id"
        }
      }
    })
    expect(insight.status, insight.text).toBe(201)
    const { text } = await exported({ export_format: "application/jsonl", insight: insight.json.id })
    const counts = new Map<string, number>()
    for (const e of EVENTS) counts.set(e.distinct_id, (counts.get(e.distinct_id) ?? 0) + 1)
    const expected = [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([distinct_id, c]) => ({ distinct_id, c }))
    expect(
      text
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line))
    ).toEqual(expected)
  }, 60_000)

  it("lists exports newest first", async () => {
    const res = await send("GET", "/exports/?limit=2")
    expect(res.status, res.text).toBe(200)
    expect(res.json.count).toBeGreaterThanOrEqual(8)
    expect(res.json.results).toHaveLength(2)
    expect(res.json.results[0].id).toBeGreaterThan(res.json.results[1].id)
  })

  it("refuses bad input with the field named", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ export_format: "text/csv", insight: 999_999 }, "insight"],
      [{ export_format: "image/bmp", insight: 1 }, "export_format"],
      [
        { export_format: "text/csv", export_context: { query: { kind: "ZedQLQuery", query: "SELEKT 1" } } },
        "export_context__query__query"
      ],
      [
        {
          export_format: "text/csv",
          export_context: { query: { kind: "ZedQLQuery", query: "SELECT nope FROM events" } }
        },
        "export_context__query__query"
      ],
      [{ export_format: "text/csv", export_context: { query: { kind: "Nonsense" } } }, "export_context__query__kind"],
      [{ export_format: "text/csv", export_context: { path: "/api/projects/1/insights/" } }, "export_context__path"],
      [
        { export_format: "text/csv", export_context: { path: "/api/projects/1/persons/?properties=nope" } },
        "export_context__path__properties"
      ],
      [{ export_format: "text/csv" }, "export_context"]
    ]
    for (const [body, attr] of cases) {
      const res = await send("POST", "/exports/", body)
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400)
      expect(res.json, JSON.stringify(body)).toMatchObject({ type: "validation_error", attr })
    }
    expect((await send("GET", "/exports/999999/")).status).toBe(404)
    expect((await send("GET", "/exports/999999/content/")).status).toBe(404)
  })
})
