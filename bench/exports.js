// A large export on the store streams with bounded memory: Zed over the clickhouse bench's data set
// (10,000,000 events, BENCH_CH_EVENTS=n for a quicker run; kept between runs, see clickhouse.js) on
// chDB and on the PostgreSQL server (BENCH_EXPORT_STORES to choose), exporting every event as CSV
// (`…/exports/`, a ZedQL query ordered by timestamp and uuid), then downloading the file. The server
// process's resident memory (/proc/<pid>/status VmRSS) is sampled twice a second from before the
// export until the download ends: bounded means the peak stays near the idle figure whatever the
// number of rows, as the export holds a page of rows and the download a chunk.
import { readFileSync } from "node:fs"
import { startData } from "./clickhouse.js"
import { record } from "./lib.js"

const KEY = "phx_benchmark_key_00000000000000000001"
const STORES = (process.env.BENCH_EXPORT_STORES ?? "PostgreSQL,chDB").split(",")
const QUERY = "SELECT uuid, event, distinct_id, timestamp, properties FROM events ORDER BY timestamp, uuid"

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
      peakMb: mb(Math.max(...samples))
    }
  } finally {
    clearInterval(timer)
  }
}

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
  const markdown = [
    `Every event exported as CSV (\`${QUERY}\`), then downloaded; RSS of the server process.`,
    "",
    "| Store | Rows | File | Export | Rows/s | Download | RSS idle | RSS peak |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
    ...results.map(
      (r) =>
        `| ${r.store} | ${r.rows.toLocaleString("en")} | ${r.megabytes.toFixed(0)} MB | ${r.exportSeconds.toFixed(1)} s | ${Math.round(r.rows / r.exportSeconds).toLocaleString("en")} | ${r.downloadSeconds.toFixed(1)} s | ${r.idleMb} MB | ${r.peakMb} MB |`
    )
  ].join("\n")
  record("exports", markdown)
  return markdown
}
