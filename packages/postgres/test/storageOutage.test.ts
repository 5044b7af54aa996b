import { randomUUID } from "node:crypto"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { pgliteStorage, postgresStorage, temporaryDatabase } from "../src/index.js"
import { TEST_SERVER_URL } from "./server.js"
import { type TcpProxy, tcpProxy } from "./tcpProxy.js"

// Zed on a PostgreSQL server that stops answering (frozen: connections held, nothing forwarded) or
// goes away (connections cut and refused), through a TCP proxy the test controls: every request
// answers within the storage time limit, a 503 with Retry-After where storage was needed, flags
// answer what they can and say what they could not, and once the server is back everything works
// and every acknowledged event is stored once. Readiness (/_readyz) says so too: 503 with the reason
// while storage does not take writes (frozen, down, read-only), 200 again once it does; on PGlite, a statement holding the one
// session past the storage time limit makes the instance not ready until it ends.

const PROJECT_KEY = "phc_storage_outage_project_00001"
const ADMIN_KEY = "phx_storage_outage_personal_0001"
const LIMIT_MS = 1_000

let zed: Zed
let proxy: TcpProxy
let drop: () => Promise<void> = async () => {}
let database = ""

beforeAll(async () => {
  const db = await temporaryDatabase(TEST_SERVER_URL)
  drop = db.drop
  database = new URL(db.url).pathname.slice(1)
  const server = new URL(TEST_SERVER_URL)
  proxy = await tcpProxy({ host: server.hostname, port: Number(server.port || 5432) })
  const url = new URL(db.url)
  url.port = String(proxy.port)
  zed = await createZed({
    storage: postgresStorage({ url: url.toString() }),
    bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY },
    limits: { storageTimeoutMs: LIMIT_MS }
  })
})

afterAll(async () => {
  proxy?.up()
  await zed?.close()
  await proxy?.close()
  await drop()
})

const send = async (path: string, init: RequestInit & { readonly key?: boolean } = {}, on: Zed = zed) => {
  const started = Date.now()
  const res = await on.handler(
    new Request(`http://zed.test${path}`, {
      ...init,
      headers: { "content-type": "application/json", ...(init.key ? { authorization: `Bearer ${ADMIN_KEY}` } : {}) }
    })
  )
  const text = await res.text()
  return {
    status: res.status,
    headers: res.headers,
    json: text === "" ? undefined : JSON.parse(text),
    ms: Date.now() - started
  }
}

const capture = (events: ReadonlyArray<Record<string, unknown>>) =>
  send("/batch/", { method: "POST", body: JSON.stringify({ api_key: PROJECT_KEY, batch: events }) })

const flags = (distinctId: string) =>
  send("/flags/?v=2", { method: "POST", body: JSON.stringify({ token: PROJECT_KEY, distinct_id: distinctId }) })

const event = (distinctId: string, props: Record<string, unknown> = {}) => ({
  event: "outage",
  distinct_id: distinctId,
  uuid: randomUUID(),
  properties: props
})

/** /_readyz once it answers `status`: its probe's answer is kept a second, and a probe takes up to the time limit. */
const readiness = async (status: number, on: Zed = zed, withinMs = LIMIT_MS + 5_000) => {
  const deadline = Date.now() + withinMs
  let answer = await send("/_readyz", {}, on)
  while (answer.status !== status && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    answer = await send("/_readyz", {}, on)
  }
  expect(answer.status, JSON.stringify(answer.json)).toBe(status)
  expect(answer.ms).toBeLessThan(LIMIT_MS + 2_000)
  if (status === 503) expect(answer.headers.get("retry-after")).toMatch(/^\d+$/)
  return answer.json
}

/** What a request that needed storage must answer while it is unavailable. */
const expectUnavailable = (answer: Awaited<ReturnType<typeof send>>) => {
  expect(answer.status, JSON.stringify(answer.json)).toBe(503)
  expect(answer.headers.get("retry-after")).toMatch(/^\d+$/)
  expect(answer.json).toMatchObject({ type: "server_error", code: "storage_unavailable", attr: null })
  expect(answer.ms).toBeLessThan(LIMIT_MS + 2_000)
}

describe("a PostgreSQL server that stops answering, then comes back", () => {
  it("answers 503 within the time limit, flags honestly, and loses no acknowledged event", async () => {
    const acknowledged: Array<string> = []
    const ack = async (events: ReadonlyArray<ReturnType<typeof event>>) => {
      const answer = await capture(events)
      if (answer.status === 200) acknowledged.push(...events.map((e) => e.uuid))
      return answer
    }
    await send("/api/projects/1/feature_flags/", {
      method: "POST",
      key: true,
      body: JSON.stringify({
        key: "pro",
        filters: { groups: [{ properties: [{ key: "plan", type: "person", value: "pro" }] }] }
      })
    })
    await send("/api/projects/1/feature_flags/", {
      method: "POST",
      key: true,
      body: JSON.stringify({ key: "everyone", filters: { groups: [{ rollout_percentage: 100 }] } })
    })
    expect((await ack([event("known", { $set: { plan: "pro" } }), event("known")])).status).toBe(200)
    expect((await flags("known")).json.flags.pro.enabled).toBe(true)
    expect(await readiness(200)).toEqual({ status: "ready" })

    const why = { freeze: "storage_timeout", down: "storage_unreachable" } as const
    for (const outage of ["freeze", "down"] as const) {
      proxy[outage]()
      expect(await readiness(503)).toMatchObject({ type: "server_error", code: why[outage], attr: null })
      expectUnavailable(await ack([event(`during-${outage}`)]))
      expectUnavailable(await send("/api/projects/1/persons/", { key: true }))
      expectUnavailable(
        await send("/api/projects/1/query/", {
          method: "POST",
          key: true,
          body: JSON.stringify({ query: { kind: "ZedQLQuery", query: "SELECT count() FROM events" } })
        })
      )
      // What this instance knows, it answers; a flag on a person it cannot read is reported failed,
      // so SDKs keep their last value for it rather than turning it off.
      const stranger = await flags(`stranger-${outage}`)
      expect(stranger.status).toBe(200)
      expect(stranger.json.errorsWhileComputingFlags).toBe(true)
      expect(stranger.json.flags.pro).toMatchObject({ enabled: false, failed: true })
      expect(stranger.json.flags.everyone).toMatchObject({ enabled: true })
      expect(stranger.ms).toBeLessThan(LIMIT_MS + 2_000)
      // A known person's flag is either answered right or reported failed, never turned off.
      const known = (await flags("known")).json.flags.pro
      expect(known.enabled || known.failed).toBe(true)
      // An unknown project key cannot be told from a known one without storage: 503, not 401.
      expectUnavailable(
        await send("/flags/?v=2", {
          method: "POST",
          body: JSON.stringify({ token: "phc_never_seen_before_000000000001", distinct_id: "x" })
        })
      )
      expect((await send("/_health")).status).toBe(200)

      proxy.up()
      // Back: writes work again (allowing the pool a moment to replace its connections).
      let back = await ack([event(`after-${outage}`)])
      for (let i = 0; back.status !== 200 && i < 20; i++) {
        await new Promise((resolve) => setTimeout(resolve, 250))
        back = await ack([event(`after-${outage}`)])
      }
      expect(back.status).toBe(200)
      expect(await readiness(200)).toEqual({ status: "ready" })
    }

    // Every acknowledged event is stored exactly once.
    const stored = await send("/api/projects/1/query/", {
      method: "POST",
      key: true,
      body: JSON.stringify({
        query: { kind: "ZedQLQuery", query: "SELECT uuid, count() FROM events WHERE event = 'outage' GROUP BY uuid" }
      })
    })
    expect(stored.status).toBe(200)
    const counts = new Map((stored.json.results as Array<[string, number]>).map(([uuid, count]) => [uuid, count]))
    for (const uuid of acknowledged) expect(counts.get(uuid), uuid).toBe(1)
  })
})

describe("a PostgreSQL database that turns read-only", () => {
  /** Runs `statement` on the server directly, then drops Zed's connections so that new ones see it. */
  const onServer = async (statement: string) => {
    const client = new pg.Client({ connectionString: TEST_SERVER_URL })
    await client.connect()
    try {
      await client.query(statement)
      await client.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'zed'",
        [database]
      )
    } finally {
      await client.end()
    }
  }

  it("is not ready, saying so, until it takes writes again", async () => {
    expect(await readiness(200)).toEqual({ status: "ready" })
    await onServer(`ALTER DATABASE "${database}" SET default_transaction_read_only = on`)
    try {
      // The first probe after the connections were dropped may find them gone; the next one reconnects.
      const deadline = Date.now() + 10_000
      let answer = await send("/_readyz")
      while (answer.json?.code !== "storage_read_only" && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200))
        answer = await send("/_readyz")
      }
      expect(answer.status).toBe(503)
      expect(answer.json).toMatchObject({ type: "server_error", code: "storage_read_only", attr: null })
    } finally {
      await onServer(`ALTER DATABASE "${database}" RESET default_transaction_read_only`)
    }
    expect(await readiness(200)).toEqual({ status: "ready" })
  })
})

describe("PGlite whose one session a long statement holds", () => {
  it("is not ready while a statement runs past the storage time limit, and ready once it ends", async () => {
    const pglite = await createZed({
      storage: pgliteStorage(),
      bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY },
      limits: { storageTimeoutMs: LIMIT_MS }
    })
    try {
      expect(await readiness(200, pglite)).toEqual({ status: "ready" })
      // A few seconds of work for the one session; meanwhile even a small write waits for it.
      const slow =
        "SELECT count() FROM (SELECT arrayJoin(range(6000)) AS a) AS x CROSS JOIN (SELECT arrayJoin(range(6000)) AS b) AS y"
      const query = send(
        "/api/projects/1/query/",
        {
          method: "POST",
          key: true,
          body: JSON.stringify({ query: { kind: "ZedQLQuery", query: slow }, refresh: "force_blocking" })
        },
        pglite
      )
      expect(await readiness(503, pglite)).toMatchObject({ code: "storage_timeout" })
      expect((await query).status).toBe(200)
      expect(await readiness(200, pglite, 2_000)).toEqual({ status: "ready" })
    } finally {
      await pglite.close()
    }
  })
})
