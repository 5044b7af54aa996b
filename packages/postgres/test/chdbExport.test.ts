import { beforeAll, describe, expect, it } from "@effect/vitest"
import { ADMIN_KEY, importEvents, PROJECT_KEY, readCsv } from "../../core/test/support.js"
import { apiSuite } from "./apiSuite.js"

// An export of a ZedQL query of events ordered by time and uuid on chDB, read by keyset a small page
// at a time: every event once, in the order the store gives the same statement unpaged, and other
// requests answered while it runs (chDB's statements run off the event loop, each a page).

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
})
