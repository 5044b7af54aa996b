// Zed on chDB (ZED_EVENTS=chdb: events in chDB, metadata in PGlite) against Zed on the PostgreSQL
// server, over 10,000,000 demo events (BENCH_CH_EVENTS=n for a quicker run) with 42 days to
// 2026-03-02, the query benchmarks' generator scaled up.
//
// The data set is kept between runs, keyed by size, seed and end. Zed on PostgreSQL loads it through
// its own ingestion (loadDemoData: /batch/ requests of 1000 events, one at a time; about half an
// hour) into the database zed_bench_clickhouse_<key>. The same ingestion into chDB runs at under
// 1000 events/s (each request's person merges become a synchronous ALTER TABLE UPDATE of the
// events), so chDB's store, <tmpdir>/zed-bench-clickhouse/<key> (chdb/ and pgdata/), is filled
// from what Zed stored on PostgreSQL (servers/clickhouse.js, a few minutes). The server processes
// load whatever is missing on start; drop the database or remove the directory to load afresh.
//
// Ingest: events/s through /batch/ (bench/ingest.js's 100-event batches from 8 clients) into a fresh
// store of each kind, and a raw batched insert of the same rows into a fresh chDB store as baseline.
// Queries: three insights computed with `refresh=force_blocking` on both stores, interleaved.
import { fork } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { Agent } from "node:http"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"
import { DEFAULT_DEMO_DAYS } from "@zed/core"
import { normalizeEvent } from "../packages/core/dist/ingest/normalize.js"
import { temporaryDatabase } from "@zed/postgres"
import { shopEvent } from "./ingest.js"
import { postJson, record, startServer } from "./lib.js"
import { api, median, ms, timed, withClient } from "./queryData.js"

// queryData.js's `api` calls with this personal API key.
const KEY = "phx_benchmark_key_00000000000000000001"
const TOKEN = "phc_benchmark_project_token_0000000001"
export const EVENTS = Number(process.env.BENCH_CH_EVENTS ?? 10_000_000)
const SEED = 1
const END = "2026-03-02T00:00:00.000Z"
const TIMEZONE = "America/New_York"
const REPETITIONS = Number(process.env.BENCH_CH_REPETITIONS ?? 3)
const INGEST_EVENTS = Number(process.env.BENCH_CH_INGEST_EVENTS ?? 300_000)
const INGEST_BATCH = 100
const INGEST_CLIENTS = 8
const INGEST_ROUNDS = Number(process.env.BENCH_CH_INGEST_ROUNDS ?? 3)
const STORES = ["chDB", "PostgreSQL"]
const SERVER_URL = process.env.ZED_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const DATA_KEY = `${EVENTS}_s${SEED}_${END.slice(0, 10).replaceAll("-", "")}`
export const CHDB_DIR = join(tmpdir(), "zed-bench-clickhouse", DATA_KEY)
const DATABASE = `zed_bench_clickhouse_${DATA_KEY}`

/** The benchmark's own database on the PostgreSQL server, kept between runs. */
const postgresDatabase = async () => {
  await withClient(SERVER_URL, async (client) => {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [DATABASE])
    if (rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE}`)
  })
  const url = new URL(SERVER_URL)
  url.pathname = `/${DATABASE}`
  return url.toString()
}

const DATA_ENV = {
  BENCH_KEY: KEY,
  BENCH_TOKEN: TOKEN,
  BENCH_EVENTS: String(EVENTS),
  BENCH_SEED: String(SEED),
  BENCH_END: END,
  BENCH_TIMEZONE: TIMEZONE
}

/**
 * Zed over the data set on "chDB" or "PostgreSQL", in its own process, the data loaded first if
 * missing: through Zed's ingestion on PostgreSQL, copied from there on chDB (so load PostgreSQL first).
 */
export const startData = async (store) => {
  const databaseUrl = await postgresDatabase()
  if (store === "chDB")
    return startServer("./servers/clickhouse.js", [`chdb:${CHDB_DIR}`], { ...DATA_ENV, BENCH_COPY_FROM: databaseUrl })
  const server = await startServer("./servers/clickhouse.js", [`postgres:${databaseUrl}`], DATA_ENV)
  // Statistics as autovacuum would have them by now, whether or not the data was just loaded.
  await withClient(databaseUrl, (client) => client.query("VACUUM ANALYZE"))
  return server
}

// --- Ingest -------------------------------------------------------------------------------------

const ingestBatches = (start) =>
  Array.from({ length: INGEST_EVENTS / INGEST_BATCH }, (_, b) =>
    Array.from({ length: INGEST_BATCH }, (_, i) => shopEvent(b * INGEST_BATCH + i, start))
  )

/** A fresh store: "chdb:<dir>" or "postgres:<url>", and how to remove it. */
const freshPlace = async (store) => {
  if (store === "chDB") {
    const dir = mkdtempSync(join(tmpdir(), "zed-bench-ch-"))
    return { place: `chdb:${dir}`, dir, drop: async () => rmSync(dir, { recursive: true, force: true }) }
  }
  const db = await temporaryDatabase(SERVER_URL)
  return { place: `postgres:${db.url}`, drop: db.drop }
}

const rawSql = async (server, sql, params = [], timezone = "UTC") => {
  const response = await fetch(`${server.url}/__raw`, {
    method: "POST",
    body: JSON.stringify({ sql, params, timezone })
  })
  if (!response.ok) throw new Error(`raw SQL failed: ${await response.text()}`)
  return response.json()
}

/** Events/s through /batch/ into a fresh store, checked to be all stored. */
const zedIngest = async (store, batches) => {
  const { drop, place } = await freshPlace(store)
  const server = await startServer("./servers/clickhouse.js", [place], { BENCH_KEY: KEY, BENCH_TOKEN: TOKEN })
  try {
    const url = `${server.url}/batch/`
    const agent = new Agent({ keepAlive: true, maxSockets: INGEST_CLIENTS })
    const bodies = batches.map((batch) => JSON.stringify({ api_key: TOKEN, batch, sent_at: new Date().toISOString() }))
    // Warm up on events that are not counted.
    const warmUp = ingestBatches(Date.now() - 7_200_000).slice(0, 20)
    await Promise.all(warmUp.map((batch) => postJson(agent, url, JSON.stringify({ api_key: TOKEN, batch }))))
    let next = 0
    const started = performance.now()
    await Promise.all(
      Array.from({ length: INGEST_CLIENTS }, async () => {
        while (next < bodies.length) await postJson(agent, url, bodies[next++])
      })
    )
    const seconds = (performance.now() - started) / 1000
    agent.destroy()
    const stored = Number((await rawSql(server, "SELECT count(*) FROM events")).rows[0][0])
    const expected = INGEST_EVENTS + warmUp.length * INGEST_BATCH
    if (stored !== expected) throw new Error(`${store}: ${stored} events stored, not ${expected}`)
    return INGEST_EVENTS / seconds
  } finally {
    await server.close()
    await drop()
  }
}

/** The rows Zed's ClickHouse event store writes for these events (as it normalizes them). */
const chdbRows = (batches) => {
  const now = new Date()
  const context = { now, sentAt: now, ip: "127.0.0.1", historical: false, anonymizeIps: false, defaultEvent: undefined }
  const utc = (date) => date.toISOString().slice(0, 23).replace("T", " ")
  return batches.map((batch) =>
    batch.map((raw) => {
      const { event } = normalizeEvent(raw, context)
      return {
        project_id: 1,
        uuid: event.uuid,
        event: event.event,
        distinct_id: event.distinct_id,
        person_id: crypto.randomUUID(),
        properties: JSON.stringify(event.properties),
        timestamp: utc(event.timestamp),
        created_at: utc(event.received_at)
      }
    })
  )
}

/** Rows/s of the raw baseline (servers/chdbInsert.js) into a fresh chDB store. */
const rawIngest = async (rows) => {
  const { dir, drop } = await freshPlace("chDB")
  try {
    return await new Promise((resolve, reject) => {
      const child = fork(new URL("./servers/chdbInsert.js", import.meta.url), [dir], { stdio: "inherit" })
      child.on("message", (message) => {
        if (message.ready) child.send({ batches: rows })
        else {
          resolve(INGEST_EVENTS / message.seconds)
          child.kill()
        }
      })
      child.once(
        "exit",
        (code) => code !== 0 && code !== null && reject(new Error(`chDB raw insert exited with ${code}`))
      )
    })
  } finally {
    await drop()
  }
}

const ingest = async () => {
  const batches = ingestBatches(Date.now() - 3_600_000)
  const rows = chdbRows(batches)
  const runs = { raw: [], chDB: [], PostgreSQL: [] }
  // Two cores are shared by server, database and load: rounds alternate the stores, medians reported.
  for (let round = 0; round < INGEST_ROUNDS; round++) {
    runs.raw.push(await rawIngest(rows))
    for (const store of round % 2 ? [...STORES].reverse() : STORES) runs[store].push(await zedIngest(store, batches))
    console.error(
      `  ingest round ${round + 1}: ${Object.entries(runs)
        .map(([k, v]) => `${k} ${Math.round(v.at(-1))}/s`)
        .join(", ")}`
    )
  }
  return runs
}

// --- Queries ------------------------------------------------------------------------------------

// The data set ends on 2026-03-02 (UTC): its last 30 days in the project's time zone.
const DATE_RANGE = { date_from: "2026-01-31", date_to: "2026-03-01" }

const INSIGHTS = [
  {
    name: "Trend: daily active users, 30 days",
    targetMs: 500,
    query: {
      kind: "TrendsQuery",
      series: [{ kind: "EventsNode", event: "$pageview", math: "dau" }],
      interval: "day",
      dateRange: DATE_RANGE
    }
  },
  {
    name: "Funnel: $pageview → signed_up → document_created, 30 days",
    targetMs: 2000,
    query: {
      kind: "FunnelsQuery",
      series: ["$pageview", "signed_up", "document_created"].map((event) => ({ kind: "EventsNode", event })),
      dateRange: DATE_RANGE
    }
  },
  {
    name: "Retention: first $pageview → $pageview, 6 weeks",
    query: {
      kind: "RetentionQuery",
      dateRange: { date_to: "2026-03-01" },
      retentionFilter: {
        retentionType: "retention_first_time",
        period: "Week",
        totalIntervals: 6,
        targetEntity: { id: "$pageview", type: "events" },
        returningEntity: { id: "$pageview", type: "events" }
      }
    }
  }
]

/** A computation's milliseconds, or the error it answered (a timeout among them). */
const attempt = async (compute) => {
  try {
    const { ms, result } = await timed(compute)
    return { ms, result }
  } catch (error) {
    return { error: String(error.message ?? error).slice(0, 300) }
  }
}

/** Every number in an insight's result, in order: what two stores over the same data must agree on. */
const numbers = (value) =>
  typeof value === "number"
    ? [value]
    : value !== null && typeof value === "object"
      ? Object.values(value).flatMap(numbers)
      : []

const compile = async (server, zedql) => {
  const response = await fetch(`${server.url}/__compile`, { method: "POST", body: zedql })
  if (!response.ok) throw new Error(`compiling failed: ${await response.text()}`)
  return response.json()
}

/** Each statement of a chDB insight's plan, compiled as its runner compiles it and timed on its own. */
const profile = async (server, zedql) => {
  const statements = []
  for (const text of zedql.split(";\n")) {
    const { params, sql } = await compile(server, text)
    const runs = []
    for (let i = 0; i < REPETITIONS; i++) runs.push((await rawSql(server, sql, params, TIMEZONE)).ms)
    statements.push({ zedql: text, sql, params, ms: median(runs) })
  }
  return statements
}

const queries = async () => {
  const servers = {}
  // PostgreSQL first: chDB's data set is copied from it.
  for (const store of [...STORES].reverse()) {
    console.error(`  starting Zed on ${store} (loads the data set if missing)`)
    servers[store] = await startData(store)
  }
  try {
    const results = []
    for (const insight of INSIGHTS) {
      const entry = { insight, stores: {} }
      for (const store of STORES) {
        const server = servers[store]
        const { id } = await api(server, "POST", "/api/projects/1/insights/", {
          name: insight.name,
          query: { kind: "InsightVizNode", source: insight.query }
        })
        const compute = () => api(server, "GET", `/api/projects/1/insights/${id}/?refresh=force_blocking`)
        const first = await attempt(compute)
        entry.stores[store] = { compute, first, runs: [], zedql: first.result?.zedql }
        console.error(`  ${insight.name} on ${store}: first ${first.error ?? `${ms(first.ms)} ms`}`)
      }
      // Interleaved, in both orders by turns, so drift and caches favour neither store.
      for (let round = 0; round < REPETITIONS; round++) {
        for (const store of round % 2 ? [...STORES].reverse() : STORES) {
          const s = entry.stores[store]
          if (s.first.error !== undefined || s.error !== undefined) continue
          const next = await attempt(s.compute)
          if (next.error !== undefined) s.error = next.error
          else s.runs.push(next.ms)
        }
      }
      for (const store of STORES) {
        const s = entry.stores[store]
        s.error ??= s.first.error
        if (s.error === undefined) s.median = median(s.runs)
        console.error(`  ${insight.name} on ${store}: ${s.error ?? `median ${ms(s.median)} ms`}`)
      }
      const [c, p] = STORES.map((store) => entry.stores[store].first.result?.result)
      entry.agree =
        c !== undefined && p !== undefined ? JSON.stringify(numbers(c)) === JSON.stringify(numbers(p)) : undefined
      const chdb = entry.stores.chDB
      if (chdb.zedql !== undefined) chdb.statements = await attempt(() => profile(servers.chDB, chdb.zedql))
      results.push(entry)
    }
    return results
  } finally {
    for (const server of Object.values(servers)) await server.close()
  }
}

// --- Report ------------------------------------------------------------------------------------

const rate = (values) => Math.round(median(values))
const cell = (s) =>
  s.error !== undefined
    ? `failed: ${s.error.replaceAll("|", "\\|").slice(0, 120)}`
    : `${ms(s.median)} (${ms(s.first.ms)})`

const report = (ingestRuns, results) => {
  const chdbRate = median(ingestRuns.chDB)
  const pgRate = median(ingestRuns.PostgreSQL)
  const rawRate = median(ingestRuns.raw)
  const lines = [
    `Run: ${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpus()[0].model.trim()}, Node ${process.version}; chDB (ZED_EVENTS=chdb, PGlite metadata) and the local PostgreSQL server.`,
    "",
    `Ingest: ${INGEST_EVENTS} events in requests of ${INGEST_BATCH} from ${INGEST_CLIENTS} concurrent clients into a fresh store, ${INGEST_ROUNDS} rounds alternating, medians.`,
    "",
    "| Into | events/s | the runs | vs. Zed on PostgreSQL |",
    "|---|---:|---|---:|",
    `| Zed \`/batch/\` on chDB | ${Math.round(chdbRate)} | ${ingestRuns.chDB.map(Math.round).join(", ")} | ${(chdbRate / pgRate).toFixed(2)} |`,
    `| Zed \`/batch/\` on PostgreSQL | ${Math.round(pgRate)} | ${ingestRuns.PostgreSQL.map(Math.round).join(", ")} | 1.00 |`,
    `| raw chDB insert of 100-row batches (baseline) | ${rate(ingestRuns.raw)} | ${ingestRuns.raw.map(Math.round).join(", ")} | ${(rawRate / pgRate).toFixed(2)} |`,
    "",
    `Zed on chDB / raw chDB insert: ${(chdbRate / rawRate).toFixed(2)}.`,
    "",
    `Insights: ${EVENTS} demo events (seed ${SEED}, ${DEFAULT_DEMO_DAYS} days to ${END.slice(0, 10)}), project time zone ${TIMEZONE}; \`refresh=force_blocking\`, median of ${REPETITIONS} runs in ms, first (cold) run in brackets, stores interleaved.`,
    "",
    "| Insight | chDB ms (first) | PostgreSQL ms (first) | chDB / PostgreSQL | chDB target | met | same result |",
    "|---|---:|---:|---:|---:|---|---|",
    ...results.map(({ agree, insight, stores }) => {
      const c = stores.chDB
      const p = stores.PostgreSQL
      const ratio = c.error === undefined && p.error === undefined ? (c.median / p.median).toFixed(3) : "–"
      const target = insight.targetMs === undefined ? "–" : `< ${insight.targetMs}`
      const met =
        insight.targetMs === undefined
          ? "–"
          : c.error !== undefined
            ? "no (fails)"
            : c.median < insight.targetMs
              ? "yes"
              : "no"
      return `| ${insight.name} | ${cell(c)} | ${cell(p)} | ${ratio} | ${target} | ${met} | ${agree === undefined ? "–" : agree ? "yes" : "no"} |`
    })
  ]
  const profiled = results.filter(({ stores }) => stores.chDB.statements?.result !== undefined)
  if (profiled.length > 0) {
    lines.push(
      "",
      "chDB, each statement of an insight's plan run on its own through the store's executor (median ms):",
      "",
      "| Insight | statement | ms |",
      "|---|---|---:|"
    )
    for (const { insight, stores } of profiled) {
      for (const [i, st] of stores.chDB.statements.result.entries())
        lines.push(`| ${insight.name} | ${i + 1} of ${stores.chDB.statements.result.length} | ${ms(st.ms)} |`)
    }
  }
  return lines.join("\n")
}

export const run = async () => {
  console.error(`clickhouse bench: ${EVENTS} events; ingest ${INGEST_ROUNDS} × ${INGEST_EVENTS} events per store`)
  const only = process.env.BENCH_CH_PARTS ?? "ingest,queries"
  const ingestRuns = only.includes("ingest") ? await ingest() : { raw: [NaN], chDB: [NaN], PostgreSQL: [NaN] }
  const results = only.includes("queries") ? await queries() : []
  // The compiled ClickHouse SQL, for profiling: printed, not recorded.
  for (const { insight, stores } of results) {
    for (const st of stores.chDB.statements?.result ?? [])
      console.error(`\n-- ${insight.name} (${ms(st.ms)} ms)\n${st.sql}\n-- params ${JSON.stringify(st.params)}`)
  }
  const markdown = report(ingestRuns, results)
  if (only === "ingest,queries") record("clickhouse", markdown)
  return markdown
}
