// The query benchmarks' data set and stores, shared by bench/query.js and bench/insights.js: 1,000,000
// demo events (BENCH_QUERY_EVENTS=n for a quicker run) loaded through Zed's /batch/ once per store and
// kept between runs, keyed by size, seed and end: in the database zed_bench_query_<key> on the
// PostgreSQL server, and in <tmpdir>/zed-bench-query/<key> for PGlite. The server process
// (servers/query.js) counts the stored events on start and loads whatever is missing (two to four
// minutes for a million); drop the database or remove the directory to load afresh. "chDB" (for
// bench/dashboards.js) is Zed with ZED_EVENTS=chdb (servers/clickhouse.js) in
// <tmpdir>/zed-bench-query-chdb/<key>, filled by copying what Zed stored on the PostgreSQL server
// (loaded there first when missing), as bench/clickhouse.js fills its own.
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"
import { DEFAULT_DEMO_DAYS } from "@zed/core"
import pg from "pg"
import { startServer } from "./lib.js"

export const KEY = "phx_benchmark_key_00000000000000000001"
const TOKEN = "phc_benchmark_project_token_0000000001"
export const EVENTS = Number(process.env.BENCH_QUERY_EVENTS ?? 1_000_000)
const SEED = 1
const END = "2026-03-02T00:00:00.000Z"
export const TIMEZONE = "America/New_York"
export const REPETITIONS = Number(process.env.BENCH_QUERY_REPETITIONS ?? 5)
const SERVER_URL = process.env.ZED_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const DATA_KEY = `${EVENTS}_s${SEED}_${END.slice(0, 10).replaceAll("-", "")}`

export const STORES = (process.env.BENCH_STORES ?? "PostgreSQL server,PGlite").split(",")

/** The run's line for a results table: date, machine, data set, repetitions, stores. */
export const runLine = (how, stores = STORES) =>
  `Run: ${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpus()[0].model.trim()}, Node ${process.version}; ${EVENTS} demo events (seed ${SEED}, ${DEFAULT_DEMO_DAYS} days to ${END.slice(0, 10)}), project time zone ${TIMEZONE}; median of ${REPETITIONS} runs each, ${how}; ${stores.join(" and ")}.`

/** A `pg` client on `url` for the length of `use`. */
export const withClient = async (url, use) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await use(client)
  } finally {
    await client.end()
  }
}

/** The benchmark's own database on the PostgreSQL server, kept between runs. */
const postgresDatabase = async () => {
  const name = `zed_bench_query_${DATA_KEY}`
  await withClient(SERVER_URL, async (client) => {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])
    if (rowCount === 0) await client.query(`CREATE DATABASE ${name}`)
  })
  const url = new URL(SERVER_URL)
  url.pathname = `/${name}`
  return url.toString()
}

/** Zed over the data set on `store`, in its own process, the data loaded first if missing. */
export const start = async (store) => {
  const env = {
    BENCH_KEY: KEY,
    BENCH_TOKEN: TOKEN,
    BENCH_EVENTS: String(EVENTS),
    BENCH_SEED: String(SEED),
    BENCH_END: END,
    BENCH_TIMEZONE: TIMEZONE
  }
  if (store === "PGlite")
    return startServer("./servers/query.js", [`pglite:${join(tmpdir(), "zed-bench-query", DATA_KEY)}`], env)
  if (store === "chDB") {
    const loader = await start("PostgreSQL server")
    await loader.close()
    const dir = join(tmpdir(), "zed-bench-query-chdb", DATA_KEY)
    return startServer("./servers/clickhouse.js", [`chdb:${dir}`], { ...env, BENCH_COPY_FROM: loader.databaseUrl })
  }
  const databaseUrl = await postgresDatabase()
  const server = await startServer("./servers/query.js", [`postgres:${databaseUrl}`], env)
  // Statistics as autovacuum would have them by now, whether or not the data was just loaded.
  await withClient(databaseUrl, (client) => client.query("VACUUM ANALYZE"))
  return { ...server, databaseUrl }
}

/**
 * Runs SQL (with `$n` parameters) outside Zed's query API: on the server with a client of its own,
 * on PGlite in Zed's process (the only one that may open it), through the store's executor.
 */
export const rawRunner = async (store, server) => {
  if (store === "PGlite") {
    return {
      query: async (sql, params = []) => {
        const response = await fetch(`${server.url}/__raw`, { method: "POST", body: JSON.stringify({ sql, params }) })
        if (!response.ok) throw new Error(`raw SQL failed: ${await response.text()}`)
        return response.json()
      },
      close: async () => {}
    }
  }
  const client = new pg.Client({
    connectionString: server.databaseUrl,
    types: {
      getTypeParser: (oid, format) =>
        oid === 20 || oid === 1700 ? Number : oid === 1082 ? String : pg.types.getTypeParser(oid, format)
    }
  })
  await client.connect()
  await client.query(`SET TimeZone = '${TIMEZONE}'`)
  return {
    query: async (sql, params = []) => (await client.query({ text: sql, values: params, rowMode: "array" })).rows,
    close: () => client.end()
  }
}

/** A call to Zed's HTTP API with the benchmark's personal API key; non-2xx answers throw. */
export const api = async (server, method, path, body) => {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const json = await response.json()
  if (!response.ok) throw new Error(`${method} ${path}: Zed answered ${response.status}: ${JSON.stringify(json)}`)
  return json
}

export const timed = async (work) => {
  const started = performance.now()
  const result = await work()
  return { ms: performance.now() - started, result }
}

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

export const ms = (value) => (value >= 100 ? Math.round(value).toString() : value.toFixed(1))
