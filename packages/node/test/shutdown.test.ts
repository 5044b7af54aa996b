import { randomUUID } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { Agent, request } from "node:http"
import { connect, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { api, startZed } from "./processes.js"

// `zed serve` told to stop (SIGTERM) while clients keep it busy: keep-alive capture load from
// several clients, a query that would run for minutes, a request whose body never finishes and a
// socket that never sends anything. It exits 0 within the grace period (and the moment closing
// storage takes), and every batch it acknowledged is stored exactly once.

const GRACE_MS = 4_000
const CLIENTS = 4
const RUNAWAY =
  "SELECT count() FROM (SELECT arrayJoin(range(1000000)) AS a) AS x CROSS JOIN (SELECT arrayJoin(range(1000000)) AS b) AS y"

const dataDir = mkdtempSync(join(tmpdir(), "zed-shutdown-"))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

interface Answer {
  readonly status: number
  readonly connection: string | undefined
  readonly body: string
}

const post = (agent: Agent, url: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  new Promise<Answer>((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      { method: "POST", agent, headers: { "content-type": "application/json", ...headers } },
      (res) => {
        let text = ""
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => (text += chunk))
        res.on("end", () => resolve({ status: res.statusCode!, connection: res.headers.connection, body: text }))
        res.on("error", reject)
      }
    )
    req.on("error", reject)
    req.end(JSON.stringify(body))
  })

/** One client sending batches on one keep-alive connection until the server will take no more. */
const client = async (url: string, token: string, acknowledged: Array<string>, answers: Array<Answer>) => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  try {
    for (;;) {
      const batch = Array.from({ length: 10 }, () => ({ event: "load", distinct_id: "shutdown", uuid: randomUUID() }))
      const answer = await post(agent, url, "/batch/", { api_key: token, batch })
      answers.push(answer)
      if (answer.status === 200) acknowledged.push(...batch.map((e) => e.uuid))
    }
  } catch {
    // refused or cut: the server is going away
  } finally {
    agent.destroy()
  }
}

const opened = (url: string) =>
  new Promise<Socket>((resolve, reject) => {
    const { hostname, port } = new URL(url)
    const socket = connect(Number(port), hostname, () => resolve(socket))
    socket.on("error", reject)
  })

describe("zed serve on SIGTERM", () => {
  it("drains keep-alive clients, stops the running query, cuts what hangs at the grace period, exits 0, and keeps every acknowledged batch once", async () => {
    const env = { ZED_DATA_DIR: dataDir, ZED_SHUTDOWN_GRACE_MS: String(GRACE_MS) }
    const zed = await startZed(env)
    const credentials = JSON.parse(readFileSync(join(dataDir, "credentials.json"), "utf8"))
    const acknowledged: Array<string> = []
    const answers: Array<Answer> = []
    const load = Array.from({ length: CLIENTS }, () =>
      client(zed.url, credentials.project_api_key, acknowledged, answers)
    )
    await new Promise((resolve) => setTimeout(resolve, 500))

    const query = post(
      new Agent(),
      zed.url,
      "/api/projects/1/query/",
      { query: { kind: "ZedQLQuery", query: RUNAWAY }, refresh: "force_blocking" },
      {
        authorization: `Bearer ${credentials.personal_api_key}`
      }
    ).catch((error: Error) => error)
    const idle = await opened(zed.url)
    const halfSent = await opened(zed.url)
    halfSent.write(
      `POST /batch/ HTTP/1.1\r\nHost: zed\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n{"api_key": "`
    )
    const cut = Promise.all([idle, halfSent].map((socket) => new Promise((resolve) => socket.once("close", resolve))))
    await new Promise((resolve) => setTimeout(resolve, 1_000))

    const stopping = Date.now()
    const code = await zed.stop()
    const took = Date.now() - stopping
    expect(code, zed.output()).toBe(0)
    expect(took).toBeLessThan(GRACE_MS + 3_000)
    await cut
    await Promise.all(load)
    // The query was stopped, not left to run: 503, or no answer if it was cut with its connection.
    const queried = await query
    if (!(queried instanceof Error)) expect(queried.status, queried.body).toBe(503)
    // Requests answered during the shutdown were told to close their connection.
    expect(answers.length).toBeGreaterThan(0)
    expect(answers.filter((a) => a.connection === "close").length).toBeGreaterThan(0)
    expect(acknowledged.length).toBeGreaterThan(0)

    const again = await startZed(env)
    try {
      const stored = await api(`${again.url}/api/projects/1/query/`, credentials.personal_api_key, {
        method: "POST",
        body: JSON.stringify({
          query: {
            kind: "ZedQLQuery",
            query: "SELECT toString(uuid), count() FROM events WHERE event = 'load' GROUP BY uuid LIMIT 50000"
          }
        })
      })
      expect(stored.status).toBe(200)
      const counts = new Map((stored.json.results as Array<[string, number]>).map(([uuid, count]) => [uuid, count]))
      for (const uuid of acknowledged) expect(counts.get(uuid), uuid).toBe(1)
    } finally {
      expect(await again.stop()).toBe(0)
    }
  }, 60_000)
})
