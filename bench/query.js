// ZedQL through `POST /api/environments/1/query/` (refresh `force_blocking`, so never from the result
// cache) against the same questions in hand-written SQL run directly on the same store, over the
// demo data set, measured in one run, on the PostgreSQL server and on PGlite (BENCH_STORES to pick).
// Both must give the same rows before anything is timed; then each query runs BENCH_QUERY_REPETITIONS
// (default 5) times each way, interleaved, and medians are reported.
//
// The data set and its stores are bench/queryData.js's.
import { record } from "./lib.js"
import { api, median, ms, rawRunner, REPETITIONS, runLine, start, STORES, timed } from "./queryData.js"

/**
 * Each question in ZedQL and in SQL as one would write it by hand against Zed's tables (the project's
 * rows only; the session's time zone is the project's, as Zed runs its queries). Dates are fixed:
 * the data set ends on 2026-03-02 and spans 42 days.
 */
export const QUERIES = [
  {
    name: "Event counts by name",
    zedql: "SELECT event, count() AS events FROM events GROUP BY event ORDER BY events DESC, event",
    sql: "SELECT event, count(*) AS events FROM events WHERE project_id = 1 GROUP BY event ORDER BY events DESC, event"
  },
  {
    name: "Daily active users, 30 days",
    zedql: `SELECT toStartOfDay(timestamp) AS day, uniq(person_id) AS users FROM events
      WHERE timestamp >= '2026-01-31' AND timestamp < '2026-03-02' GROUP BY day ORDER BY day`,
    sql: `SELECT date_trunc('day', timestamp) AS day, count(DISTINCT person_id) AS users FROM events
      WHERE project_id = 1 AND timestamp >= '2026-01-31' AND timestamp < '2026-03-02' GROUP BY day ORDER BY day`
  },
  {
    name: "Pageviews and visitors by browser",
    zedql: `SELECT properties.$browser AS browser, count() AS pageviews, uniq(distinct_id) AS visitors FROM events
      WHERE event = '$pageview' GROUP BY browser ORDER BY pageviews DESC, browser`,
    sql: `SELECT properties->>'$browser' AS browser, count(*) AS pageviews, count(DISTINCT distinct_id) AS visitors FROM events
      WHERE project_id = 1 AND event = '$pageview' GROUP BY browser ORDER BY pageviews DESC, browser`
  },
  {
    name: "Top docs pages (LIKE)",
    zedql: `SELECT properties.$pathname AS path, count() AS views FROM events
      WHERE event = '$pageview' AND properties.$current_url LIKE '%/docs/%' GROUP BY path ORDER BY views DESC, path LIMIT 10`,
    sql: `SELECT properties->>'$pathname' AS path, count(*) AS views FROM events
      WHERE project_id = 1 AND event = '$pageview' AND properties->>'$current_url' LIKE '%/docs/%' GROUP BY path ORDER BY views DESC, path LIMIT 10`
  },
  {
    name: "Edits by person plan (person join)",
    zedql: `SELECT person.properties.plan AS plan, count() AS edits, uniq(person_id) AS persons FROM events
      WHERE event = 'document_edited' AND person.properties.email ILIKE '%harbor%' GROUP BY plan ORDER BY edits DESC, plan`,
    sql: `SELECT p.properties->>'plan' AS plan, count(*) AS edits, count(DISTINCT e.person_id) AS persons
      FROM events e JOIN persons p ON p.project_id = e.project_id AND p.uuid = e.person_id
      WHERE e.project_id = 1 AND e.event = 'document_edited' AND p.properties->>'email' ILIKE '%harbor%'
      GROUP BY plan ORDER BY edits DESC, plan`
  },
  {
    name: "Last week's pageviews by session entry page (session join)",
    zedql: `SELECT session.$entry_pathname AS entry, count() AS pageviews, uniq($session_id) AS sessions,
        avg(session.$session_duration) AS avg_duration
      FROM events WHERE event = '$pageview' AND timestamp >= '2026-02-23' GROUP BY entry ORDER BY pageviews DESC, entry LIMIT 10`,
    sql: `WITH sessions AS (
        SELECT properties->>'$session_id' AS id,
          (array_agg(properties->>'$pathname' ORDER BY timestamp) FILTER (WHERE properties->>'$pathname' IS NOT NULL))[1] AS entry,
          floor(extract(epoch from max(timestamp))) - floor(extract(epoch from min(timestamp))) AS duration
        FROM events WHERE project_id = 1 AND properties->>'$session_id' IS NOT NULL GROUP BY id)
      SELECT s.entry, count(*) AS pageviews, count(DISTINCT e.properties->>'$session_id') AS sessions, avg(s.duration) AS avg_duration
      FROM events e LEFT JOIN sessions s ON s.id = e.properties->>'$session_id'
      WHERE e.project_id = 1 AND e.event = '$pageview' AND e.timestamp >= '2026-02-23'
      GROUP BY s.entry ORDER BY pageviews DESC, s.entry LIMIT 10`
  },
  {
    name: "Sign-up funnel per person (countIf)",
    zedql: `SELECT count() AS persons, countIf(s) AS signed_up, countIf(s AND c) AS created, countIf(s AND c AND sh) AS shared FROM (
        SELECT person_id, countIf(event = 'signed_up') > 0 AS s, countIf(event = 'document_created') > 0 AS c,
          countIf(event = 'document_shared') > 0 AS sh
        FROM events WHERE event IN ('signed_up', 'document_created', 'document_shared')
          AND timestamp >= '2026-01-31' AND timestamp < '2026-03-02' GROUP BY person_id)`,
    sql: `SELECT count(*) AS persons, count(*) FILTER (WHERE s) AS signed_up, count(*) FILTER (WHERE s AND c) AS created,
        count(*) FILTER (WHERE s AND c AND sh) AS shared FROM (
        SELECT person_id, bool_or(event = 'signed_up') AS s, bool_or(event = 'document_created') AS c, bool_or(event = 'document_shared') AS sh
        FROM events WHERE project_id = 1 AND event IN ('signed_up', 'document_created', 'document_shared')
          AND timestamp >= '2026-01-31' AND timestamp < '2026-03-02' GROUP BY person_id) p`
  },
  {
    name: "Activation within 7 days of sign-up (CTE, join)",
    zedql: `WITH signups AS (SELECT person_id, min(timestamp) AS signed_up_at FROM events WHERE event = 'signed_up' GROUP BY person_id)
      SELECT toStartOfWeek(s.signed_up_at) AS week, count(DISTINCT s.person_id) AS signups, count(DISTINCT e.person_id) AS activated
      FROM signups AS s LEFT JOIN events AS e
        ON e.person_id = s.person_id AND e.event = 'document_created' AND e.timestamp < s.signed_up_at + INTERVAL 7 DAY
      GROUP BY week ORDER BY week`,
    sql: `WITH signups AS (SELECT person_id, min(timestamp) AS signed_up_at FROM events WHERE project_id = 1 AND event = 'signed_up' GROUP BY person_id)
      SELECT date_trunc('week', s.signed_up_at + interval '1 day')::date - 1 AS week, count(DISTINCT s.person_id) AS signups,
        count(DISTINCT e.person_id) AS activated
      FROM signups s LEFT JOIN events e ON e.project_id = 1 AND e.person_id = s.person_id AND e.event = 'document_created'
        AND e.timestamp < s.signed_up_at + interval '7 days'
      GROUP BY week ORDER BY week`
  },
  {
    name: "Top 3 pages per day (window function)",
    zedql: `SELECT day, path, views FROM (
        SELECT toStartOfDay(timestamp) AS day, properties.$pathname AS path, count() AS views,
          row_number() OVER (PARTITION BY day ORDER BY count() DESC, path) AS rank
        FROM events WHERE event = '$pageview' AND timestamp >= '2026-01-31' AND timestamp < '2026-03-02' GROUP BY day, path)
      WHERE rank <= 3 ORDER BY day, rank`,
    sql: `SELECT day, path, views FROM (
        SELECT date_trunc('day', timestamp) AS day, properties->>'$pathname' AS path, count(*) AS views,
          row_number() OVER (PARTITION BY date_trunc('day', timestamp) ORDER BY count(*) DESC, properties->>'$pathname') AS rank
        FROM events WHERE project_id = 1 AND event = '$pageview' AND timestamp >= '2026-01-31' AND timestamp < '2026-03-02'
        GROUP BY day, path) ranked
      WHERE rank <= 3 ORDER BY day, rank`
  },
  {
    name: "Durations by event (numeric property)",
    zedql: `SELECT event, count() AS events, avg(properties.duration_ms) AS avg_ms, quantile(0.9)(properties.duration_ms) AS p90_ms,
        max(properties.duration_ms) AS max_ms
      FROM events WHERE properties.duration_ms IS NOT NULL GROUP BY event ORDER BY event`,
    sql: `SELECT event, count(*) AS events, avg((properties->>'duration_ms')::float8) AS avg_ms,
        percentile_cont(0.9) WITHIN GROUP (ORDER BY (properties->>'duration_ms')::float8) AS p90_ms, max((properties->>'duration_ms')::float8) AS max_ms
      FROM events WHERE project_id = 1 AND properties->>'duration_ms' IS NOT NULL GROUP BY event ORDER BY event`
  }
]

// --- Results: Zed's JSON against the driver's values, as the same values.

const ISO = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}(:\d{2})?)?)?$/
const normalize = (value) => {
  if (value === null || value === undefined) return null
  if (value instanceof Date) return value.getTime()
  if (Array.isArray(value)) return value.map(normalize)
  if (typeof value === "string" && ISO.test(value))
    return Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value)
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value)
  return value
}
const equal = (a, b) =>
  typeof a === "number" && typeof b === "number"
    ? Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b))
    : Array.isArray(a) && Array.isArray(b)
      ? a.length === b.length && a.every((x, i) => equal(x, b[i]))
      : a === b

/** Zed's rows must be the hand-written query's, or the comparison means nothing. */
const sameResults = (query, zed, raw) => {
  const [z, r] = [normalize(zed), normalize(raw)]
  if (z.length === 0) throw new Error(`${query.name}: no rows, nothing to compare`)
  if (!equal(z, r)) {
    const at = z.findIndex((row, i) => !equal(row, r[i]))
    throw new Error(
      `${query.name}: Zed and the hand-written SQL disagree (${z.length} rows against ${r.length}; first difference at row ${at}: ${JSON.stringify(zed[at])} against ${JSON.stringify(raw[at])})`
    )
  }
  return z.length
}

const zedQuery = (server, query) =>
  api(server, "POST", "/api/environments/1/query/", {
    query: { kind: "ZedQLQuery", query: query.zedql },
    refresh: "force_blocking"
  })

/** What Zed says its compile step took (parse, resolve, print), in ms. */
const compileMs = (response) => response.timings.find((t) => t.k === "./compile").t * 1000

/** Per query: Zed's and the raw median milliseconds, with the rows they agreed on. */
const measure = async (store) => {
  const server = await start(store)
  const raw = await rawRunner(store, server)
  try {
    // The first run of each checks the answers (and warms the caches, Zed's parses among them).
    const checked = []
    for (const query of QUERIES) {
      const zed = await zedQuery(server, query)
      checked.push({ rows: sameResults(query, zed.results, await raw.query(query.sql)), compile: compileMs(zed) })
    }
    // Interleaved, each pair in turn in both orders, so drift and caches favour neither.
    const samples = QUERIES.map(() => ({ zed: [], raw: [], compile: [] }))
    for (let round = 0; round < REPETITIONS; round++) {
      for (const [i, query] of QUERIES.entries()) {
        const runZed = async () => {
          const { ms, result } = await timed(() => zedQuery(server, query))
          samples[i].zed.push(ms)
          samples[i].compile.push(compileMs(result))
        }
        const runRaw = async () => samples[i].raw.push((await timed(() => raw.query(query.sql))).ms)
        if (round % 2 === 0) await runZed().then(runRaw)
        else await runRaw().then(runZed)
      }
    }
    return QUERIES.map((query, i) => ({
      name: query.name,
      rows: checked[i].rows,
      firstCompile: checked[i].compile,
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

const geomean = (values) => Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length)

export const run = async () => {
  const results = []
  for (const store of STORES) results.push({ store, queries: await measure(store) })
  const header = results.flatMap(({ store }) => [
    `${store}: Zed ms`,
    "of which compile (first run)",
    "SQL ms",
    "Zed / SQL"
  ])
  const table = [
    runLine("Zed and SQL interleaved"),
    "",
    `| Query | rows | ${header.join(" | ")} |`,
    `|---|---:|${header.map(() => "---:").join("|")}|`,
    ...QUERIES.map(
      (query, i) =>
        `| ${query.name} | ${results[0].queries[i].rows} | ${results.flatMap(({ queries }) => [ms(queries[i].zed), `${ms(queries[i].compile)} (${ms(queries[i].firstCompile)})`, ms(queries[i].raw), (queries[i].zed / queries[i].raw).toFixed(2)]).join(" | ")} |`
    ),
    `| **Geometric mean** | | ${results.flatMap(({ queries }) => ["", "", "", `**${geomean(queries.map((q) => q.zed / q.raw)).toFixed(2)}**`]).join(" | ")} |`
  ].join("\n")
  record("query", table)
  return table
}
