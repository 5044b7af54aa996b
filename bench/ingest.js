// Sustained ingest through /batch/ (100-event batches from concurrent clients), against a raw
// batched insert of the same rows into the same store, measured in one run, on PGlite and on the
// PostgreSQL server.
import { fork } from "node:child_process"
import { randomUUID } from "node:crypto"
import { cpus } from "node:os"
import { uuidv7 } from "@zed/core/storage"
import { normalizeEvent } from "../packages/core/dist/ingest/normalize.js"
import { Agent } from "node:http"
import { postJson, record, startServer, storePlaces } from "./lib.js"

const TOKEN = "phc_benchmark_project_token_0000000001"
const KEY = "phx_benchmark_key_00000000000000000001"
const BATCH = 100
const BATCHES = 1500
const CLIENTS = 8
export const USERS = 2000
const SERVER_URL = process.env.ZED_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"

/** The n-th of a stream of events shaped like posthog-js's, from `start`: browser properties, a URL, a session; a tenth carry person updates. */
export const shopEvent = (n, start) => ({
  // Time-ordered, as posthog-js and posthog-node make them.
  uuid: uuidv7(start + n * 10),
  event: n % 10 === 0 ? "signed_up" : "$pageview",
  distinct_id: `user-${(n * 7919) % USERS}`,
  timestamp: new Date(start + n * 10).toISOString(),
  properties: {
    $current_url: `https://shop.example/products/${n % 500}`,
    $pathname: `/products/${n % 500}`,
    $browser: n % 3 ? "Chrome" : "Firefox",
    $browser_version: 120 + (n % 5),
    $os: n % 2 ? "Mac OS X" : "Windows",
    $device_type: "Desktop",
    $lib: "web",
    $lib_version: "1.434.18",
    $session_id: `session-${Math.floor(n / 20)}`,
    $window_id: `window-${Math.floor(n / 20)}`,
    $referring_domain: "$direct",
    price: (n % 100) * 1.5,
    ...(n % 10 === 0 ? { $set: { plan: n % 20 ? "free" : "pro", last_signup: n } } : {})
  }
})

export const makeBatches = () => {
  const start = Date.now() - 3_600_000
  return Array.from({ length: BATCHES }, (_, b) =>
    Array.from({ length: BATCH }, (_, i) => shopEvent(b * BATCH + i, start))
  )
}

const zedRun = async (storage, batches) => {
  const server = await startServer("./servers/zed.js", [storage], { BENCH_KEY: KEY, BENCH_TOKEN: TOKEN })
  const url = `${server.url}/batch/`
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS })
  const bodies = batches.map((batch) => JSON.stringify({ api_key: TOKEN, batch, sent_at: new Date().toISOString() }))
  // Warm up on events that are not counted.
  await Promise.all(
    makeBatches()
      .slice(0, 20)
      .map((batch) => postJson(agent, url, JSON.stringify({ api_key: TOKEN, batch })))
  )
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < bodies.length) await postJson(agent, url, bodies[next++])
    })
  )
  const seconds = (performance.now() - started) / 1000
  agent.destroy()
  server.stop()
  return (BATCHES * BATCH) / seconds
}

// The baseline stores the rows Zed stores: the same events as Zed normalizes them.
const storedRows = (batches) => {
  const now = new Date()
  const context = { now, sentAt: now, ip: "127.0.0.1", historical: false, anonymizeIps: false, defaultEvent: undefined }
  return batches.map((batch) =>
    batch.map((raw) => {
      const { event } = normalizeEvent(raw, context)
      return {
        ...event,
        person_id: randomUUID(),
        created_at: event.received_at.toISOString(),
        timestamp: event.timestamp.toISOString()
      }
    })
  )
}

const rawRun = (storage, batches) =>
  new Promise((resolve, reject) => {
    const child = fork(new URL("./servers/rawInsert.js", import.meta.url), [storage], { stdio: "inherit" })
    const rows = storedRows(batches)
    child.on("message", (message) => {
      if (message.ready) child.send({ batches: rows })
      else {
        resolve((BATCHES * BATCH) / message.seconds)
        child.kill()
      }
    })
    child.once("exit", (code) => code !== 0 && code !== null && reject(new Error(`raw insert exited with ${code}`)))
  })

export const run = async () => {
  const batches = makeBatches()
  const rows = []
  for (const store of (process.env.BENCH_STORES ?? "PGlite,PostgreSQL server").split(",")) {
    const { cleanup, place } = storePlaces(store, SERVER_URL)
    // Two cores are shared by the server, the database and the load: each pair is measured three
    // times, alternating, and the median ratio reported.
    const pairs = []
    for (let round = 0; round < 3; round++) {
      const raw = await rawRun(await place(), batches)
      const zed = await zedRun(await place(), batches)
      pairs.push({ zed, raw, ratio: zed / raw })
    }
    await cleanup()
    const median = pairs.sort((a, b) => a.ratio - b.ratio)[1]
    rows.push([store, median.zed, median.raw, pairs.map((p) => p.ratio.toFixed(2))])
  }
  const table = [
    `Run: ${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpus()[0].model.trim()}, Node ${process.version}; ${BATCHES * BATCH} events in ${BATCHES} requests of ${BATCH} per run, ${CLIENTS} concurrent clients, ${USERS} distinct users; on-disk PGlite and a fresh database on the local PostgreSQL 15.`,
    "",
    "| Store | Zed `/batch/` events/s | raw INSERT of 100-row batches, rows/s | Zed / raw (median) | the three runs |",
    "|---|---:|---:|---:|---|",
    ...rows.map(
      ([store, zed, raw, ratios]) =>
        `| ${store} | ${Math.round(zed)} | ${Math.round(raw)} | ${(zed / raw).toFixed(2)} | ${ratios.join(", ")} |`
    )
  ].join("\n")
  record("ingest", table)
  return table
}
