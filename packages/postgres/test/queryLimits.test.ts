import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { ADMIN_KEY, call, issueKey, postQuery, PROJECT_KEY, zedqlRequest } from "../../core/test/support.js"
import { postgresStorage, temporaryDatabase } from "../src/index.js"
import { TEST_SERVER_URL } from "./server.js"

// Queries running at once are limited per project and per personal API key: one more is refused
// with 429 and Retry-After at once, however it was asked for (blocking or in the background), and
// a place given back (a query ended or cancelled) is free again.

const RUNAWAY =
  "SELECT count() FROM (SELECT arrayJoin(range(1000000)) AS a) AS x CROSS JOIN (SELECT arrayJoin(range(1000000)) AS b) AS y"

let zed: Zed
let drop: () => Promise<void> = async () => {}

beforeAll(async () => {
  const db = await temporaryDatabase(TEST_SERVER_URL)
  drop = db.drop
  zed = await createZed({
    storage: postgresStorage({ url: db.url }),
    bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY },
    limits: { concurrentQueries: { perProject: 3, perKey: 2 } }
  })
})

afterAll(async () => {
  await zed?.close()
  await drop()
})

const cancel = (id: string, key = ADMIN_KEY) => call(zed, `/api/environments/1/query/${id}/`, { method: "DELETE", key })

const expectThrottled = (answer: Awaited<ReturnType<typeof postQuery>>, what: string) => {
  expect(answer.status, JSON.stringify(answer.json)).toBe(429)
  expect(answer.headers.get("retry-after")).toBe("1")
  expect(answer.json).toMatchObject({ type: "throttled_error", code: "throttled", attr: null })
  expect(answer.json.detail).toContain(what)
}

describe("queries running at once", () => {
  it("are limited per key and per project, with 429 and Retry-After, and free again when they end", async () => {
    const other = await issueKey(zed, ["query:read"])
    const background = (id: string, key = ADMIN_KEY) =>
      postQuery(zed, 1, zedqlRequest(RUNAWAY, { refresh: "force_async", client_query_id: id }), key)
    expect((await background("a1")).status).toBe(202)
    expect((await background("a2")).status).toBe(202)
    // The key is at its limit, in the background and blocking alike.
    expectThrottled(await background("a3"), "API key")
    expectThrottled(await postQuery(zed, 1, zedqlRequest("SELECT 1", { refresh: "force_blocking" })), "API key")
    // Another key still has room, until the project is at its limit.
    expect((await background("b1", other)).status).toBe(202)
    expectThrottled(await background("b2", other), "project")

    for (const [id, key] of [
      ["a1", ADMIN_KEY],
      ["a2", ADMIN_KEY],
      ["b1", other]
    ] as const)
      expect((await cancel(id, key)).status).toBe(204)
    // Places come back as the cancelled runs end.
    let answer = await postQuery(zed, 1, zedqlRequest("SELECT 1", { refresh: "force_blocking" }))
    for (let i = 0; answer.status === 429 && i < 50; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      answer = await postQuery(zed, 1, zedqlRequest("SELECT 1", { refresh: "force_blocking" }))
    }
    expect(answer.status).toBe(200)
    expect(answer.json.results).toEqual([[1]])
  })
})
