import { avg, max, min, ordered, sum, tally } from "../rows.js"
import { type Case, counted, named, pageviews, prop, sessionRows, where } from "./support.js"

// Persons (lazy and explicit joins, distinct ids, merges) and sessions.

export const persons: Array<Case> = [
  {
    name: "person properties through the lazy person join",
    query:
      "SELECT person.properties.plan AS plan, count() FROM events WHERE event = 'document_edited' GROUP BY plan ORDER BY plan",
    expected: (m) =>
      ordered(
        counted(named(m, "document_edited"), (e) => m.personOf(e.distinctId).properties["plan"] ?? null),
        0
      )
  },
  {
    name: "the current person, merges included",
    query:
      "SELECT person.properties.email AS email, count() AS c, uniq(distinct_id) FROM events WHERE event IN ('$pageview', 'logged_in') AND person.properties.email LIKE '%@%' GROUP BY email ORDER BY c DESC, email LIMIT 10",
    expected: (m) => {
      const events = named(m, "$pageview", "logged_in").filter(
        (e) => typeof m.personOf(e.distinctId).properties["email"] === "string"
      )
      return ordered(
        [...tally(events, (e) => m.personOf(e.distinctId).properties["email"])].map(([email, list]) => [
          email,
          list.length,
          new Set(list.map((e) => e.distinctId)).size
        ]),
        [1, "desc"],
        0
      ).slice(0, 10)
    }
  },
  {
    name: "an explicit JOIN of persons",
    query:
      "SELECT p.properties.company AS company, count() AS c FROM events AS e JOIN persons AS p ON e.person_id = p.id WHERE e.event = 'comment_added' GROUP BY company ORDER BY c DESC, company LIMIT 10",
    expected: (m) =>
      ordered(
        counted(named(m, "comment_added"), (e) => m.personOf(e.distinctId).properties["company"]),
        [1, "desc"],
        0
      ).slice(0, 10)
  },
  {
    name: "a LEFT JOIN of persons, grouped by is_identified",
    query:
      "SELECT p.is_identified AS identified, count() FROM events AS e LEFT JOIN persons AS p ON e.person_id = p.id WHERE e.event = '$pageview' GROUP BY identified ORDER BY identified",
    expected: (m) =>
      ordered(
        counted(pageviews(m), (e) => m.personOf(e.distinctId).identified),
        0
      )
  },
  {
    name: "the persons table",
    query: "SELECT is_identified, count() FROM persons GROUP BY is_identified ORDER BY is_identified",
    expected: (m) =>
      ordered(
        counted(m.persons, (p) => p.identified),
        0
      )
  },
  {
    name: "persons filtered on a property",
    query:
      "SELECT properties.email, properties.plan FROM persons WHERE properties.plan IN ('pro', 'enterprise') ORDER BY properties.email",
    expected: (m) =>
      ordered(
        m.persons
          .filter((p) => ["pro", "enterprise"].includes(p.properties["plan"] as string))
          .map((p) => [p.properties["email"], p.properties["plan"]]),
        0
      )
  },
  {
    name: "person_distinct_ids",
    query: "SELECT count(), uniq(person_id) FROM person_distinct_ids",
    expected: (m) => [[sum(m.persons.map((p) => p.distinctIds.length)), m.persons.length]]
  },
  {
    name: "distinct ids by their person's email (anonymous persons together), by a join",
    query:
      "SELECT p.properties.email AS email, count() AS ids FROM person_distinct_ids AS d JOIN persons AS p ON d.person_id = p.id GROUP BY email HAVING ids >= 3 ORDER BY ids DESC, email",
    expected: (m) => {
      const byEmail = [...tally(m.persons, (p) => p.properties["email"] ?? null)].map(([email, list]) => [
        email,
        sum(list.map((p) => p.distinctIds.length))
      ])
      return ordered(
        byEmail.filter(([, ids]) => (ids as number) >= 3),
        [1, "desc"],
        0
      )
    }
  },
  {
    name: "a person through pdi",
    query:
      "SELECT pdi.person.properties.email AS email, count() FROM events WHERE event = 'logged_in' GROUP BY email ORDER BY 2 DESC, 1 LIMIT 5",
    expected: (m) =>
      ordered(
        counted(named(m, "logged_in"), (e) => m.personOf(e.distinctId).properties["email"]),
        [1, "desc"],
        0
      ).slice(0, 5)
  },
  {
    name: "a $set_once property, as a date-time",
    query: "SELECT count(), min(properties.signed_up_at) FROM persons WHERE properties.signed_up_at IS NOT NULL",
    expected: (m) => {
      const times = m.persons.flatMap((p) =>
        typeof p.properties["signed_up_at"] === "string" ? [Date.parse(p.properties["signed_up_at"])] : []
      )
      return [[times.length, m.tz.iso(min(times))]]
    }
  },
  {
    name: "a property set by a $set event, with its alias in WHERE",
    query:
      "SELECT properties.job_title AS title, count() FROM persons WHERE title IS NOT NULL GROUP BY title ORDER BY title",
    expected: (m) =>
      ordered(
        counted(
          m.persons.filter((p) => p.properties["job_title"] !== undefined),
          (p) => p.properties["job_title"]
        ),
        0
      )
  }
]

export const sessions: Array<Case> = [
  {
    name: "sessions: counts and bounces",
    query:
      "SELECT count(), sum($pageview_count), sum($autocapture_count), countIf($is_bounce), countIf($is_bounce IS NULL) FROM sessions",
    expected: (m) => [
      [
        m.sessions.length,
        sum(m.sessions.map((s) => s.pageviews)),
        sum(m.sessions.map((s) => s.autocaptures)),
        m.sessions.filter((s) => s.isBounce === true).length,
        m.sessions.filter((s) => s.isBounce === null).length
      ]
    ]
  },
  {
    name: "sessions by entry page, with their average duration",
    query:
      "SELECT $entry_pathname AS page, count() AS c, avg($session_duration) FROM sessions GROUP BY page ORDER BY c DESC, page LIMIT 6",
    expected: (m) =>
      ordered(
        [...tally(m.sessions, (s) => s.entry("$pathname"))].map(([page, list]) => [
          page,
          list.length,
          avg(list.map((s) => s.duration))
        ]),
        [1, "desc"],
        0
      ).slice(0, 6)
  },
  {
    name: "the session of an event, through the lazy session join",
    query:
      "SELECT properties.$session_id, session.$session_duration, session.$entry_referring_domain, session.$pageview_count FROM events WHERE event = 'signed_up' ORDER BY timestamp, properties.$session_id",
    expected: (m) => {
      const byId = new Map(m.sessions.map((s) => [s.id, s]))
      return named(m, "signed_up").map((e) => {
        const s = byId.get(prop(e, "$session_id") as string)!
        return [s.id, s.duration, s.entry("$referring_domain"), s.pageviews]
      })
    }
  },
  {
    // The join reads only the sessions of the kept events, yet each session whole: a session's
    // figures count its events outside the WHERE (its other pages, other days).
    name: "page views of a week's long sessions, through the lazy session join",
    query:
      "SELECT count(), uniq(properties.$session_id), sum(session.$pageview_count) FROM events WHERE event = '$pageview' AND timestamp >= '2026-03-13' AND session.$session_duration >= 120",
    expected: (m) => {
      const byId = new Map(m.sessions.map((s) => [s.id, s]))
      const since = m.tz.at(2026, 3, 13)
      const kept = pageviews(m).filter(
        (e) => e.ms >= since && byId.get(prop(e, "$session_id") as string)!.duration >= 120
      )
      const ids = new Set(kept.map((e) => prop(e, "$session_id") as string))
      return [[kept.length, ids.size, sum(kept.map((e) => byId.get(prop(e, "$session_id") as string)!.pageviews))]]
    }
  },
  {
    // `event` in the WHERE is the SELECT's alias, the path: narrowing by the event's name would lose them.
    name: "a SELECT alias named as a field, beside the lazy session join",
    query:
      "SELECT properties.$pathname AS event, count(), max(session.$pageview_count) FROM events WHERE event = '/pricing' GROUP BY event",
    expected: (m) => {
      const byId = new Map(m.sessions.map((s) => [s.id, s]))
      const pricing = where(m, (e) => prop(e, "$pathname") === "/pricing")
      return [
        ["/pricing", pricing.length, max(pricing.map((e) => byId.get(prop(e, "$session_id") as string)!.pageviews))]
      ]
    }
  },
  {
    name: "exit pages of longer sessions",
    query:
      "SELECT $end_pathname AS exit, count() FROM sessions WHERE $pageview_count >= 3 GROUP BY exit ORDER BY 2 DESC, 1 LIMIT 5",
    expected: (m) =>
      ordered(
        counted(
          sessionRows(m, (s) => s.pageviews >= 3),
          (s) => s.exit("$pathname")
        ),
        [1, "desc"],
        0
      ).slice(0, 5)
  },
  {
    name: "sessions by entry host",
    query:
      "SELECT $entry_hostname, count(), max($session_duration), min($start_timestamp), max($end_timestamp) FROM sessions GROUP BY 1 ORDER BY 1",
    expected: (m) =>
      ordered(
        [...tally(m.sessions, (s) => s.entry("$host"))].map(([host, list]) => [
          host,
          list.length,
          max(list.map((s) => s.duration)),
          m.tz.iso(min(list.map((s) => s.start))),
          m.tz.iso(max(list.map((s) => s.end)))
        ]),
        0
      )
  },
  {
    name: "URLs of a session, entry and exit",
    query:
      "SELECT session_id, $num_uniq_urls, length($urls), $entry_current_url, $exit_current_url FROM sessions ORDER BY $num_uniq_urls DESC, session_id LIMIT 5",
    expected: (m) =>
      ordered(
        m.sessions.map((s) => [s.id, s.urls.length, s.urls.length, s.entry("$current_url"), s.exit("$current_url")]),
        [1, "desc"],
        0
      ).slice(0, 5)
  },
  {
    name: "sessions per day, by their start in the project's time zone",
    query: "SELECT toDate($start_timestamp) AS day, count() FROM sessions GROUP BY day ORDER BY day",
    expected: (m) =>
      ordered(
        counted(m.sessions, (s) => m.tz.date(s.start)),
        0
      )
  },
  {
    name: "sessions by entry campaign",
    query:
      "SELECT $entry_utm_source AS source, $entry_utm_campaign AS campaign, count() FROM sessions WHERE source IS NOT NULL GROUP BY source, campaign ORDER BY source, campaign",
    expected: (m) =>
      ordered(
        [
          ...tally(
            sessionRows(m, (s) => s.entry("utm_source") !== null),
            (s) => `${s.entry("utm_source")}|${s.entry("utm_campaign")}`
          )
        ].map(([, list]) => [list[0]!.entry("utm_source"), list[0]!.entry("utm_campaign"), list.length]),
        0,
        1
      )
  },
  {
    name: "a session's distinct id is its first event's",
    query: "SELECT distinct_id, count() AS c FROM sessions GROUP BY distinct_id ORDER BY c DESC, distinct_id LIMIT 5",
    expected: (m) =>
      ordered(
        counted(m.sessions, (s) => s.distinctId),
        [1, "desc"],
        0
      ).slice(0, 5)
  },
  {
    name: "the id and duration aliases",
    query: "SELECT id, duration FROM sessions ORDER BY duration DESC, id LIMIT 3",
    expected: (m) =>
      ordered(
        m.sessions.map((s) => [s.id, s.duration]),
        [1, "desc"],
        0
      ).slice(0, 3)
  }
]
