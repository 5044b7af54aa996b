// WebOverviewQuery over a million events (bench/queryKinds.js: PostgreSQL server, PGlite, and chDB
// over ten million) against the same figures written by hand in each store's SQL: visitors, page
// views, sessions, their mean duration and bounce rate over a week and the week before.
import { record } from "./lib.js"
import { TIMEZONE } from "./queryData.js"
import { runKinds } from "./queryKinds.js"

const [BEFORE, FROM, TO] = ["2026-02-16", "2026-02-23", "2026-03-02"]

const postgres = `WITH periods (p, since, until) AS (VALUES
    (0, TIMESTAMPTZ '${FROM} 00:00:00 ${TIMEZONE}', TIMESTAMPTZ '${TO} 00:00:00 ${TIMEZONE}'),
    (1, TIMESTAMPTZ '${BEFORE} 00:00:00 ${TIMEZONE}', TIMESTAMPTZ '${FROM} 00:00:00 ${TIMEZONE}')),
  views AS (
    SELECT x.p, e.person_id, e.properties->>'$session_id' AS sid
    FROM events e JOIN periods x ON e.timestamp >= x.since AND e.timestamp < x.until
    WHERE e.project_id = 1 AND e.event = '$pageview'),
  sessions AS (
    SELECT properties->>'$session_id' AS sid,
      floor(extract(epoch FROM max(timestamp))) - floor(extract(epoch FROM min(timestamp))) AS duration,
      count(*) FILTER (WHERE event = '$pageview') AS pageviews, count(*) FILTER (WHERE event = '$autocapture') AS autocaptures
    FROM events WHERE project_id = 1 AND properties->>'$session_id' IN (SELECT sid FROM views WHERE sid <> '') GROUP BY 1),
  per_session AS (
    SELECT DISTINCT v.p, s.sid, s.duration,
      CASE WHEN s.pageviews > 1 OR s.autocaptures > 0 OR s.duration >= 10 THEN 0 ELSE 1 END AS bounce
    FROM views v JOIN sessions s ON s.sid = v.sid)
  SELECT x.p,
    (SELECT count(DISTINCT person_id) FROM views v WHERE v.p = x.p),
    (SELECT count(*) FROM views v WHERE v.p = x.p),
    (SELECT count(*) FROM per_session s WHERE s.p = x.p),
    (SELECT avg(duration) FROM per_session s WHERE s.p = x.p),
    (SELECT avg(bounce) * 100 FROM per_session s WHERE s.p = x.p)
  FROM periods x ORDER BY x.p`

const clickhouse = `WITH views AS (
    SELECT if(timestamp >= toDateTime64('${FROM} 00:00:00', 6, '${TIMEZONE}'), 0, 1) AS p, person_id,
      JSONExtractString(properties, '$session_id') AS sid
    FROM events WHERE project_id = 1 AND event = '$pageview'
      AND timestamp >= toDateTime64('${BEFORE} 00:00:00', 6, '${TIMEZONE}') AND timestamp < toDateTime64('${TO} 00:00:00', 6, '${TIMEZONE}')),
  sessions AS (
    SELECT JSONExtractString(properties, '$session_id') AS sid, dateDiff('second', min(timestamp), max(timestamp)) AS duration,
      countIf(event = '$pageview') AS pageviews, countIf(event = '$autocapture') AS autocaptures
    FROM events WHERE project_id = 1 AND sid IN (SELECT sid FROM views WHERE sid != '') GROUP BY sid),
  per_session AS (
    SELECT DISTINCT v.p AS p, s.sid AS sid, s.duration AS duration,
      if(s.pageviews > 1 OR s.autocaptures > 0 OR s.duration >= 10, 0, 1) AS bounce
    FROM views AS v INNER JOIN sessions AS s ON s.sid = v.sid)
  SELECT a.p, a.visitors, a.views, b.sessions, b.duration, b.bounce
  FROM (SELECT p, uniqExact(person_id) AS visitors, count() AS views FROM views GROUP BY p) AS a
  LEFT JOIN (SELECT p, count() AS sessions, avg(duration) AS duration, avg(bounce) * 100 AS bounce FROM per_session GROUP BY p) AS b
    ON a.p = b.p
  ORDER BY a.p`

/** A figure as the API rounds it. */
const round = (value) => (value === null || value === undefined ? null : Math.round(Number(value) * 1000) / 1000)

export const CASES = [
  {
    name: "Web overview: a week beside the week before",
    node: { kind: "WebOverviewQuery", dateRange: { date_from: FROM, date_to: "2026-03-01" } },
    sql: { postgres, clickhouse },
    answer: (response) => response.results.map((r) => [r.key, r.value, r.previous]),
    rawAnswer: (rows) => {
      const [now, before] = [0, 1].map(
        (p) =>
          rows
            .find((row) => Number(row[0]) === p)
            ?.slice(1)
            .map(round) ?? []
      )
      return ["visitors", "views", "sessions", "session duration", "bounce rate"].map((key, i) => [
        key,
        now[i] ?? null,
        before[i] ?? null
      ])
    }
  }
]

export const run = async () => {
  const table = await runKinds(CASES, TIMEZONE)
  record("webAnalytics", table)
  return table
}
