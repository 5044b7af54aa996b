import { beforeAll, describe, expect, it } from "@effect/vitest"
import { EXPORT_CHUNK_BYTES, ExportStore } from "@zed/core/storage"
import { Effect, Option } from "effect"
import { ADMIN_KEY, importEvents, PROJECT_KEY, readCsv } from "../../core/test/support.js"
import { apiSuite } from "./apiSuite.js"

// An export of a ZedQL query of events ordered by time and uuid on chDB, read by keyset a small page
// at a time: every event once, in the order the store gives the same statement unpaged, and other
// requests answered while it runs (chDB's statements run off the event loop, each a page). A page
// of wide rows is stored in chunks of EXPORT_CHUNK_BYTES, the last shorter (the store's writes stay short).

const MINUTE = 60_000
const START = Date.UTC(2025, 6, 1)
const COUNT = 2000
/** Rows an export reads at a time, here: not a multiple of the events a moment, so ties cross pages. */
const PAGE = 40
const TIES = 3
const QUERY = "SELECT toInt(properties.n) AS n, toString(uuid) AS id FROM events ORDER BY timestamp, uuid"

// Three events a minute: event i at minute ⌊i / 3⌋.
const at = (i: number) => START + Math.floor(i / TIES) * MINUTE
const EVENTS = Array.from({ length: COUNT }, (_, i) => ({
  event: "exported",
  distinct_id: `u${i % 50}`,
  timestamp: new Date(at(i)).toISOString(),
  properties: { n: i }
}))

describe("chDB export of ten thousand pages' worth, scaled down", () => {
  const suite = apiSuite("chdb-export", "chdb", { exportPageRows: PAGE })
  const { send } = suite

  beforeAll(async () => {
    await importEvents(suite.zed, PROJECT_KEY, EVENTS)
  })

  it("exports every event once, in the store's order, by keyset, answering other requests meanwhile", async () => {
    const unpaged = await send("POST", "/query/", {
      query: { kind: "ZedQLQuery", query: `${QUERY} LIMIT ${COUNT + 1}` },
      refresh: "force_blocking"
    })
    expect(unpaged.status, unpaged.text).toBe(200)
    const expected = (unpaged.json.results as Array<[number, string]>).map(([n, id]) => [String(n), id])
    expect(expected).toHaveLength(COUNT)

    const created = await send("POST", "/exports/", {
      export_format: "text/csv",
      export_context: { query: { kind: "ZedQLQuery", query: QUERY } }
    })
    expect(created.status, created.text).toBe(201)
    let asset = created.json
    // Health checks while the export runs, each followed by a look at the export's state.
    let answeredDuring = 0
    const until = Date.now() + 120_000
    while (!asset.has_content && asset.exception === null && Date.now() < until) {
      const health = await suite.zed.handler(new Request("http://zed.test/_health"))
      expect(health.status).toBe(200)
      asset = (await send("GET", `/exports/${asset.id}/`)).json
      if (!asset.has_content && asset.exception === null) answeredDuring++
    }
    expect(asset.exception).toBeNull()
    expect(asset.has_content).toBe(true)
    expect(answeredDuring).toBeGreaterThan(0)
    expect(asset.row_count).toBe(COUNT)

    const response = await suite.zed.handler(
      new Request(`http://zed.test/api/projects/1/exports/${asset.id}/content/`, {
        headers: { authorization: `Bearer ${ADMIN_KEY}` }
      })
    )
    const rows = readCsv(await response.text())
    expect(rows[0]).toEqual(["n", "id"])
    const body = rows.slice(1)
    expect(body).toEqual(expected)
    // Each event once, and in time order (the test's own times for each event).
    expect(new Set(body.map((r) => r[1])).size).toBe(COUNT)
    expect(body.map((r) => Number(r[0])).sort((a, b) => a - b)).toEqual(EVENTS.map((_, i) => i))
    const times = body.map((r) => at(Number(r[0])))
    expect(times).toEqual([...times].sort((a, b) => a - b))
  })
  it("stores pages of wide rows in chunks of EXPORT_CHUNK_BYTES, the last shorter, the file whole", async () => {
    const WIDE = 100
    const PAD = 9000
    // Forty rows of 9 kB a page: each page more than a chunk.
    expect(PAGE * PAD).toBeGreaterThan(EXPORT_CHUNK_BYTES)
    const created = await send("POST", "/exports/", {
      export_format: "text/csv",
      export_context: {
        query: {
          kind: "ZedQLQuery",
          query: `SELECT toInt(properties.n) AS n, repeat('x', ${PAD}) AS pad FROM events WHERE toInt(properties.n) < ${WIDE} ORDER BY timestamp, uuid`
        }
      }
    })
    expect(created.status, created.text).toBe(201)
    let asset = created.json
    const until = Date.now() + 60_000
    while (!asset.has_content && asset.exception === null && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      asset = (await send("GET", `/exports/${asset.id}/`)).json
    }
    expect(asset.has_content).toBe(true)
    const chunks: Array<Uint8Array> = []
    for (;;) {
      const chunk = await suite.zed.run(Effect.flatMap(ExportStore, (store) => store.chunk(asset.id, chunks.length)))
      if (Option.isNone(chunk)) break
      chunks.push(chunk.value)
    }
    expect(chunks.length).toBeGreaterThan(2)
    expect(chunks.slice(0, -1).map((c) => c.length)).toEqual(chunks.slice(0, -1).map(() => EXPORT_CHUNK_BYTES))
    expect(chunks.at(-1)!.length).toBeLessThanOrEqual(EXPORT_CHUNK_BYTES)
    const text = Buffer.concat(chunks).toString("utf8")
    expect(text.length).toBe(asset.content_size)
    const rows = readCsv(text)
    expect(rows[0]).toEqual(["n", "pad"])
    // Every row whole (the order within a moment is the uuids', checked above).
    expect(
      rows
        .slice(1)
        .map((r) => [Number(r[0]), r[1]!.length])
        .sort((a, b) => a[0]! - b[0]!)
    ).toEqual(EVENTS.map((_, i) => [i, PAD]).filter(([i]) => i! < WIDE))
  })
})
