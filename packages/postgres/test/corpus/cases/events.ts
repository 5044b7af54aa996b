import type { DemoModel, Event } from "../model.js"
import { avg, max, min, ordered, sortedText, sum, tally, text } from "../rows.js"
import { type Case, count, counted, named, num, pageviews, prop, where } from "./support.js"

// Filters, aggregations, the shape of results (GROUP BY … OFFSET) and typed properties.

const companyOf = (m: DemoModel, e: Event) => {
  const groups = prop(e, "$groups") as Record<string, string> | undefined
  return groups === undefined ? undefined : m.companies.get(groups["company"]!)
}

export const filters: Array<Case> = [
  {
    name: "text equality on a property",
    query: "SELECT count() FROM events WHERE properties.$browser = 'Firefox'",
    expected: (m) => [[count(m, (e) => prop(e, "$browser") === "Firefox")]]
  },
  {
    name: "inequality is true for events without the property",
    query: "SELECT count() FROM events WHERE properties.$browser != 'Chrome'",
    expected: (m) => [[count(m, (e) => prop(e, "$browser") !== "Chrome")]]
  },
  {
    name: "IS NULL, IS NOT NULL and = NULL",
    query:
      "SELECT countIf(properties.$session_id IS NULL), countIf(properties.utm_source IS NOT NULL), countIf(properties.utm_campaign = NULL) FROM events",
    expected: (m) => [
      [
        count(m, (e) => prop(e, "$session_id") === undefined),
        count(m, (e) => prop(e, "utm_source") !== undefined),
        count(m, (e) => prop(e, "utm_campaign") === undefined)
      ]
    ]
  },
  {
    name: "IN a list of event names",
    query:
      "SELECT event, count() FROM events WHERE event IN ('signed_up', 'logged_in', 'plan_upgraded') GROUP BY event ORDER BY event",
    expected: (m) =>
      ordered(
        counted(named(m, "signed_up", "logged_in", "plan_upgraded"), (e) => e.event),
        0
      )
  },
  {
    name: "NOT IN keeps events without the property",
    query: "SELECT count() FROM events WHERE properties.$os NOT IN ('Windows', 'Mac OS X')",
    expected: (m) => [[count(m, (e) => !["Windows", "Mac OS X"].includes(prop(e, "$os") as string))]]
  },
  {
    name: "LIKE on a URL",
    query:
      "SELECT event, count() FROM events WHERE properties.$current_url LIKE '%/documents/%' GROUP BY event ORDER BY event",
    expected: (m) =>
      ordered(
        counted(
          where(m, (e) => text(prop(e, "$current_url"))?.includes("/documents/") === true),
          (e) => e.event
        ),
        0
      )
  },
  {
    name: "ILIKE ignores case",
    query:
      "SELECT properties.$el_text AS label, count() FROM events WHERE event = '$autocapture' AND properties.$el_text ILIKE '%DOC%' GROUP BY label ORDER BY label",
    expected: (m) =>
      ordered(
        counted(
          where(m, (e) => e.event === "$autocapture" && (prop(e, "$el_text") as string).toLowerCase().includes("doc")),
          (e) => prop(e, "$el_text")
        ),
        0
      )
  },
  {
    name: "a nested property path",
    query:
      "SELECT properties.$set.plan AS plan, count() FROM events WHERE event = '$identify' GROUP BY plan ORDER BY plan",
    expected: (m) =>
      ordered(
        counted(named(m, "$identify"), (e) => (prop(e, "$set") as Record<string, unknown>)["plan"]),
        0
      )
  },
  {
    name: "a nested path filtered and grouped",
    query:
      "SELECT properties.$group_set.industry AS industry, count() FROM events WHERE event = '$groupidentify' AND properties.$group_set.industry IS NOT NULL GROUP BY industry ORDER BY industry",
    expected: (m) => {
      const industry = (e: Event) => (prop(e, "$group_set") as Record<string, unknown>)["industry"]
      return ordered(
        counted(
          where(m, (e) => e.event === "$groupidentify" && industry(e) !== undefined),
          industry
        ),
        0
      )
    }
  },
  {
    name: "a regular expression",
    query: "SELECT count() FROM events WHERE properties.$pathname =~ '^/blog/[a-z-]+$'",
    expected: (m) => [[count(m, (e) => /^\/blog\/[a-z-]+$/.test(text(prop(e, "$pathname")) ?? ""))]]
  },
  {
    name: "BETWEEN on a numeric property",
    query: "SELECT count() FROM events WHERE event = 'search_performed' AND properties.results_count BETWEEN 5 AND 10",
    expected: (m) => [
      [count(m, (e) => e.event === "search_performed" && num(e, "results_count") >= 5 && num(e, "results_count") <= 10)]
    ]
  },
  {
    name: "a numeric property compares as a number, not as text",
    query: "SELECT count() FROM events WHERE properties.results_count > 9",
    expected: (m) => [[count(m, (e) => typeof prop(e, "results_count") === "number" && num(e, "results_count") > 9)]]
  },
  {
    name: "a boolean property groups as booleans",
    query:
      "SELECT properties.has_results AS found, count() FROM events WHERE event = 'search_performed' GROUP BY found ORDER BY found",
    expected: (m) =>
      ordered(
        counted(named(m, "search_performed"), (e) => prop(e, "has_results")),
        0
      )
  },
  {
    name: "a boolean property as the condition",
    query: "SELECT count() FROM events WHERE event = 'task_completed' AND properties.on_time",
    expected: (m) => [[count(m, (e) => e.event === "task_completed" && prop(e, "on_time") === true)]]
  },
  {
    name: "dates as text are in the project's time zone (from the day clocks go forward)",
    query: "SELECT count() FROM events WHERE timestamp >= '2026-03-08' AND timestamp < '2026-03-09 10:30:00'",
    expected: (m) => [[count(m, (e) => e.ms >= m.tz.at(2026, 3, 8) && e.ms < m.tz.at(2026, 3, 9, 10, 30))]]
  },
  {
    name: "a date-time property compares as a date",
    query: "SELECT count() FROM events WHERE event = 'task_created' AND properties.due_date >= '2026-03-25'",
    expected: (m) => [
      [count(m, (e) => e.event === "task_created" && Date.parse(prop(e, "due_date") as string) >= m.tz.at(2026, 3, 25))]
    ]
  }
]

export const aggregations: Array<Case> = [
  {
    name: "count and uniq per event",
    query:
      "SELECT event, count() AS c, uniq(distinct_id) AS ids FROM events GROUP BY event ORDER BY c DESC, event LIMIT 10",
    expected: (m) =>
      ordered(
        [...tally(m.events, (e) => e.event)].map(([event, list]) => [
          event,
          list.length,
          new Set(list.map((e) => e.distinctId)).size
        ]),
        [1, "desc"],
        0
      ).slice(0, 10),
    columns: ["event", "c", "ids"]
  },
  {
    name: "countIf with several conditions",
    query:
      "SELECT countIf(event = '$pageview'), countIf(event = '$autocapture' AND properties.$device_type = 'Mobile'), count() FROM events",
    expected: (m) => [
      [
        pageviews(m).length,
        count(m, (e) => e.event === "$autocapture" && prop(e, "$device_type") === "Mobile"),
        m.events.length
      ]
    ]
  },
  {
    name: "distinct persons, distinct ids and sessions",
    query: "SELECT uniq(person_id), uniq(distinct_id), count(DISTINCT properties.$session_id) FROM events",
    expected: (m) => [[m.persons.length, new Set(m.events.map((e) => e.distinctId)).size, m.sessions.length]]
  },
  {
    name: "sum, min, max and avg of numeric properties",
    query:
      "SELECT properties.editor AS editor, count(), sum(properties.word_count), min(properties.duration_ms), max(properties.duration_ms), avg(properties.duration_ms) FROM events WHERE event = 'document_edited' GROUP BY editor ORDER BY editor",
    expected: (m) =>
      ordered(
        [...tally(named(m, "document_edited"), (e) => prop(e, "editor"))].map(([editor, list]) => {
          const durations = list.map((e) => num(e, "duration_ms"))
          return [
            editor,
            list.length,
            sum(list.map((e) => num(e, "word_count"))),
            min(durations),
            max(durations),
            avg(durations)
          ]
        }),
        0
      )
  },
  {
    name: "argMax and argMin by time",
    query:
      "SELECT distinct_id, argMax(properties.plan, timestamp), argMin(properties.previous_plan, timestamp), count() FROM events WHERE event = 'plan_upgraded' GROUP BY distinct_id ORDER BY distinct_id",
    expected: (m) =>
      ordered(
        [...tally(named(m, "plan_upgraded"), (e) => e.distinctId)].map(([id, list]) => [
          id,
          prop(list.at(-1)!, "plan"),
          prop(list[0]!, "previous_plan"),
          list.length
        ]),
        0
      )
  },
  {
    name: "groupArray, sorted",
    query:
      "SELECT distinct_id, arraySort(groupArray(properties.format)) FROM events WHERE event = 'export_completed' GROUP BY distinct_id ORDER BY distinct_id",
    expected: (m) =>
      ordered(
        [...tally(named(m, "export_completed"), (e) => e.distinctId)].map(([id, list]) => [
          id,
          sortedText(list.map((e) => prop(e, "format") as string))
        ]),
        0
      )
  },
  {
    name: "groupUniqArray of a property with boolean and text values",
    query:
      "SELECT properties.$feature_flag AS flag, arraySort(groupUniqArray(properties.$feature_flag_response)), count() FROM events WHERE event = '$feature_flag_called' GROUP BY flag ORDER BY flag",
    expected: (m) =>
      ordered(
        [...tally(named(m, "$feature_flag_called"), (e) => prop(e, "$feature_flag"))].map(([flag, list]) => [
          flag,
          sortedText([...new Set(list.map((e) => text(prop(e, "$feature_flag_response"))!))]),
          list.length
        ]),
        0
      )
  },
  {
    name: "sumIf and avgIf",
    query:
      "SELECT sumIf(properties.price, properties.is_annual), sumIf(properties.price, NOT properties.is_annual), avgIf(properties.seats, properties.plan = 'pro') FROM events WHERE event = 'plan_upgraded'",
    expected: (m) => {
      const upgrades = named(m, "plan_upgraded")
      return [
        [
          sum(upgrades.filter((e) => prop(e, "is_annual") === true).map((e) => num(e, "price"))),
          sum(upgrades.filter((e) => prop(e, "is_annual") === false).map((e) => num(e, "price"))),
          avg(upgrades.filter((e) => prop(e, "plan") === "pro").map((e) => num(e, "seats")))
        ]
      ]
    }
  },
  {
    name: "FILTER clauses on aggregates",
    query:
      "SELECT sum(properties.word_count) FILTER (WHERE properties.editor = 'new'), count() FILTER (WHERE properties.editor = 'classic'), uniq(distinct_id) FILTER (WHERE properties.duration_ms > 60000), argMax(properties.document_id, timestamp) FILTER (WHERE properties.editor = 'new'), length(groupArray(properties.word_count) FILTER (WHERE properties.word_count > 1000)) FROM events WHERE event = 'document_edited'",
    expected: (m) => {
      const edits = named(m, "document_edited")
      const fresh = edits.filter((e) => prop(e, "editor") === "new")
      return [
        [
          sum(fresh.map((e) => num(e, "word_count"))),
          edits.filter((e) => prop(e, "editor") === "classic").length,
          new Set(edits.filter((e) => num(e, "duration_ms") > 60_000).map((e) => e.distinctId)).size,
          prop(fresh.at(-1)!, "document_id"),
          edits.filter((e) => num(e, "word_count") > 1000).length
        ]
      ]
    }
  },
  {
    name: "min and max of the timestamp, in the project's time zone",
    query: "SELECT min(timestamp), max(timestamp), toUnixTimestamp(min(timestamp)) FROM events",
    expected: (m) => [[m.tz.iso(m.events[0]!.ms), m.tz.iso(m.events.at(-1)!.ms), Math.floor(m.events[0]!.ms / 1000)]]
  }
]

export const shaping: Array<Case> = [
  {
    name: "GROUP BY, HAVING, ORDER BY, LIMIT and OFFSET",
    query:
      "SELECT properties.$browser AS browser, count() AS c FROM events WHERE event = '$pageview' GROUP BY browser HAVING c > 20 ORDER BY c DESC, browser LIMIT 3 OFFSET 1",
    expected: (m) =>
      ordered(
        counted(pageviews(m), (e) => prop(e, "$browser")).filter(([, c]) => (c as number) > 20),
        [1, "desc"],
        0
      ).slice(1, 4)
  },
  {
    name: "GROUP BY and ORDER BY positions",
    query:
      "SELECT properties.$os, properties.$device_type, count() FROM events WHERE event = '$pageview' GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2",
    expected: (m) =>
      ordered(
        [...tally(pageviews(m), (e) => `${prop(e, "$os")}|${prop(e, "$device_type")}`)].map(([, list]) => [
          prop(list[0]!, "$os"),
          prop(list[0]!, "$device_type"),
          list.length
        ]),
        [2, "desc"],
        0,
        1
      )
  },
  {
    name: "SELECT DISTINCT",
    query: "SELECT DISTINCT properties.$referring_domain FROM events WHERE event = '$pageview' ORDER BY 1",
    expected: (m) =>
      ordered(
        [...new Set(pageviews(m).map((e) => prop(e, "$referring_domain")))].map((d) => [d]),
        0
      )
  },
  {
    name: "NULLs sort last when descending too",
    query:
      "SELECT properties.utm_source AS source, count() FROM events WHERE event = '$pageview' GROUP BY source ORDER BY source DESC",
    expected: (m) =>
      ordered(
        counted(pageviews(m), (e) => prop(e, "utm_source") ?? null),
        [0, "desc"]
      )
  },
  {
    name: "NULLs sort last ascending, and text by its bytes (capitals first), also in a window",
    query:
      "SELECT source, c, row_number() OVER (ORDER BY source) FROM (SELECT coalesce(properties.utm_source, if(properties.$browser = 'Safari', NULL, concat(upper(substring(properties.$browser, 1, 1)), lower(properties.$browser)))) AS source, count() AS c FROM events WHERE event = '$pageview' GROUP BY source) ORDER BY source",
    expected: (m) => {
      const sourceOf = (e: Event) => {
        const utm = prop(e, "utm_source") as string | undefined
        if (utm !== undefined) return utm
        const browser = prop(e, "$browser") as string | undefined
        return browser === undefined || browser === "Safari" ? null : browser[0]!.toUpperCase() + browser.toLowerCase()
      }
      return ordered(counted(pageviews(m), sourceOf), 0).map((row, i) => [...row, i + 1])
    }
  },
  {
    name: "the default LIMIT of 100, with hasMore",
    query: "SELECT uuid, event FROM events ORDER BY timestamp DESC, uuid",
    expected: (m) =>
      ordered(
        m.events.map((e) => [e.ms, e.uuid, e.event]),
        [0, "desc"],
        1
      )
        .slice(0, 100)
        .map((row) => row.slice(1)),
    hasMore: true
  }
]

export const typed: Array<Case> = [
  {
    name: "arithmetic on numeric properties",
    query:
      "SELECT properties.plan AS plan, sum(properties.price * 2), max(properties.seats), sum(properties.price / properties.seats) FROM events WHERE event = 'plan_upgraded' GROUP BY plan ORDER BY plan",
    expected: (m) =>
      ordered(
        [...tally(named(m, "plan_upgraded"), (e) => prop(e, "plan"))].map(([plan, list]) => [
          plan,
          sum(list.map((e) => num(e, "price") * 2)),
          max(list.map((e) => num(e, "seats"))),
          sum(list.map((e) => num(e, "price") / num(e, "seats")))
        ]),
        0
      )
  },
  {
    name: "a numeric SDK property",
    query:
      "SELECT properties.$browser AS browser, countIf(properties.$browser_version >= 130), count() FROM events WHERE event = '$pageview' GROUP BY browser ORDER BY browser",
    expected: (m) =>
      ordered(
        [...tally(pageviews(m), (e) => prop(e, "$browser"))].map(([b, list]) => [
          b,
          list.filter((e) => num(e, "$browser_version") >= 130).length,
          list.length
        ]),
        0
      )
  },
  {
    name: "group properties through the lazy group join",
    query:
      "SELECT group_0.properties.industry AS industry, count() FROM events WHERE event = 'document_created' GROUP BY industry ORDER BY industry",
    expected: (m) =>
      ordered(
        counted(named(m, "document_created"), (e) => companyOf(m, e)?.["industry"] ?? null),
        0
      )
  }
]
