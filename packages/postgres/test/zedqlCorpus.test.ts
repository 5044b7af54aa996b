import { describe, expect, it } from "@effect/vitest"
import { demoEvents } from "@zed/core"
import { CASES } from "./corpus/cases/index.js"
import { demoModel } from "./corpus/model.js"
import { closeTo } from "./corpus/rows.js"
import { demoZed } from "./demoZed.js"

// ZedQL against the demo data, through the query API, on both SQL stores: each query's result must
// be what the generated events say (worked out in ./corpus without Zed), in a project whose time
// zone changes to daylight saving time (8 March 2026) inside the data's four weeks.

const TIME_ZONE = "America/New_York"
const DEMO = { events: 6000, seed: 5, end: new Date("2026-03-20T00:00:00.000Z"), days: 28 }

const model = demoModel([...demoEvents(DEMO)], TIME_ZONE)

it("has the clocks change inside the data, and at least 60 queries", () => {
  const offset = (ms: number) => model.tz.wall(ms).offsetMinutes
  expect([offset(model.events[0]!.ms), offset(model.events.at(-1)!.ms)]).toEqual([-300, -240])
  expect(CASES.length).toBeGreaterThanOrEqual(60)
})

describe.each(["pglite", "postgres", "chdb"])("the ZedQL corpus on %s", (name) => {
  const { request } = demoZed(name, DEMO, TIME_ZONE)

  it.each(CASES)("$name", async (c) => {
    const now = Date.now()
    const text = typeof c.query === "string" ? c.query : c.query(now, model)
    const { json, status } = await request("POST", "/api/environments/1/query/", {
      query: { kind: "ZedQLQuery", query: text }
    })
    expect(status, JSON.stringify(json)).toBe(200)
    const expected = c.expected(model, now)
    // Each expectation must say something: no case may pass on empty results.
    expect(expected.length).toBeGreaterThan(0)
    if (!closeTo(json.results, expected)) expect(json.results).toEqual(expected)
    if (c.columns !== undefined) expect(json.columns).toEqual(c.columns)
    if (c.hasMore !== undefined) expect(json.hasMore).toBe(c.hasMore)
  })
})
