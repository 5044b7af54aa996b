// A large export on the store streams with bounded memory: Zed over the clickhouse bench's data set
// (10,000,000 events, BENCH_CH_EVENTS=n for a quicker run; kept between runs, see clickhouse.js) on
// chDB and on the PostgreSQL server (BENCH_EXPORT_STORES to choose), exporting every event as CSV
// (`…/exports/`, a ZedQL query ordered by timestamp and uuid), then downloading the file. The server
// process's resident memory (/proc/<pid>/status VmRSS) is sampled twice a second from before the
// export until the download ends: bounded means the peak stays near the idle figure whatever the
// number of rows, as the export holds a page of rows and the download a chunk. `/_health` is asked
// twice a second meanwhile: its slowest answer shows whether the export holds the event loop.
// Baseline: chDB writing the same rows, in the same order, to a file itself (one INTO OUTFILE
// statement in a process of its own, bench/servers/chdbExport.js), its RSS sampled the same way.
import { fork } from "node:child_process"
import { readFileSync } from "node:fs"
import { CHDB_DIR, startData } from "./clickhouse.js"
import { record } from "./lib.js"

const KEY = "phx_benchmark_key_00000000000000000001"
const STORES = (process.env.BENCH_EXPORT_STORES ?? "PostgreSQL,chDB").split(",")
const COLUMNS = "uuid, event, distinct_id, timestamp, properties"
const QUERY = `SELECT ${COLUMNS} FROM events ORDER BY timestamp, uuid`

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const mb = (kb) => Math.round(kb / 1024)
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const rss = (pid) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1])

const api = async (server, method, path, body) => {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
  return response.json()
}

/** One export of every event and its download, with the server's RSS sampled throughout. */
const measure = async (server, store) => {
  // chDB's first statements are slow (its warm-up) and hold the process: not the export's cost.
  for (let i = 0; i < 2; i++)
    await api(server, "POST", "/api/projects/1/query/", {
      query: { kind: "ZedQLQuery", query: `${QUERY} LIMIT 1` },
      refresh: "force_blocking"
    })
  const idle = []
  for (let i = 0; i < 6; i++) {
    idle.push(rss(server.pid))
    await sleep(500)
  }
  const samples = [rss(server.pid)]
  const timer = setInterval(() => samples.push(rss(server.pid)), 500)
  let slowest = 0
  const probe = setInterval(async () => {
    const asked = performance.now()
    const response = await fetch(`${server.url}/_health`).catch(() => null)
    if (response !== null) await response.arrayBuffer()
    slowest = Math.max(slowest, performance.now() - asked)
  }, 500)
  try {
    const started = performance.now()
    let asset = await api(server, "POST", "/api/projects/1/exports/", {
      export_format: "text/csv",
      export_context: { query: { kind: "ZedQLQuery", query: QUERY } }
    })
    while (!asset.has_content && asset.exception === null) {
      await sleep(500)
      asset = await api(server, "GET", `/api/projects/1/exports/${asset.id}/`)
    }
    if (asset.exception !== null) throw new Error(`the export failed: ${asset.exception}`)
    const exported = performance.now()
    const response = await fetch(`${server.url}/api/projects/1/exports/${asset.id}/content/`, {
      headers: { authorization: `Bearer ${KEY}` }
    })
    let bytes = 0
    for await (const chunk of response.body) bytes += chunk.length
    if (bytes !== asset.content_size) throw new Error(`downloaded ${bytes} bytes of ${asset.content_size}`)
    const downloaded = performance.now()
    return {
      store,
      rows: asset.row_count,
      megabytes: asset.content_size / 1024 / 1024,
      exportSeconds: (exported - started) / 1000,
      downloadSeconds: (downloaded - exported) / 1000,
      idleMb: mb(median(idle)),
      peakMb: mb(Math.max(...samples)),
      healthMs: slowest
    }
  } finally {
    clearInterval(timer)
    clearInterval(probe)
  }
}

/** The baseline: chDB alone writing the rows to a file, with its process's RSS sampled. */
const baseline = () =>
  new Promise((resolve, reject) => {
    const child = fork(new URL("./servers/chdbExport.js", import.meta.url), [CHDB_DIR], { stdio: "inherit" })
    const samples = []
    let timer
    child.once("exit", (code) => reject(new Error(`chdbExport.js exited with ${code}`)))
    child.on("message", async (message) => {
      if (message.ready) {
        const idle = []
        for (let i = 0; i < 6; i++) {
          idle.push(rss(child.pid))
          await sleep(500)
        }
        samples.push(rss(child.pid))
        timer = setInterval(() => samples.push(rss(child.pid)), 500)
        child.idle = mb(median(idle))
        child.send({ columns: COLUMNS })
        return
      }
      clearInterval(timer)
      child.disconnect()
      resolve({
        store: "chDB alone (INTO OUTFILE)",
        rows: message.rows,
        exportSeconds: message.seconds,
        idleMb: child.idle,
        peakMb: mb(Math.max(...samples))
      })
    })
  })

export const run = async () => {
  const results = []
  // PostgreSQL first: chDB's data set is copied from its database (clickhouse.js).
  for (const store of STORES) {
    const server = await startData(store)
    try {
      results.push(await measure(server, store))
    } finally {
      await server.close()
    }
  }
  if (STORES.includes("chDB")) results.push(await baseline())
  const markdown = [
    `Every event exported as CSV (\`${QUERY}\`), then downloaded; RSS of the server process.`,
    "",
    "| Store | Rows | File | Export | Rows/s | Download | RSS idle | RSS peak | Slowest `/_health` |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...results.map(
      (r) =>
        `| ${r.store} | ${r.rows.toLocaleString("en")} | ${r.megabytes === undefined ? "" : `${r.megabytes.toFixed(0)} MB`} | ${r.exportSeconds.toFixed(1)} s | ${Math.round(r.rows / r.exportSeconds).toLocaleString("en")} | ${r.downloadSeconds === undefined ? "" : `${r.downloadSeconds.toFixed(1)} s`} | ${r.idleMb} MB | ${r.peakMb} MB | ${r.healthMs === undefined ? "" : `${Math.round(r.healthMs)} ms`} |`
    )
  ].join("\n")
  record("exports", markdown)
  return markdown
}
