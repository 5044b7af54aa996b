// Insights through the HTTP API over the query benchmarks' demo data set (bench/queryData.js), on the
// PostgreSQL server and on PGlite (BENCH_STORES to pick): a daily-active-users trend broken down by
// browser and a three-step funnel, each created with `POST /api/projects/1/insights/` and computed
// with `GET /api/projects/1/insights/:id/?refresh=force_blocking` (never from the result cache). The
// baseline, in the same run, is the SQL Zed prints for the insight's own ZedQL (the response's
// `zedql`), compiled once and run directly on the same store. Each insight runs
// BENCH_QUERY_REPETITIONS (default 5) times each way, interleaved, and medians are reported.
import { record } from "./lib.js"
import { api, median, ms, rawRunner, REPETITIONS, runLine, start, STORES, timed } from "./queryData.js"

// The data set ends on 2026-03-02 (UTC): its last 30 days in the project's time zone.
const DATE_RANGE = { date_from: "2026-01-31", date_to: "2026-03-01" }

export const INSIGHTS = [
  {
    name: "Trend: daily active users, 30 days, by browser",
    query: {
      kind: "InsightVizNode",
      source: {
        kind: "TrendsQuery",
        series: [{ kind: "EventsNode", event: "$pageview", math: "dau" }],
        interval: "day",
        dateRange: DATE_RANGE,
        breakdownFilter: { breakdown_type: "event", breakdown: "$browser" }
      }
    }
  },
  {
    name: "Funnel: $pageview → signed_up → document_created, 30 days",
    query: {
      kind: "InsightVizNode",
      source: {
        kind: "FunnelsQuery",
        series: ["$pageview", "signed_up", "document_created"].map((event) => ({ kind: "EventsNode", event })),
        dateRange: DATE_RANGE
      }
    }
  }
]

/**
 * The SQL Zed runs for `zedql`, as its query runner prints it, and how long compiling took (the
 * insight response has no timings of its own, so the step is timed on its own, in Zed's process).
 */
const compile = async (server, zedql) => {
  const response = await fetch(`${server.url}/__compile`, { method: "POST", body: zedql })
  if (!response.ok) throw new Error(`compiling failed: ${await response.text()}`)
  return response.json()
}

/** Per insight: Zed's and the SQL's median milliseconds, the compile step's, and the result's size. */
const measure = async (store) => {
  const server = await start(store)
  const raw = await rawRunner(store, server)
  try {
    const computed = []
    for (const insight of INSIGHTS) {
      const { id } = await api(server, "POST", "/api/projects/1/insights/", {
        name: insight.name,
        query: insight.query
      })
      const compute = () => api(server, "GET", `/api/projects/1/insights/${id}/?refresh=force_blocking`)
      // The first computation gives the ZedQL (and warms the caches, Zed's parses among them).
      const first = await timed(compute)
      if (!Array.isArray(first.result.result) || first.result.result.length === 0)
        throw new Error(`${insight.name}: no result`)
      const { zedql } = first.result
      const { params, sql } = await compile(server, zedql)
      if ((await raw.query(sql, params)).length === 0) throw new Error(`${insight.name}: its SQL gives no rows`)
      computed.push({ compute, zedql, sql, params, firstMs: first.ms, size: first.result.result.length })
    }
    // Interleaved, each pair in turn in both orders, so drift and caches favour neither.
    const samples = INSIGHTS.map(() => ({ zed: [], raw: [], compile: [] }))
    for (let round = 0; round < REPETITIONS; round++) {
      for (const [i, { compute, params, sql }] of computed.entries()) {
        const runZed = async () => samples[i].zed.push((await timed(compute)).ms)
        const runRaw = async () => samples[i].raw.push((await timed(() => raw.query(sql, params))).ms)
        if (round % 2 === 0) await runZed().then(runRaw)
        else await runRaw().then(runZed)
      }
      for (const [i, { zedql }] of computed.entries()) samples[i].compile.push((await compile(server, zedql)).ms)
    }
    return INSIGHTS.map((insight, i) => ({
      ...computed[i],
      zed: median(samples[i].zed),
      raw: median(samples[i].raw),
      compile: median(samples[i].compile)
    }))
  } finally {
    await raw.close()
    // The data is kept: its store is closed properly.
    await server.close()
  }
}

export const run = async () => {
  const results = []
  for (const store of STORES) results.push({ store, insights: await measure(store) })
  const header = results.flatMap(({ store }) => [`${store}: Zed ms (first)`, "of which compile", "SQL ms", "Zed / SQL"])
  const table = [
    runLine("Zed and SQL interleaved"),
    "",
    `| Insight | result series/steps | ${header.join(" | ")} |`,
    `|---|---:|${header.map(() => "---:").join("|")}|`,
    ...INSIGHTS.map(
      (insight, i) =>
        `| ${insight.name} | ${results[0].insights[i].size} | ${results
          .flatMap(({ insights }) => {
            const r = insights[i]
            return [`${ms(r.zed)} (${ms(r.firstMs)})`, ms(r.compile), ms(r.raw), (r.zed / r.raw).toFixed(2)]
          })
          .join(" | ")} |`
    )
  ].join("\n")
  record("insights", table)
  return table
}
