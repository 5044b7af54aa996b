// Resident memory of `zed serve` (packages/node/bin/zed.js, as users start it) on PGlite and on the
// PostgreSQL server: idle after start, during a steady mixed load, and idle after it. The load, paced
// so that every store and every version of Zed sees the same one: /batch/ capture at a fixed event
// rate, /decide at a fixed request rate, a ZedQL query and an insight computed every few seconds
// (both `force_blocking`, never from the result cache). RSS (/proc/<pid>/status VmRSS, worker threads
// included) is sampled twice a second; VmHWM is the peak the kernel saw. The baseline, in the same
// run: a bare node process holding the same store (PGlite opened on the data directory Zed wrote,
// with Zed's settings; a `pg` pool on the database) after a count of its events. This file is also
// that process's entry point (`node bench/memory.js bare <pglite:dir|postgres:url>`).
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { Agent } from "node:http"
import { cpus, tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { shopEvent } from "./ingest.js"
import { apiCall, postJson, record, storePlaces } from "./lib.js"

const TOKEN = "phc_benchmark_project_token_0000000001"
const KEY = "phx_benchmark_key_00000000000000000001"
const SERVER_URL = process.env.ZED_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const SECONDS = Number(process.env.BENCH_MEMORY_SECONDS ?? 60)
/** Captured events per second, in batches of BATCH from CAPTURE_CLIENTS clients. */
const EVENT_RATE = 4000
const BATCH = 100
const CAPTURE_CLIENTS = 4
const DECIDE_RATE = 200
const QUERY_EVERY = 3_000
const INSIGHT_EVERY = 5_000
/** Target: PGlite's steady median under this many megabytes. */
const TARGET_MB = 400
const ZED = fileURLToPath(new URL("../packages/node/bin/zed.js", import.meta.url))
const SELF = fileURLToPath(import.meta.url)

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const mb = (kb) => Math.round(kb / 1024)
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** VmRSS and VmHWM of a process, in kB. */
const status = (pid) => {
  const text = readFileSync(`/proc/${pid}/status`, "utf8")
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(text)[1])
  return { rss: field("VmRSS"), hwm: field("VmHWM") }
}

/** Samples a process's RSS every 500 ms until the returned function is called; it answers the samples. */
const sampling = (pid) => {
  const samples = [status(pid).rss]
  const timer = setInterval(() => samples.push(status(pid).rss), 500)
  return () => {
    clearInterval(timer)
    return samples
  }
}

/** Samples for `ms` and answers the median, in kB. */
const idle = async (pid, ms = 5_000) => {
  const stop = sampling(pid)
  await sleep(ms)
  return median(stop())
}

/** Starts `command` (an executable, or this node with a script) and waits for the line `ready`
 * matches on its stdout (answers the match). */
const startProcess = ([command, ...args], env, ready) =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"]
    })
    const exited = new Promise((done) => child.once("exit", done))
    let out = ""
    const onData = (chunk) => {
      out += chunk
      const match = ready.exec(out)
      if (match === null) return
      child.stdout.off("data", onData)
      child.stdout.resume()
      resolve({ pid: child.pid, match, stop: () => (child.kill("SIGTERM"), exited) })
    }
    child.stdout.on("data", onData)
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited with ${code}: ${out}`)))
  })

/** Calls `step` every `ms` until `until()`; a slow step delays the next, never piles up. */
const paced = async (ms, until, step) => {
  let next = performance.now()
  while (!until()) {
    await step()
    next += ms
    const wait = next - performance.now()
    if (wait > 0) await sleep(wait)
    else next = performance.now()
  }
}

const INSIGHT = {
  name: "Daily active users by browser",
  query: {
    kind: "InsightVizNode",
    source: {
      kind: "TrendsQuery",
      series: [{ kind: "EventsNode", event: "$pageview", math: "dau" }],
      interval: "day",
      dateFilter: { date_from: "-7d" },
      breakdownFilter: { breakdown_type: "event", breakdown: "$browser" }
    }
  }
}
const FLAGS = [
  { key: "half", filters: { groups: [{ properties: [], rollout_percentage: 50 }] } },
  {
    key: "pro",
    filters: { groups: [{ properties: [{ key: "plan", type: "person", operator: "exact", value: "pro" }] }] }
  },
  {
    key: "three-way",
    filters: {
      groups: [{ properties: [] }],
      multivariate: { variants: ["a", "b", "c"].map((key, i) => ({ key, rollout_percentage: i === 2 ? 34 : 33 })) }
    }
  }
]

/** The steady mixed load for SECONDS; answers what it sent. */
const mixedLoad = async (server, insightId) => {
  const agent = new Agent({ keepAlive: true, maxSockets: CAPTURE_CLIENTS + 2 })
  const end = performance.now() + SECONDS * 1000
  const over = () => performance.now() >= end
  const sent = { events: 0, decides: 0, queries: 0, insights: 0 }
  const start = Date.now() - 3_600_000
  let n = 0
  const capture = () =>
    paced((1000 * BATCH * CAPTURE_CLIENTS) / EVENT_RATE, over, async () => {
      const batch = Array.from({ length: BATCH }, () => shopEvent(n++, start))
      await postJson(
        agent,
        `${server.url}/batch/`,
        JSON.stringify({ api_key: TOKEN, batch, sent_at: new Date().toISOString() })
      )
      sent.events += BATCH
    })
  // Two paced clients, so that one slow answer does not hold the rate back.
  const decide = () =>
    paced(2000 / DECIDE_RATE, over, async () => {
      const body = JSON.stringify({ token: TOKEN, distinct_id: `user-${sent.decides % 2000}` })
      const response = await fetch(`${server.url}/decide/?v=3`, {
        method: "POST",
        body,
        headers: { "content-type": "application/json" }
      })
      if (!response.ok) throw new Error(`/decide answered ${response.status}`)
      await response.json()
      sent.decides++
    })
  const query = () =>
    paced(QUERY_EVERY, over, async () => {
      // A different text each time: never a cached parse or result.
      const zedql = `select properties.$browser as browser, count() as c, count(distinct person_id) as people from events where event = '$pageview' and properties.price > ${sent.queries % 50} group by browser order by c desc limit 100`
      await apiCall(server, KEY, "POST", "/api/environments/1/query/", {
        query: { kind: "ZedQLQuery", query: zedql },
        refresh: "force_blocking"
      })
      sent.queries++
    })
  const insight = () =>
    paced(INSIGHT_EVERY, over, async () => {
      await apiCall(server, KEY, "GET", `/api/projects/1/insights/${insightId}/?refresh=force_blocking`)
      sent.insights++
    })
  const started = performance.now()
  await Promise.all([...Array.from({ length: CAPTURE_CLIENTS }, capture), decide(), decide(), query(), insight()])
  const seconds = (performance.now() - started) / 1000
  agent.destroy()
  return { eventsPerSecond: sent.events / seconds, decidesPerSecond: sent.decides / seconds, ...sent }
}

/** Zed on one store: idle after start, steady under load, idle after; in kB. */
const measureZed = async (place, dataDir) => {
  const server = await startProcess(
    // Run as an executable, as `npx zed serve` does: its first line passes node the flags Zed wants.
    [ZED, "serve"],
    {
      PORT: "0",
      HOST: "127.0.0.1",
      ZED_DATA_DIR: dataDir,
      ZED_PROJECT_API_KEY: TOKEN,
      ZED_PERSONAL_API_KEY: KEY,
      // Unset (undefined), a DATABASE_URL in the caller's environment would select PostgreSQL.
      DATABASE_URL: place.startsWith("postgres:") ? place.slice("postgres:".length) : undefined
    },
    /listening on (http:\/\/\S+)/
  )
  try {
    const target = { url: server.match[1] }
    await sleep(2_000)
    const idleAfterStart = await idle(server.pid)
    for (const flag of FLAGS) await apiCall(target, KEY, "POST", "/api/projects/1/feature_flags/", flag)
    const { id } = await apiCall(target, KEY, "POST", "/api/projects/1/insights/", INSIGHT)
    const stop = sampling(server.pid)
    const load = await mixedLoad(target, id)
    const steady = stop()
    await sleep(10_000)
    const after = await idle(server.pid)
    return {
      idleAfterStart,
      steadyMedian: median(steady),
      steadyMax: Math.max(...steady),
      after,
      hwm: status(server.pid).hwm,
      load
    }
  } finally {
    await server.stop()
  }
}

/** The bare store in a process of its own, after counting its events: its RSS, in kB. */
const measureBare = async (place) => {
  const bare = await startProcess([process.execPath, SELF, "bare", place], {}, /ready/)
  try {
    return await idle(bare.pid)
  } finally {
    await bare.stop()
  }
}

/** The baseline's process: the store alone, as Zed opens it. */
const bare = async (place) => {
  const [kind, ...rest] = place.split(":")
  const where = rest.join(":")
  if (kind === "pglite") {
    const { PGlite } = await import("@electric-sql/pglite")
    const { pgliteOptions } = await import("../packages/postgres/dist/pgliteOptions.js")
    const db = await PGlite.create(where, pgliteOptions)
    await db.query("select count(*) from events")
    process.on("SIGTERM", () => void db.close().then(() => process.exit(0)))
  } else {
    const { default: pg } = await import("pg")
    const pool = new pg.Pool({ connectionString: where })
    await pool.query("select count(*) from events")
    process.on("SIGTERM", () => void pool.end().then(() => process.exit(0)))
  }
  console.log("ready")
}

export const run = async () => {
  const rows = []
  for (const store of (process.env.BENCH_STORES ?? "PGlite,PostgreSQL server").split(",")) {
    const { cleanup, place } = storePlaces(store, SERVER_URL)
    const cleanups = [cleanup]
    try {
      const where = await place()
      // `zed serve` keeps PGlite in <ZED_DATA_DIR>/pgdata, which is what storePlaces answers; on
      // PostgreSQL the directory only receives the credentials file.
      const dataDir =
        store === "PGlite" ? dirname(where.slice("pglite:".length)) : mkdtempSync(join(tmpdir(), "zed-bench-memory-"))
      if (store !== "PGlite") cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }))
      const zed = await measureZed(where, dataDir)
      rows.push({ store, zed, bare: await measureBare(where) })
    } finally {
      for (const clean of cleanups) await clean()
    }
  }
  const met = (row) => (row.store !== "PGlite" ? "–" : mb(row.zed.steadyMedian) < TARGET_MB ? "met" : "**missed**")
  const table = [
    `Run: ${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpus()[0].model.trim()}, Node ${process.version}; \`zed serve\` in its own process, RSS sampled every 0.5 s; idle: 5 s from 2 s after start; steady: ${SECONDS} s of ${EVENT_RATE} events/s through \`/batch/\` (${CAPTURE_CLIENTS} clients, ${BATCH} per request), ${DECIDE_RATE} \`/decide\`/s, a ZedQL query every ${QUERY_EVERY / 1000} s and an insight every ${INSIGHT_EVERY / 1000} s; after: 5 s from 10 s after the load. Target on PGlite: steady median under ${TARGET_MB} MB.`,
    "",
    "| Store | idle after start | steady median | steady max | peak (VmHWM) | idle after | load achieved | bare store process | target |",
    "|---|---:|---:|---:|---:|---:|---|---:|---|",
    ...rows.map(
      ({ store, zed, bare }) =>
        `| ${store} | ${mb(zed.idleAfterStart)} MB | ${mb(zed.steadyMedian)} MB | ${mb(zed.steadyMax)} MB | ${mb(zed.hwm)} MB | ${mb(zed.after)} MB | ${Math.round(zed.load.eventsPerSecond)} events/s, ${Math.round(zed.load.decidesPerSecond)} decides/s, ${zed.load.queries} queries, ${zed.load.insights} insights | ${mb(bare)} MB | ${met({ store, zed })} |`
    ),
    "",
    "The PostgreSQL server's own processes are not counted in either column."
  ].join("\n")
  record("memory", table)
  return table
}

const main = process.argv[1] !== undefined && resolve(process.argv[1]) === SELF
if (main && process.argv[2] === "bare") await bare(process.argv[3])
else if (main) console.log(await run())
