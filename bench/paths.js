// PathsQuery over a million events (bench/queryKinds.js: PostgreSQL server, PGlite, and chDB over ten
// million) against the same paths written by hand in each store's SQL: a week of page views, each
// person's events cut into sessions at 30 minutes, a page repeated at once one step, the first five
// steps of each session, the 50 most taken edges.
import { record } from "./lib.js"
import { TIMEZONE } from "./queryData.js"
import { runKinds } from "./queryKinds.js"

const [FROM, TO] = ["2026-02-23", "2026-03-02"]
const STEPS = 5
const EDGES = 50

const postgres = `WITH items AS (
    SELECT person_id, timestamp, uuid, regexp_replace(coalesce(properties->>'$current_url', ''), '(.)/$', '\\1') AS node
    FROM events WHERE project_id = 1 AND event = '$pageview'
      AND timestamp >= TIMESTAMPTZ '${FROM} 00:00:00 ${TIMEZONE}' AND timestamp < TIMESTAMPTZ '${TO} 00:00:00 ${TIMEZONE}'),
  around AS (
    SELECT person_id, timestamp, uuid, node, lead(node) OVER w AS next_node,
      floor(extract(epoch FROM timestamp - lag(timestamp, 1, timestamp) OVER w)) AS since_before,
      floor(extract(epoch FROM lead(timestamp, 1, timestamp) OVER w - timestamp)) AS until_after
    FROM items WINDOW w AS (PARTITION BY person_id ORDER BY timestamp, uuid)),
  cut AS (
    SELECT *, count(*) FILTER (WHERE since_before >= 1800) OVER (PARTITION BY person_id ORDER BY timestamp, uuid) AS session
    FROM around),
  steps AS (
    SELECT person_id, session, timestamp, node, row_number() OVER (PARTITION BY person_id, session ORDER BY timestamp, uuid) AS step
    FROM cut WHERE next_node IS DISTINCT FROM node OR until_after >= 1800),
  edges AS (
    SELECT step, node, lag(node) OVER v AS previous,
      floor(extract(epoch FROM timestamp - lag(timestamp) OVER v)) AS seconds
    FROM steps WHERE step <= ${STEPS} WINDOW v AS (PARTITION BY person_id, session ORDER BY step))
  SELECT (step - 1) || '_' || previous AS source, step || '_' || node AS target, count(*) AS value, avg(seconds) AS seconds
  FROM edges WHERE step > 1 GROUP BY 1, 2 ORDER BY value DESC, source, target LIMIT ${EDGES}`

const clickhouse = `WITH items AS (
    SELECT person_id, timestamp, uuid, replaceRegexpAll(JSONExtractString(properties, '$current_url'), '(.)/$', '\\\\1') AS node
    FROM events WHERE project_id = 1 AND event = '$pageview'
      AND timestamp >= toDateTime64('${FROM} 00:00:00', 6, '${TIMEZONE}') AND timestamp < toDateTime64('${TO} 00:00:00', 6, '${TIMEZONE}')),
  around AS (
    SELECT person_id, timestamp, uuid, node, leadInFrame(concat('>', node), 1, '') OVER w AS next_key,
      intDiv(toUnixTimestamp64Micro(timestamp) - toUnixTimestamp64Micro(lagInFrame(timestamp, 1, timestamp) OVER w), 1000000) AS since_before,
      intDiv(toUnixTimestamp64Micro(leadInFrame(timestamp, 1, timestamp) OVER w) - toUnixTimestamp64Micro(timestamp), 1000000) AS until_after
    FROM items WINDOW w AS (PARTITION BY person_id ORDER BY timestamp, uuid ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)),
  cut AS (
    SELECT person_id, timestamp, uuid, node, next_key, until_after,
      sum(if(since_before >= 1800, 1, 0)) OVER (PARTITION BY person_id ORDER BY timestamp, uuid ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS session
    FROM around),
  steps AS (
    SELECT person_id, session, timestamp, node, row_number() OVER (PARTITION BY person_id, session ORDER BY timestamp, uuid) AS step
    FROM cut WHERE NOT (next_key = concat('>', node) AND until_after < 1800)),
  edges AS (
    SELECT step, node, lagInFrame(node, 1, '') OVER v AS previous,
      intDiv(toUnixTimestamp64Micro(timestamp) - toUnixTimestamp64Micro(lagInFrame(timestamp, 1, timestamp) OVER v), 1000000) AS seconds
    FROM steps WHERE step <= ${STEPS}
    WINDOW v AS (PARTITION BY person_id, session ORDER BY step ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING))
  SELECT concat(toString(step - 1), '_', previous) AS source, concat(toString(step), '_', node) AS target, count() AS value, avg(seconds) AS seconds
  FROM edges WHERE step > 1 GROUP BY source, target ORDER BY value DESC, source, target LIMIT ${EDGES}`

/** The edges reachable from a first step through the edges kept, as PostHog (and Zed) answer them. */
const reachable = (edges) => {
  const next = new Map()
  for (const [source, target] of edges) next.set(source, [...(next.get(source) ?? []), target])
  const seen = new Set()
  const stack = edges.filter(([source]) => source.startsWith("1_")).map(([source]) => source)
  while (stack.length > 0) {
    const node = stack.pop()
    if (seen.has(node)) continue
    seen.add(node)
    stack.push(...(next.get(node) ?? []))
  }
  return edges.filter(([source]) => seen.has(source))
}

export const CASES = [
  {
    name: `Paths: a week of page views, ${STEPS} steps, ${EDGES} edges`,
    node: {
      kind: "PathsQuery",
      dateRange: { date_from: FROM, date_to: "2026-03-01" },
      pathsFilter: { includeEventTypes: ["$pageview"], stepLimit: STEPS, edgeLimit: EDGES }
    },
    sql: { postgres, clickhouse },
    answer: (response) => response.results.map((e) => [e.source, e.target, e.value, e.average_conversion_time]),
    rawAnswer: (rows) =>
      reachable(rows.map(([source, target, value, seconds]) => [source, target, Number(value), Number(seconds) * 1000]))
  }
]

export const run = async () => {
  const table = await runKinds(CASES, TIMEZONE)
  record("paths", table)
  return table
}
