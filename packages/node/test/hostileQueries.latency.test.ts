import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { Agent, request } from "node:http"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { api, type Started, startZed } from "./processes.js"

// Queries built to hurt the grammar's parser (deep nesting it recurses through until its memory
// breaks, nestings whose parse time explodes) sent to `zed serve` while capture and flag requests
// run at a steady rate: the parser works off the request thread and within its limits, so those
// requests keep their latency, the hostile queries get 400s naming the limit, and the next query
// and a saved insight work as before.

const PROJECT_KEY = "phc_hostile_queries_project_00001"
const PERSONAL_KEY = "phx_hostile_queries_personal_0001"

const HOSTILE = [
  `SELECT ${"[".repeat(300)}1${"]".repeat(300)}`,
  `SELECT ${Array(1000).fill("1").join("+")}`,
  `SELECT ${"NOT ".repeat(300)}1`,
  `SELECT ${"(".repeat(20)}1${")".repeat(20)}`,
  `SELECT ${"(".repeat(25)}1${")".repeat(25)}`,
  `SELECT ${"abs(".repeat(300)}1${")".repeat(300)}`,
  `SELECT ${"(".repeat(1000)}1${")".repeat(1000)}`,
  `SELECT ${"abs(".repeat(40)}1${")".repeat(40)}`
]

let zed: Started
let dir: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "zed-hostile-"))
  zed = await startZed({ ZED_DATA_DIR: dir, ZED_PROJECT_API_KEY: PROJECT_KEY, ZED_PERSONAL_API_KEY: PERSONAL_KEY })
})

afterAll(async () => {
  await zed?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const query = (text: string) =>
  api(`${zed.url}/api/projects/1/query/`, PERSONAL_KEY, {
    method: "POST",
    body: JSON.stringify({ query: { kind: "ZedQLQuery", query: text } })
  })

const STEADY = [
  { path: "/i/v0/e/", body: JSON.stringify({ api_key: PROJECT_KEY, event: "steady", distinct_id: "steady-user" }) },
  { path: "/flags/?v=2", body: JSON.stringify({ token: PROJECT_KEY, distinct_id: "steady-user" }) }
]

/** p99 latency of capture and flag requests, alternating, at 200 a second (a rate the machine keeps up with). */
const steadyP99 = async (seconds: number) => {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 })
  const latencies: Array<number> = []
  const send = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const { body, path } = STEADY[i % STEADY.length]!
      const started = performance.now()
      const req = request(
        `${zed.url}${path}`,
        { method: "POST", agent, headers: { "content-type": "application/json" } },
        (res) => {
          res.resume()
          res.on("end", () => {
            latencies.push(performance.now() - started)
            res.statusCode === 200 ? resolve() : reject(new Error(`${path}: ${res.statusCode}`))
          })
        }
      )
      req.on("error", reject)
      req.end(body)
    })
  const sent: Array<Promise<void>> = []
  for (let i = 0; i < seconds * 200; i++) {
    sent.push(send(i))
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  await Promise.all(sent)
  agent.destroy()
  const sorted = latencies.sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length * 0.99)]!
}

describe("hostile ZedQL against zed serve under steady capture and flag traffic", () => {
  it("is refused off the request thread: capture and flags keep their latency, later queries and insights work", async () => {
    await api(`${zed.url}/api/projects/1/feature_flags/`, PERSONAL_KEY, {
      method: "POST",
      body: JSON.stringify({ key: "steady", filters: { groups: [{ rollout_percentage: 50 }] } })
    })
    const insight = await api(`${zed.url}/api/projects/1/insights/`, PERSONAL_KEY, {
      method: "POST",
      body: JSON.stringify({
        name: "Steady events",
        query: {
          kind: "InsightVizNode",
          source: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "steady" }] }
        }
      })
    })
    expect(insight.status).toBe(201)
    // Warm up, then the latency without hostile queries, before and after (the machine's own
    // drift counts as unloaded), and with them.
    await steadyP99(2)
    const before = await steadyP99(4)
    const during = steadyP99(4)
    const answers = await Promise.all(HOSTILE.map(query))
    const loaded = await during
    const unloaded = Math.max(before, await steadyP99(4))
    expect(loaded).toBeLessThanOrEqual(2 * Math.max(unloaded, 1))

    for (const answer of answers) {
      // Refused as over a limit, refused by the grammar, or (what parses in time) answered: never a server error.
      expect(answer.status, JSON.stringify(answer.json)).toBeLessThan(500)
      if (answer.status === 400) expect(answer.json.code).toMatch(/^query_too_(long|deep|large|complex)$|^zedql_/)
    }
    // Nested past the bracket limit: refused before any parsing.
    for (const i of [0, 5, 6]) expect(answers[i]!.json.code).toBe("query_too_deep")
    const next = await query("SELECT 2")
    expect(next.status).toBe(200)
    expect(next.json.results).toEqual([[2]])
    const computed = await api(`${zed.url}/api/projects/1/insights/${insight.json.id}/?refresh=blocking`, PERSONAL_KEY)
    expect(computed.status).toBe(200)
    expect(computed.json.result[0].count).toBeGreaterThan(0)
  })
})
