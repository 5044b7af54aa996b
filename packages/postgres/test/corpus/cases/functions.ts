import type { Event } from "../model.js"
import { ordered, sum, tally } from "../rows.js"
import { type Case, counted, named, num, pageviews, prop, sessionRows } from "./support.js"

// Functions on text, URLs, arrays, conditions and JSON.

const domainOf = (url: string) => new URL(url).hostname

export const strings: Array<Case> = [
  {
    name: "lower and concat",
    query:
      "SELECT concat(lower(properties.$browser), ' on ', properties.$os) AS k, count() FROM events WHERE event = '$pageview' GROUP BY k ORDER BY 2 DESC, k LIMIT 8",
    expected: (m) =>
      ordered(
        counted(pageviews(m), (e) => `${(prop(e, "$browser") as string).toLowerCase()} on ${prop(e, "$os")}`),
        [1, "desc"],
        0
      ).slice(0, 8)
  },
  {
    name: "splitByChar and an array element",
    query:
      "SELECT splitByChar('/', properties.$pathname)[2] AS section, count() FROM events WHERE event = '$pageview' GROUP BY section ORDER BY section",
    expected: (m) =>
      ordered(
        counted(pageviews(m), (e) => (prop(e, "$pathname") as string).split("/")[1]),
        0
      )
  },
  {
    name: "domain of a URL",
    query:
      "SELECT domain(properties.$referrer) AS d, count() FROM events WHERE event = '$pageview' AND properties.$referrer != '$direct' GROUP BY d ORDER BY d",
    expected: (m) =>
      ordered(
        counted(
          pageviews(m).filter((e) => prop(e, "$referrer") !== "$direct"),
          (e) => domainOf(prop(e, "$referrer") as string)
        ),
        0
      )
  },
  {
    name: "replaceRegexpAll",
    query:
      "SELECT replaceRegexpAll(properties.$pathname, '[0-9]+', ':id') AS route, count() FROM events WHERE event = '$pageview' AND properties.$host = 'app.quill.example' GROUP BY route ORDER BY route",
    expected: (m) =>
      ordered(
        counted(
          pageviews(m).filter((e) => prop(e, "$host") === "app.quill.example"),
          (e) => (prop(e, "$pathname") as string).replace(/[0-9]+/g, ":id")
        ),
        0
      )
  },
  {
    name: "extractURLParameter and extract",
    query:
      "SELECT extractURLParameter(properties.$current_url, 'utm_campaign') AS campaign, extract(properties.$current_url, 'utm_source=([^&]+)') AS source, count() FROM events WHERE event = '$pageview' AND properties.$current_url LIKE '%?%' GROUP BY campaign, source ORDER BY campaign, source",
    expected: (m) => {
      const params = (e: Event) => new URL(prop(e, "$current_url") as string).searchParams
      const tagged = pageviews(m).filter((e) => (prop(e, "$current_url") as string).includes("?"))
      return ordered(
        [...tally(tagged, (e) => `${params(e).get("utm_campaign")}|${params(e).get("utm_source")}`)].map(
          ([key, list]) => [...key.split("|"), list.length]
        ),
        0,
        1
      )
    }
  },
  {
    name: "cutQueryString",
    query:
      "SELECT cutQueryString(properties.$current_url) AS u, count() FROM events WHERE event = '$pageview' AND properties.utm_source = 'twitter' GROUP BY u ORDER BY u",
    expected: (m) =>
      ordered(
        counted(
          pageviews(m).filter((e) => prop(e, "utm_source") === "twitter"),
          (e) => (prop(e, "$current_url") as string).split("?")[0]
        ),
        0
      )
  },
  {
    name: "upper, left and length",
    query:
      "SELECT upper(left(properties.$os, 3)) AS os, length(properties.$os) AS len, count() FROM events WHERE event = '$pageview' GROUP BY os, len ORDER BY os, len",
    expected: (m) =>
      ordered(
        [...tally(pageviews(m), (e) => prop(e, "$os") as string)].map(([os, list]) => [
          os.slice(0, 3).toUpperCase(),
          Buffer.byteLength(os),
          list.length
        ]),
        0,
        1
      )
  },
  {
    name: "substring, right, leftPad and repeat",
    query:
      "SELECT substring(properties.$pathname, 2, 4) AS head, right(properties.$pathname, 2) AS tail, leftPad(toString(toDayOfMonth(timestamp)), 3, '0') AS day, repeat('*', toDayOfWeek(timestamp)) AS stars, count() FROM events WHERE event = '$pageview' AND toDate(timestamp) = '2026-03-12' GROUP BY head, tail, day, stars ORDER BY head, tail",
    expected: (m) => {
      const views = pageviews(m).filter((e) => m.tz.date(e.ms) === "2026-03-12")
      const path = (e: Event) => prop(e, "$pathname") as string
      return ordered(
        [...tally(views, (e) => `${path(e).slice(1, 5)}|${path(e).slice(-2)}`)].map(([key, list]) => [
          ...key.split("|"),
          "012",
          "*".repeat(m.tz.dayOfWeek(list[0]!.ms)),
          list.length
        ]),
        0,
        1
      )
    }
  },
  {
    name: "the elements chain, with LIKE and match",
    query:
      "SELECT countIf(elements_chain LIKE '%btn-primary%'), countIf(match(elements_chain, 'text=\"Share\"')) FROM events WHERE event = '$autocapture'",
    expected: (m) => {
      const chains = named(m, "$autocapture").map((e) => prop(e, "$elements_chain") as string)
      return [
        [
          chains.filter((c) => c.includes("btn-primary")).length,
          chains.filter((c) => c.includes('text="Share"')).length
        ]
      ]
    }
  },
  {
    name: "startsWith",
    query:
      "SELECT startsWith(properties.$current_url, 'https://app.') AS app, count() FROM events WHERE event = '$pageview' GROUP BY app ORDER BY app",
    expected: (m) =>
      ordered(
        counted(pageviews(m), (e) => (prop(e, "$current_url") as string).startsWith("https://app.")),
        0
      )
  }
]

export const arrays: Array<Case> = [
  {
    name: "arrayJoin over a session's URLs",
    query: "SELECT arrayJoin($urls) AS url, count() AS c FROM sessions GROUP BY url ORDER BY c DESC, url LIMIT 6",
    expected: (m) =>
      ordered(
        counted(
          m.sessions.flatMap((s) => s.urls),
          (url) => url
        ),
        [1, "desc"],
        0
      ).slice(0, 6)
  },
  {
    name: "has",
    query: "SELECT count() FROM sessions WHERE has($urls, 'https://quill.example/pricing')",
    expected: (m) => [[sessionRows(m, (s) => s.urls.includes("https://quill.example/pricing")).length]]
  },
  {
    name: "length and arrayCount with a lambda",
    query:
      "SELECT session_id, length($urls), arrayCount(u -> u LIKE '%/documents/%', $urls) FROM sessions WHERE $pageview_count >= 6 ORDER BY session_id LIMIT 5",
    expected: (m) =>
      ordered(
        sessionRows(m, (s) => s.pageviews >= 6).map((s) => [
          s.id,
          s.urls.length,
          s.urls.filter((u) => u.includes("/documents/")).length
        ]),
        0
      ).slice(0, 5)
  },
  {
    name: "a lambda over two arrays, with a nested one reading its parameter",
    query:
      "SELECT session_id, arrayCount((u, i) -> arrayExists(v -> splitByChar('/', v)[4] = splitByChar('/', u)[4], arraySlice($urls, i + 1)), " +
      "$urls, range(1, length($urls) + 1)) AS again FROM sessions WHERE $pageview_count >= 4 ORDER BY again DESC, session_id LIMIT 5",
    expected: (m) => {
      // How many of a session's pages have their section (/documents/…) visited again later.
      const section = (url: string) => url.split("/")[3]
      const again = (urls: ReadonlyArray<string>) =>
        urls.filter((u, i) => urls.slice(i + 1).some((v) => section(v) === section(u))).length
      return ordered(
        sessionRows(m, (s) => s.pageviews >= 4).map((s) => [s.id, again(s.urls)]),
        [1, "desc"],
        0
      ).slice(0, 5)
    }
  },
  {
    name: "ARRAY JOIN",
    query:
      "SELECT part, count() FROM events ARRAY JOIN splitByChar('/', properties.$pathname) AS part WHERE event = '$pageview' AND part != '' GROUP BY part ORDER BY 2 DESC, part LIMIT 5",
    expected: (m) =>
      ordered(
        counted(
          pageviews(m).flatMap((e) => (prop(e, "$pathname") as string).split("/").filter((p) => p !== "")),
          (p) => p
        ),
        [1, "desc"],
        0
      ).slice(0, 5)
  },
  {
    name: "arrayMap and arrayStringConcat",
    query:
      "SELECT arrayStringConcat(arrayMap(x -> upper(x), splitByChar('-', properties.$feature_flag)), '_') AS k, count() FROM events WHERE event = '$feature_flag_called' GROUP BY k ORDER BY k",
    expected: (m) =>
      ordered(
        counted(named(m, "$feature_flag_called"), (e) =>
          (prop(e, "$feature_flag") as string).toUpperCase().replaceAll("-", "_")
        ),
        0
      )
  }
]

export const conditionals: Array<Case> = [
  {
    name: "if",
    query:
      "SELECT if(properties.$device_type = 'Desktop', 'desktop', 'handheld') AS kind, count() FROM events WHERE event = '$pageview' GROUP BY kind ORDER BY kind",
    expected: (m) =>
      ordered(
        counted(pageviews(m), (e) => (prop(e, "$device_type") === "Desktop" ? "desktop" : "handheld")),
        0
      )
  },
  {
    name: "multiIf on a numeric property",
    query:
      "SELECT multiIf(properties.price < 100, 'small', properties.price < 1000, 'medium', 'large') AS bucket, count(), sum(properties.price) FROM events WHERE event = 'invoice_paid' GROUP BY bucket ORDER BY bucket",
    expected: (m) => {
      const bucket = (price: number) => (price < 100 ? "small" : price < 1000 ? "medium" : "large")
      return ordered(
        [...tally(named(m, "invoice_paid"), (e) => bucket(num(e, "price")))].map(([b, list]) => [
          b,
          list.length,
          sum(list.map((e) => num(e, "price")))
        ]),
        0
      )
    }
  },
  {
    name: "coalesce and nullIf",
    query:
      "SELECT coalesce(properties.utm_source, nullIf(properties.$referring_domain, '$direct'), 'direct') AS source, count() FROM events WHERE event = '$pageview' GROUP BY source ORDER BY 2 DESC, source",
    expected: (m) => {
      const source = (e: Event) =>
        (prop(e, "utm_source") as string | undefined) ??
        (prop(e, "$referring_domain") === "$direct" ? "direct" : prop(e, "$referring_domain"))
      return ordered(counted(pageviews(m), source), [1, "desc"], 0)
    }
  },
  {
    name: "CASE WHEN and ??",
    query:
      "SELECT properties.template ?? 'blank' AS template, CASE WHEN properties.from_template THEN 'yes' ELSE 'no' END AS templated, count() FROM events WHERE event = 'document_created' GROUP BY template, templated ORDER BY template, templated",
    expected: (m) =>
      ordered(
        [
          ...tally(
            named(m, "document_created"),
            (e) => `${prop(e, "template") ?? "blank"}|${prop(e, "from_template") ? "yes" : "no"}`
          )
        ].map(([key, list]) => [...key.split("|"), list.length]),
        0,
        1
      )
  }
]

export const json: Array<Case> = [
  {
    name: "JSONExtractString, '' when missing",
    query:
      "SELECT JSONExtractString(properties, '$browser') AS b, count() FROM events WHERE event IN ('$pageview', 'invoice_paid') GROUP BY b ORDER BY b",
    expected: (m) =>
      ordered(
        counted(named(m, "$pageview", "invoice_paid"), (e) => prop(e, "$browser") ?? ""),
        0
      )
  },
  {
    name: "JSONExtractString of a nested key",
    query:
      "SELECT JSONExtractString(properties, '$set', 'email') AS email FROM events WHERE event = '$identify' ORDER BY timestamp LIMIT 10",
    expected: (m) =>
      named(m, "$identify")
        .slice(0, 10)
        .map((e) => [(prop(e, "$set") as Record<string, unknown>)["email"]])
  },
  {
    name: "JSONExtractInt, JSONExtractBool and JSONHas",
    query:
      "SELECT sum(JSONExtractInt(properties, 'seats')), countIf(JSONExtractBool(properties, 'is_annual')), countIf(JSONHas(properties, 'previous_plan')) FROM events WHERE event IN ('plan_upgraded', 'checkout_started')",
    expected: (m) => {
      const events = named(m, "plan_upgraded", "checkout_started")
      return [
        [
          sum(events.map((e) => (prop(e, "seats") as number | undefined) ?? 0)),
          events.filter((e) => prop(e, "is_annual") === true).length,
          events.filter((e) => prop(e, "previous_plan") !== undefined).length
        ]
      ]
    }
  },
  {
    name: "JSONExtractFloat",
    query: "SELECT sum(JSONExtractFloat(properties, '$prev_pageview_duration')) FROM events WHERE event = '$pageleave'",
    expected: (m) => [[sum(named(m, "$pageleave").map((e) => num(e, "$prev_pageview_duration")))]]
  }
]
