// Authenticated GET /api/projects/ through Zed's nodeHandler, against a bare node:http server
// returning the same JSON, measured in one run.
import { cpus } from "node:os"
import { load, record, startServer } from "./lib.js"

const KEY = "phx_benchmark_key_00000000000000000001"
const headers = { authorization: `Bearer ${KEY}` }
const path = "/api/projects/"

export const run = async () => {
  const rows = []
  let body
  let baseline
  for (const [name, script, args] of [
    ["Zed, PGlite", "./servers/zed.js", ["pglite"]],
    ["Zed, in-memory storage", "./servers/zed.js", ["memory"]]
  ]) {
    const server = await startServer(script, args, { BENCH_KEY: KEY })
    body ??= await (await fetch(server.url + path, { headers })).text()
    const result = await load(server.url + path, headers)
    server.stop()
    rows.push([name, result])
  }
  const bare = await startServer("./servers/bare.js", [], { BENCH_KEY: KEY, BENCH_BODY: body })
  baseline = await load(bare.url + path, headers)
  bare.stop()
  rows.push(["bare node:http, same JSON", baseline])

  const table = [
    `Run: ${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpus()[0].model.trim()}, Node ${process.version}; autocannon, 10 connections, 10 s after 2 s warm-up; each server in its own process.`,
    "",
    "| Server | req/s | p99 latency | vs bare node:http |",
    "|---|---:|---:|---:|",
    ...rows.map(
      ([name, r]) => `| ${name} | ${Math.round(r.rps)} | ${r.p99} ms | ${(r.rps / baseline.rps).toFixed(2)} |`
    )
  ].join("\n")
  record("projects-list", table)
  return table
}
