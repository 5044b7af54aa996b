// Query kinds through `POST /api/environments/1/query/` (refresh `force_blocking`, so never from the
// result cache) against the same question in SQL written by hand, run directly on the same store: on
// the PostgreSQL server and PGlite over the query benchmarks' data set (bench/queryData.js, a million
// events; BENCH_STORES to pick), and on chDB over bench/clickhouse.js's (ten million;
// BENCH_KINDS_CHDB=0 to leave it out). Both must give the same answer before anything is timed; then
// each runs BENCH_QUERY_REPETITIONS (default 5) times each way, interleaved, and medians are reported.
// Used by bench/paths.js and bench/webAnalytics.js, each a list of cases:
// `{name, node, sql: {postgres, clickhouse}, answer(zedResponse), rawAnswer(rows)}` where the two
// answers are compared as JSON, numbers within a relative 1e-6.
import { EVENTS as CHDB_EVENTS, startData } from "./clickhouse.js"
import { median, ms, rawRunner, REPETITIONS, runLine, start, STORES, api, timed } from "./queryData.js"

const CHDB = process.env.BENCH_KINDS_CHDB !== "0"

const close = (a, b) =>
  typeof a === "number" && typeof b === "number"
    ? Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b))
    : Array.isArray(a) && Array.isArray(b)
      ? a.length === b.length && a.every((x, i) => close(x, b[i]))
      : a !== null && b !== null && typeof a === "object" && typeof b === "object"
        ? close(Object.entries(a), Object.entries(b))
        : a === b

/** chDB's raw SQL runs in Zed's process (the only one that may open it), in the project's time zone. */
const chdbRunner = (server, timezone) => ({
  query: async (sql) => {
    const response = await fetch(`${server.url}/__raw`, { method: "POST", body: JSON.stringify({ sql, timezone }) })
    if (!response.ok) throw new Error(`raw SQL failed: ${await response.text()}`)
    return (await response.json()).rows
  },
  close: async () => {}
})

/** Per case: Zed's and the hand-written SQL's median ms, and the size of the answer they agreed on. */
const measure = async (cases, server, raw, dialect) => {
  const ask = (c) => api(server, "POST", "/api/environments/1/query/", { query: c.node, refresh: "force_blocking" })
  const checked = []
  for (const c of cases) {
    // The first run of each checks the answers (and warms the caches).
    const [zed, rows] = [c.answer(await ask(c)), c.rawAnswer(await raw.query(c.sql[dialect]))]
    if (!close(zed, rows))
      throw new Error(
        `${c.name} (${dialect}): Zed and the hand-written SQL disagree:\n${JSON.stringify(zed)}\n${JSON.stringify(rows)}`
      )
    checked.push(Array.isArray(zed) ? zed.length : 1)
  }
  const samples = cases.map(() => ({ zed: [], raw: [] }))
  for (let round = 0; round < REPETITIONS; round++) {
    for (const [i, c] of cases.entries()) {
      const runZed = async () => samples[i].zed.push((await timed(() => ask(c))).ms)
      const runRaw = async () => samples[i].raw.push((await timed(() => raw.query(c.sql[dialect]))).ms)
      if (round % 2 === 0) await runZed().then(runRaw)
      else await runRaw().then(runZed)
    }
  }
  return cases.map((c, i) => ({ size: checked[i], zed: median(samples[i].zed), raw: median(samples[i].raw) }))
}

/** Runs the cases on every store and answers the markdown table (with the run's line). */
export const runKinds = async (cases, timezone) => {
  const results = []
  for (const store of STORES) {
    const server = await start(store)
    const raw = await rawRunner(store, server)
    try {
      results.push({ store, cases: await measure(cases, server, raw, "postgres") })
    } finally {
      await raw.close()
      await server.close()
    }
  }
  if (CHDB) {
    // chDB's data set is copied from Zed's on PostgreSQL, which is loaded first when missing.
    const loader = await startData("PostgreSQL")
    await loader.close()
    const server = await startData("chDB")
    try {
      results.push({ store: "chDB", cases: await measure(cases, server, chdbRunner(server, timezone), "clickhouse") })
    } finally {
      await server.close()
    }
  }
  const header = results.flatMap(({ store }) => [`${store}: Zed ms`, "SQL ms", "Zed / SQL"])
  return [
    runLine("Zed and SQL interleaved") +
      (CHDB ? ` chDB over bench/clickhouse.js's data set: ${CHDB_EVENTS} demo events of the same kind.` : ""),
    "",
    `| Query | answer rows | ${header.join(" | ")} |`,
    `|---|---:|${header.map(() => "---:").join("|")}|`,
    ...cases.map(
      (c, i) =>
        `| ${c.name} | ${results[0].cases[i].size} | ${results
          .flatMap(({ cases }) => [ms(cases[i].zed), ms(cases[i].raw), (cases[i].zed / cases[i].raw).toFixed(2)])
          .join(" | ")} |`
    )
  ].join("\n")
}
