// A dashboard of 8 tiles over the query benchmarks' demo data set (bench/queryData.js: 1,000,000
// events by default, BENCH_QUERY_EVENTS=n for a quicker run), on the PostgreSQL server, on PGlite and
// on chDB (events in chDB, metadata in PGlite; BENCH_STORES to pick): the template a new project gets (page views, unique users, top pages,
// sign-up funnel, retention; `use_template`) and three more insights (daily active users by
// browser, a three-step funnel, lifecycle), with the dashboard's date range set to the data's last
// 30 days. Opening it is `GET /api/projects/1/dashboards/:id/`, which answers when every tile has
// its result: first with `refresh=force_blocking` (every tile computed), then with
// `refresh=blocking` right after (every tile from the result cache). Each runs
// BENCH_QUERY_REPETITIONS (default 5) times, alternating, and medians are reported.
import { record } from "./lib.js"
import { api, median, ms, REPETITIONS, runLine, start, timed } from "./queryData.js"

const STORES = (process.env.BENCH_STORES ?? "PostgreSQL server,PGlite,chDB").split(",")

// The data set ends on 2026-03-02 (UTC): its last 30 days in the project's time zone.
const FILTERS = { date_from: "2026-01-31", date_to: "2026-03-01" }

const viz = (source) => ({ kind: "InsightVizNode", source })
const events = (...names) => names.map((event) => ({ kind: "EventsNode", event }))

const MORE = [
  {
    name: "Daily active users by browser",
    query: viz({
      kind: "TrendsQuery",
      series: [{ kind: "EventsNode", event: "$pageview", math: "dau" }],
      interval: "day",
      breakdownFilter: { breakdown_type: "event", breakdown: "$browser" }
    })
  },
  {
    name: "Pageview → signed up → document created",
    query: viz({ kind: "FunnelsQuery", series: events("$pageview", "signed_up", "document_created") })
  },
  {
    name: "Pageview lifecycle",
    query: viz({ kind: "LifecycleQuery", series: events("$pageview"), interval: "week" })
  }
]

/** Every tile's insight has a result (an error would have failed the request). */
const complete = (dashboard) => {
  const missing = dashboard.tiles.filter((t) => t.insight !== null && t.insight.result === null)
  if (dashboard.tiles.length !== 8 || missing.length > 0)
    throw new Error(`tiles ${dashboard.tiles.length}, without a result: ${missing.map((t) => t.insight.name)}`)
  return dashboard
}

const measure = async (store) => {
  const server = await start(store)
  try {
    const dashboard = await api(server, "POST", "/api/projects/1/dashboards/", {
      name: "Benchmark",
      use_template: "DEFAULT_APP",
      filters: FILTERS
    })
    for (const insight of MORE)
      await api(server, "POST", "/api/projects/1/insights/", { ...insight, dashboards: [dashboard.id] })
    const open = (refresh) => async () =>
      complete(await api(server, "GET", `/api/projects/1/dashboards/${dashboard.id}/?refresh=${refresh}`))
    const first = []
    const cached = []
    for (let round = 0; round < REPETITIONS; round++) {
      first.push((await timed(open("force_blocking"))).ms)
      cached.push((await timed(open("blocking"))).ms)
    }
    return { first: median(first), cached: median(cached) }
  } finally {
    await server.close()
  }
}

export const run = async () => {
  const results = []
  for (const store of STORES) results.push({ store, ...(await measure(store)) })
  const table = [
    runLine("each round computing every tile, then reading them from the cache", STORES),
    "",
    "| Store | 8 tiles computed, ms | 8 tiles from the cache, ms |",
    "|---|---:|---:|",
    ...results.map((r) => `| ${r.store} | ${ms(r.first)} | ${ms(r.cached)} |`)
  ].join("\n")
  record("dashboards", table)
  return table
}
