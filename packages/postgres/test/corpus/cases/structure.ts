import { avg, max, min, ordered, sum, tally } from "../rows.js"
import { type Case, count, counted, named, num, pageviews, prop, sessionRows, signedUp, where } from "./support.js"

// Subqueries, CTEs, set operations and window functions.

export const subqueries: Array<Case> = [
  {
    name: "IN a subquery",
    query:
      "SELECT count() FROM events WHERE event = 'document_created' AND distinct_id IN (SELECT distinct_id FROM events WHERE event = 'signed_up')",
    expected: (m) => [[count(m, (e) => e.event === "document_created" && signedUp(m).has(e.distinctId))]]
  },
  {
    name: "GROUP BY and ORDER BY the alias of an expression holding a subquery",
    query:
      "SELECT if(distinct_id IN (SELECT distinct_id FROM events WHERE event = 'signed_up'), 'signed up', 'other') AS who, count() FROM events WHERE event = '$pageview' GROUP BY who ORDER BY who",
    expected: (m) =>
      ordered(
        counted(pageviews(m), (e) => (signedUp(m).has(e.distinctId) ? "signed up" : "other")),
        0
      )
  },
  {
    name: "FROM a subquery",
    query: "SELECT count(), max(c), avg(c) FROM (SELECT distinct_id, count() AS c FROM events GROUP BY distinct_id)",
    expected: (m) => {
      const counts = [...tally(m.events, (e) => e.distinctId).values()].map((list) => list.length)
      return [[counts.length, max(counts), avg(counts)]]
    }
  },
  {
    name: "a scalar subquery",
    query:
      "SELECT count() FROM events WHERE event = 'invoice_paid' AND properties.price > (SELECT avg(properties.price) FROM events WHERE event = 'invoice_paid')",
    expected: (m) => {
      const invoices = named(m, "invoice_paid")
      const mean = avg(invoices.map((e) => num(e, "price")))!
      return [[invoices.filter((e) => num(e, "price") > mean).length]]
    }
  },
  {
    name: "NOT IN a subquery of person ids",
    query:
      "SELECT uniq(person_id) FROM events WHERE event = '$pageview' AND person_id NOT IN (SELECT person_id FROM events WHERE event = '$identify')",
    expected: (m) => [
      [
        new Set(
          pageviews(m)
            .map((e) => m.personOf(e.distinctId))
            .filter((p) => !p.identified)
        ).size
      ]
    ]
  }
]

export const ctes: Array<Case> = [
  {
    name: "a CTE of daily counts",
    query:
      "WITH daily AS (SELECT toDate(timestamp) AS day, count() AS c FROM events GROUP BY day) SELECT min(c), max(c), count() FROM daily",
    expected: (m) => {
      const counts = [...tally(m.events, (e) => m.tz.date(e.ms)).values()].map((list) => list.length)
      return [[min(counts), max(counts), counts.length]]
    }
  },
  {
    name: "a CTE used in a subquery",
    query:
      "WITH signups AS (SELECT distinct_id FROM events WHERE event = 'signed_up') SELECT event, count() FROM events WHERE distinct_id IN (SELECT distinct_id FROM signups) AND event LIKE 'document%' GROUP BY event ORDER BY event",
    expected: (m) =>
      ordered(
        counted(
          where(m, (e) => e.event.startsWith("document") && signedUp(m).has(e.distinctId)),
          (e) => e.event
        ),
        0
      )
  },
  {
    name: "a CTE of an expression",
    query:
      "WITH 100 AS threshold SELECT countIf(properties.price > threshold), countIf(properties.price <= threshold) FROM events WHERE event = 'invoice_paid'",
    expected: (m) => [
      [
        count(m, (e) => e.event === "invoice_paid" && num(e, "price") > 100),
        count(m, (e) => e.event === "invoice_paid" && num(e, "price") <= 100)
      ]
    ]
  },
  {
    name: "a CTE over another CTE",
    query:
      "WITH s AS (SELECT session_id, $pageview_count AS pv FROM sessions), big AS (SELECT * FROM s WHERE pv >= 5) SELECT count(), sum(pv) FROM big",
    expected: (m) => {
      const big = sessionRows(m, (s) => s.pageviews >= 5)
      return [[big.length, sum(big.map((s) => s.pageviews))]]
    }
  }
]

export const setOperations: Array<Case> = [
  {
    name: "UNION ALL",
    query:
      "SELECT k, n FROM (SELECT 'pageviews' AS k, count() AS n FROM events WHERE event = '$pageview' UNION ALL SELECT 'clicks' AS k, count() AS n FROM events WHERE event = '$autocapture' UNION ALL SELECT 'sessions', count() FROM sessions) ORDER BY k",
    expected: (m) =>
      ordered(
        [
          ["pageviews", pageviews(m).length],
          ["clicks", named(m, "$autocapture").length],
          ["sessions", m.sessions.length]
        ],
        0
      )
  },
  {
    name: "INTERSECT and EXCEPT",
    query:
      "SELECT (SELECT count() FROM (SELECT distinct_id FROM events WHERE event = 'signed_up' INTERSECT SELECT distinct_id FROM events WHERE event = 'document_created')), (SELECT count() FROM (SELECT distinct_id FROM events WHERE event = 'signed_up' EXCEPT SELECT distinct_id FROM events WHERE event = 'document_created'))",
    expected: (m) => {
      const creators = new Set(named(m, "document_created").map((e) => e.distinctId))
      const both = [...signedUp(m)].filter((id) => creators.has(id)).length
      return [[both, signedUp(m).size - both]]
    }
  }
]

export const windows: Array<Case> = [
  {
    name: "row_number per partition",
    query:
      "SELECT distinct_id, timestamp, row_number() OVER (PARTITION BY distinct_id ORDER BY timestamp) AS n FROM events WHERE event = 'plan_upgraded' ORDER BY distinct_id, n",
    expected: (m) =>
      ordered(
        [...tally(named(m, "plan_upgraded"), (e) => e.distinctId)].flatMap(([id, list]) =>
          list.map((e, i) => [id, m.tz.iso(e.ms), i + 1])
        ),
        0,
        2
      )
  },
  {
    name: "rank over an aggregate",
    query:
      "SELECT properties.$browser AS browser, count() AS c, rank() OVER (ORDER BY count() DESC) AS r FROM events WHERE event = '$pageview' GROUP BY browser ORDER BY c DESC, browser",
    expected: (m) => {
      const rows = ordered(
        counted(pageviews(m), (e) => prop(e, "$browser")),
        [1, "desc"],
        0
      )
      return rows.map((row) => [...row, rows.findIndex((other) => other[1] === row[1]) + 1])
    }
  },
  {
    name: "lagInFrame and leadInFrame in a frame of rows",
    query:
      "SELECT properties.$session_id AS s, properties.$pathname AS page, lagInFrame(properties.$pathname) OVER w AS previous, leadInFrame(properties.$pathname) OVER w AS next FROM events WHERE event = '$pageview' AND s IN (SELECT session_id FROM sessions WHERE $pageview_count >= 4 ORDER BY session_id LIMIT 3) WINDOW w AS (PARTITION BY s ORDER BY timestamp ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) ORDER BY s, timestamp",
    expected: (m) => {
      const chosen = ordered(
        sessionRows(m, (s) => s.pageviews >= 4).map((s) => [s.id]),
        0
      )
        .slice(0, 3)
        .map(([id]) => id)
      return chosen.flatMap((id) => {
        const views = m.sessions
          .find((s) => s.id === id)!
          .events.filter((e) => e.event === "$pageview")
          .map((e) => prop(e, "$pathname"))
        return views.map((page, i) => [id, page, views[i - 1] ?? null, views[i + 1] ?? null])
      })
    }
  },
  {
    name: "a running total of an aggregate",
    query:
      "SELECT toDate(timestamp) AS day, count() AS c, sum(count()) OVER (ORDER BY day) AS total FROM events WHERE event = 'signed_up' GROUP BY day ORDER BY day",
    expected: (m) => {
      let total = 0
      return ordered(
        counted(named(m, "signed_up"), (e) => m.tz.date(e.ms)),
        0
      ).map(([day, c]) => [day, c, (total += c as number)])
    }
  },
  {
    name: "dense_rank, ntile, nth_value, first_value and avg over a named window with a frame",
    query:
      "SELECT distinct_id, count() AS c, dense_rank() OVER (ORDER BY count() DESC) AS r, ntile(2) OVER (ORDER BY count() DESC, distinct_id) AS half, nth_value(distinct_id, 2) OVER w AS second, first_value(distinct_id) OVER w AS first, avg(count()) OVER w AS mean FROM events WHERE event = 'comment_added' GROUP BY distinct_id WINDOW w AS (ORDER BY count() DESC, distinct_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) ORDER BY c DESC, distinct_id",
    expected: (m) => {
      const rows = ordered(
        counted(named(m, "comment_added"), (e) => e.distinctId),
        [1, "desc"],
        0
      )
      const levels = [...new Set(rows.map((row) => row[1]))]
      // ntile(2) gives the first half the extra row when the count is odd.
      const firstHalf = Math.ceil(rows.length / 2)
      const mean = avg(rows.map((row) => row[1] as number))
      return rows.map((row, i) => [
        ...row,
        levels.indexOf(row[1]) + 1,
        i < firstHalf ? 1 : 2,
        rows[1]?.[0] ?? null,
        rows[0]![0],
        mean
      ])
    }
  },
  {
    name: "an aggregate over a partition",
    query:
      "SELECT distinct_id, properties.price AS price, sum(properties.price) OVER (PARTITION BY distinct_id) AS total FROM events WHERE event = 'invoice_paid' ORDER BY distinct_id, timestamp",
    expected: (m) => {
      const invoices = named(m, "invoice_paid")
      const totals = new Map(
        [...tally(invoices, (e) => e.distinctId)].map(([id, list]) => [id, sum(list.map((e) => num(e, "price")))])
      )
      return ordered(
        invoices.map((e) => [e.distinctId, num(e, "price"), totals.get(e.distinctId), e.ms]),
        0,
        3
      ).map((row) => row.slice(0, 3))
    }
  }
]
