import { max, min, ordered, tally } from "../rows.js"
import { type Case, count, counted, dayNumber, named, where } from "./support.js"

// Dates and times in the project's time zone, across its change to daylight saving time.

export const dates: Array<Case> = [
  {
    name: "toStartOfDay across the change to daylight saving time",
    query: "SELECT toStartOfDay(timestamp) AS day, count() FROM events GROUP BY day ORDER BY day",
    expected: (m) =>
      ordered(
        counted(m.events, (e) => m.tz.startOfDay(e.ms)),
        0
      ).map(([day, c]) => [m.tz.iso(day as number), c])
  },
  {
    name: "toHour in the project's time zone",
    query: "SELECT toHour(timestamp) AS h, count() FROM events GROUP BY h ORDER BY h",
    expected: (m) =>
      ordered(
        counted(m.events, (e) => m.tz.wall(e.ms).hour),
        0
      )
  },
  {
    name: "toDayOfWeek, Monday first",
    query: "SELECT toDayOfWeek(timestamp) AS d, count() FROM events GROUP BY d ORDER BY d",
    expected: (m) =>
      ordered(
        counted(m.events, (e) => m.tz.dayOfWeek(e.ms)),
        0
      )
  },
  {
    name: "toStartOfWeek and toStartOfMonth are dates",
    query:
      "SELECT toStartOfWeek(timestamp) AS week, toStartOfMonth(timestamp) AS month, count() FROM events GROUP BY week, month ORDER BY week, month",
    expected: (m) =>
      ordered(
        [...tally(m.events, (e) => `${m.tz.startOfWeek(e.ms)}|${m.tz.date(e.ms).slice(0, 8)}01`)].map(([key, list]) => [
          ...key.split("|"),
          list.length
        ]),
        0,
        1
      )
  },
  {
    name: "toStartOfHour through the night clocks go forward",
    query:
      "SELECT toStartOfHour(timestamp) AS hour, count() FROM events WHERE timestamp >= '2026-03-07 22:00:00' AND timestamp < '2026-03-08 06:00:00' GROUP BY hour ORDER BY hour",
    expected: (m) => {
      const night = where(m, (e) => e.ms >= m.tz.at(2026, 3, 7, 22) && e.ms < m.tz.at(2026, 3, 8, 6))
      return ordered(
        counted(night, (e) => e.ms - (e.ms % 3_600_000)),
        0
      ).map(([hour, c]) => [m.tz.iso(hour as number), c])
    }
  },
  {
    name: "dateTrunc",
    query:
      "SELECT dateTrunc('hour', min(timestamp)), dateTrunc('day', max(timestamp)) FROM events WHERE event = 'signed_up'",
    expected: (m) => {
      const times = named(m, "signed_up").map((e) => e.ms)
      return [[m.tz.iso(min(times) - (min(times) % 3_600_000)), m.tz.iso(m.tz.startOfDay(max(times)))]]
    }
  },
  {
    name: "dateDiff in days counts the project's midnights",
    query:
      "SELECT distinct_id, dateDiff('day', min(timestamp), max(timestamp)) AS days, count() FROM events WHERE distinct_id LIKE 'user%' GROUP BY distinct_id ORDER BY days DESC, distinct_id LIMIT 10",
    expected: (m) =>
      ordered(
        [
          ...tally(
            where(m, (e) => e.distinctId.startsWith("user")),
            (e) => e.distinctId
          )
        ].map(([id, list]) => [id, dayNumber(m, list.at(-1)!.ms) - dayNumber(m, list[0]!.ms), list.length]),
        [1, "desc"],
        0
      ).slice(0, 10)
  },
  {
    name: "adding a day keeps the time of day over a DST change",
    query:
      "SELECT count() FROM events WHERE timestamp >= toDateTime('2026-03-07 12:00:00') AND timestamp < toDateTime('2026-03-07 12:00:00') + INTERVAL 1 DAY",
    expected: (m) => [[count(m, (e) => e.ms >= m.tz.at(2026, 3, 7, 12) && e.ms < m.tz.at(2026, 3, 8, 12))]]
  },
  {
    name: "a range relative to now()",
    // As many days back from today as reach 10 March 2026, whenever this runs.
    query: (now, m) =>
      `SELECT count() FROM events WHERE timestamp >= toStartOfDay(now()) - INTERVAL ${dayNumber(m, now) - dayNumber(m, m.tz.at(2026, 3, 10, 12))} DAY`,
    expected: (m) => [[count(m, (e) => e.ms >= m.tz.at(2026, 3, 10))]]
  },
  {
    name: "formatDateTime in the project's time zone",
    query:
      "SELECT formatDateTime(timestamp, '%Y-%m-%d %H:%i:%S') AS t, distinct_id FROM events WHERE event = 'signed_up' ORDER BY timestamp LIMIT 10",
    expected: (m) =>
      named(m, "signed_up")
        .slice(0, 10)
        .map((e) => {
          const w = m.tz.wall(e.ms)
          const pad = (n: number) => String(n).padStart(2, "0")
          return [`${m.tz.date(e.ms)} ${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}`, e.distinctId]
        })
  },
  {
    name: "toDate compared with a date",
    query:
      "SELECT event, count() FROM events WHERE toDate(timestamp) = '2026-03-08' AND event IN ('$pageview', 'signed_up') GROUP BY event ORDER BY event",
    expected: (m) =>
      ordered(
        counted(
          where(m, (e) => ["$pageview", "signed_up"].includes(e.event) && m.tz.date(e.ms) === "2026-03-08"),
          (e) => e.event
        ),
        0
      )
  },
  {
    name: "toYYYYMMDD, toMonth and toDayOfMonth",
    query:
      "SELECT toMonth(timestamp) AS month, toDayOfMonth(timestamp) AS day, count() FROM events WHERE toYYYYMMDD(timestamp) BETWEEN 20260306 AND 20260310 GROUP BY month, day ORDER BY month, day",
    expected: (m) => {
      const days = where(m, (e) => m.tz.date(e.ms) >= "2026-03-06" && m.tz.date(e.ms) <= "2026-03-10")
      return ordered(
        [...tally(days, (e) => m.tz.date(e.ms))].map(([, list]) => [
          m.tz.wall(list[0]!.ms).month,
          m.tz.wall(list[0]!.ms).day,
          list.length
        ]),
        0,
        1
      )
    }
  }
]
