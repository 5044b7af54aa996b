import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { ADMIN_KEY, call, importEvents, PROJECT_KEY } from "../../core/test/support.js"
import { backends } from "./backends.js"
import { lifecycleCounts } from "./demoZed.js"

// The query API's kinds besides ZedQL through `POST …/query/`: the insight kinds, bare or in an
// InsightVizNode, each result what the test's own events say, worked out here, and the same as the
// saved insight's (refresh modes, background runs, polling, cancellation and filters_override as
// for ZedQL); events tables (EventsQuery, bare or in a DataTableNode); persons (ActorsQuery,
// InsightActorsQuery); the web overview (WebOverviewQuery).

const DAY = 86_400_000
const HOUR = 3_600_000
const START = Date.UTC(2025, 4, 1)
const DAYS = Array.from({ length: 7 }, (_, d) => new Date(START + d * DAY).toISOString().slice(0, 10))
const PERSONS = [0, 1, 2, 3, 4, 5]
const RANGE = { date_from: DAYS[0], date_to: DAYS.at(-1) }

type Event = {
  readonly event: string
  readonly distinct_id: string
  readonly timestamp: string
  readonly properties: { readonly $browser: string; readonly $session_id: string }
}

// Person p views a page on day d unless (p + d) % 3 == 0, at hour 8 + p; the even ones buy on day
// p + 1 at 20:00. Persons 0-2 use Chrome, the others Firefox. A person's events of a day are one session.
const EVENTS: ReadonlyArray<Event> = PERSONS.flatMap((p) => [
  ...DAYS.flatMap((_, d) =>
    (p + d) % 3 === 0
      ? []
      : [
          {
            event: "$pageview",
            distinct_id: `u${p}`,
            timestamp: new Date(START + d * DAY + (8 + p) * HOUR).toISOString(),
            properties: { $browser: p < 3 ? "Chrome" : "Firefox", $session_id: `s${p}-${d}` }
          }
        ]
  ),
  ...(p % 2 === 0
    ? [
        {
          event: "purchase",
          distinct_id: `u${p}`,
          timestamp: new Date(START + (p + 1) * DAY + 20 * HOUR).toISOString(),
          properties: { $browser: p < 3 ? "Chrome" : "Firefox", $session_id: `s${p}-${p + 1}` }
        }
      ]
    : [])
])

const dayOf = (e: Event) => e.timestamp.slice(0, 10)
const views = (keep: (e: Event) => boolean = () => true) => EVENTS.filter((e) => e.event === "$pageview" && keep(e))
/** The persons with a page view on `day`. */
const activeOn = (day: string, keep?: (e: Event) => boolean) =>
  new Set(
    views(keep)
      .filter((e) => dayOf(e) === day)
      .map((e) => e.distinct_id)
  )

const PAGEVIEWS = [{ kind: "EventsNode", event: "$pageview" }]
const SOURCES = {
  TrendsQuery: { kind: "TrendsQuery", series: PAGEVIEWS, dateRange: RANGE },
  FunnelsQuery: {
    kind: "FunnelsQuery",
    series: [...PAGEVIEWS, { kind: "EventsNode", event: "purchase" }],
    dateRange: RANGE
  },
  RetentionQuery: {
    kind: "RetentionQuery",
    dateRange: { date_to: DAYS.at(-1) },
    retentionFilter: {
      period: "Day",
      totalIntervals: 7,
      retentionType: "retention_recurring",
      targetEntity: { id: "$pageview", type: "events" },
      returningEntity: { id: "$pageview", type: "events" }
    }
  },
  StickinessQuery: { kind: "StickinessQuery", series: PAGEVIEWS, dateRange: RANGE },
  LifecycleQuery: { kind: "LifecycleQuery", series: PAGEVIEWS, dateRange: { date_from: DAYS[1], date_to: DAYS.at(-1) } }
}

describe.each(["pglite", "chdb"])("query kinds through the query API on %s", (name) => {
  let zed: Zed
  let cleanup: () => Promise<void>
  beforeAll(async () => {
    const backend = await backends("query-insights")[name]!()
    cleanup = backend.cleanup
    zed = await createZed({
      storage: backend.storage,
      bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY, adminPassword: null }
    })
    await importEvents(zed, PROJECT_KEY, EVENTS)
  })
  afterAll(async () => {
    await zed?.close()
    await cleanup?.()
  })

  const send = (method: string, path: string, body?: unknown) =>
    call(zed, `/api/environments/1${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) })
  const query = async (body: Record<string, unknown>) => {
    const res = await send("POST", "/query/", body)
    expect(res.status, res.text).toBe(200)
    return res.json
  }
  const byTime = (a: Event, b: Event) => (a.timestamp < b.timestamp ? 1 : -1)

  it("counts page views by day (TrendsQuery), with the ZedQL it ran", async () => {
    const json = await query({ query: SOURCES.TrendsQuery, refresh: "force_blocking" })
    const data = DAYS.map((day) => views((e) => dayOf(e) === day).length)
    expect(json.results).toHaveLength(1)
    expect(json.results[0]).toMatchObject({ days: DAYS, data, count: data.reduce((a, b) => a + b, 0) })
    expect(json).toMatchObject({ is_cached: false, error: null, query_status: null })
    expect(json.zedql).toMatch(/FROM events/)
    expect(json.cache_key).toMatch(/^cache_/)
  })

  it("converts viewers into buyers within the window (FunnelsQuery)", async () => {
    const json = await query({ query: SOURCES.FunnelsQuery, refresh: "force_blocking" })
    const viewers = new Set(views().map((e) => e.distinct_id))
    const buyers = new Set(
      EVENTS.filter(
        (p) =>
          p.event === "purchase" &&
          views((v) => v.distinct_id === p.distinct_id).some(
            (v) => v.timestamp < p.timestamp && Date.parse(p.timestamp) - Date.parse(v.timestamp) <= 14 * DAY
          )
      ).map((e) => e.distinct_id)
    )
    expect(buyers.size).toBeGreaterThan(1)
    expect(json.results.map((s: { name: string; count: number }) => [s.name, s.count])).toEqual([
      ["$pageview", viewers.size],
      ["purchase", buyers.size]
    ])
  })

  it("keeps each day's viewers and counts who comes back (RetentionQuery)", async () => {
    const json = await query({ query: SOURCES.RetentionQuery, refresh: "force_blocking" })
    const expected = DAYS.map((day, i) => {
      const cohort = activeOn(day)
      return DAYS.slice(i).map((later) => [...activeOn(later)].filter((p) => cohort.has(p)).length)
    })
    expect(json.results.map((c: { values: Array<{ count: number }> }) => c.values.map((v) => v.count))).toEqual(
      expected
    )
    expect(json.results.map((c: { date: string }) => c.date.slice(0, 10))).toEqual(DAYS)
  })

  it("counts persons by their number of active days (StickinessQuery)", async () => {
    const json = await query({ query: SOURCES.StickinessQuery, refresh: "force_blocking" })
    const activeDays = PERSONS.map((p) => DAYS.filter((day) => activeOn(day).has(`u${p}`)).length)
    expect(json.results[0].data).toEqual(DAYS.map((_, k) => activeDays.filter((n) => n === k + 1).length))
  })

  it("splits each day's viewers into new, returning, resurrecting and dormant (LifecycleQuery)", async () => {
    const json = await query({ query: SOURCES.LifecycleQuery, refresh: "force_blocking" })
    const days = DAYS.slice(1)
    const firstDay = (p: string) =>
      EVENTS.filter((e) => e.distinct_id === p)
        .map(dayOf)
        .sort()[0]
    const statuses = (day: string, before: string) =>
      lifecycleCounts(activeOn(day), activeOn(before), (p) => firstDay(p) === day)
    const expected = (["new", "returning", "resurrecting", "dormant"] as const).map((status) => ({
      status,
      data: days.map((day, i) => statuses(day, DAYS[i]!)[status])
    }))
    expect(json.results.map(({ data, status }: { data: Array<number>; status: string }) => ({ status, data }))).toEqual(
      expected
    )
  })

  it("gives the saved insight's result, bare or in an InsightVizNode, and answers from the cache after", async () => {
    for (const [kind, source] of Object.entries(SOURCES)) {
      const insight = (
        await call(zed, "/api/projects/1/insights/", {
          method: "POST",
          body: JSON.stringify({ name: kind, query: { kind: "InsightVizNode", source } })
        })
      ).json
      const saved = (await call(zed, `/api/projects/1/insights/${insight.id}/?refresh=force_blocking`)).json
      expect(saved.result, kind).not.toBeNull()
      const wrapped = await query({ query: { kind: "InsightVizNode", source } })
      expect(wrapped.results, kind).toEqual(saved.result)
      expect(wrapped, kind).toMatchObject({ is_cached: true, last_refresh: saved.last_refresh })
      const bare = await query({ query: source })
      expect(bare, kind).toMatchObject({ results: saved.result, is_cached: true, zedql: saved.zedql })
    }
  })

  it("applies filters_override: the date range replaced, the properties added", async () => {
    const chrome = [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }]
    const json = await query({
      query: SOURCES.TrendsQuery,
      filters_override: { date_from: DAYS[2], properties: chrome },
      refresh: "force_blocking"
    })
    const days = DAYS.slice(2)
    expect(json.results[0]).toMatchObject({
      days,
      data: days.map((day) => views((e) => dayOf(e) === day && e.properties.$browser === "Chrome").length)
    })
  })

  it("runs in the background when asked, is polled to its result, then cancelled and forgotten", async () => {
    const source = { ...SOURCES.StickinessQuery, dateRange: { date_from: DAYS[1], date_to: DAYS.at(-1) } }
    const started = await send("POST", "/query/", {
      query: source,
      refresh: "force_async",
      client_query_id: `stickiness-${name}`
    })
    expect(started.status).toBe(202)
    expect(started.json.query_status).toMatchObject({ id: `stickiness-${name}`, query_async: true })
    let polled = await send("GET", `/query/stickiness-${name}/`)
    for (let i = 0; polled.status === 202 && i < 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25))
      polled = await send("GET", `/query/stickiness-${name}/`)
    }
    expect(polled.status, polled.text).toBe(200)
    const activeDays = PERSONS.map((p) => DAYS.slice(1).filter((day) => activeOn(day).has(`u${p}`)).length)
    expect(polled.json.query_status.results.results[0].data).toEqual(
      DAYS.slice(1).map((_, k) => activeDays.filter((n) => n === k + 1).length)
    )
    expect((await send("DELETE", `/query/stickiness-${name}/`)).status).toBe(204)
    expect((await send("GET", `/query/stickiness-${name}/`)).status).toBe(404)
    // The result was cached: force_cache answers it without computing.
    expect((await query({ query: source, refresh: "force_cache" })).results).toEqual(
      polled.json.query_status.results.results
    )
  })

  it("refuses an insight node its planner cannot plan, and kinds it does not run, with the list", async () => {
    const bad = await send("POST", "/query/", { query: { ...SOURCES.TrendsQuery, interval: "fortnight" } })
    expect(bad.status).toBe(400)
    expect(bad.json).toMatchObject({
      code: "invalid_query",
      detail: expect.stringMatching(/^Invalid TrendsQuery: interval/)
    })
    const wrapped = await send("POST", "/query/", {
      query: { kind: "InsightVizNode", source: { kind: "FunnelsQuery", series: PAGEVIEWS } }
    })
    expect(wrapped.status).toBe(400)
    expect(wrapped.json).toMatchObject({
      code: "invalid_query",
      attr: "query",
      detail: expect.stringMatching(/^Invalid FunnelsQuery: series/)
    })
    const other = await send("POST", "/query/", { query: { kind: "SessionsTimelineQuery" } })
    expect(other.status).toBe(400)
    expect(other.json).toMatchObject({ code: "unsupported_kind", attr: "query__kind" })
    expect(other.json.detail).toContain("TrendsQuery, FunnelsQuery, RetentionQuery, StickinessQuery, LifecycleQuery")
  })

  it("lists events newest first, whole or by column, filtered, paged (EventsQuery)", async () => {
    // By default only the last 24 hours: these events are older.
    const recent = await query({ query: { kind: "EventsQuery", select: ["event"] }, refresh: "force_blocking" })
    expect(recent).toMatchObject({ results: [], hasMore: false, columns: ["event"] })

    const select = ["*", "event", "person -- Person", "properties.$browser", "timestamp"]
    const page = await query({
      query: {
        kind: "EventsQuery",
        select,
        event: "$pageview",
        properties: [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }],
        after: "all",
        limit: 5,
        offset: 2
      },
      refresh: "force_blocking"
    })
    const chrome = views((e) => e.properties.$browser === "Chrome").sort(byTime)
    expect(chrome.length).toBeGreaterThan(7)
    expect(page).toMatchObject({ columns: select, hasMore: true, limit: 5, offset: 2 })
    expect(page.types).toHaveLength(select.length)
    expect(
      page.results.map(([whole, event, person, browser, timestamp]: Array<Record<string, unknown>>) => {
        expect(whole!.distinct_id).toBe(person!.distinct_id)
        expect(Date.parse(String(whole!.timestamp))).toBe(Date.parse(String(timestamp)))
        const { $browser } = whole!.properties as Record<string, unknown>
        return [whole!.event, $browser, event, browser, whole!.distinct_id, Date.parse(String(timestamp))]
      })
    ).toEqual(
      chrome.slice(2, 7).map((e) => [e.event, "Chrome", e.event, "Chrome", e.distinct_id, Date.parse(e.timestamp)])
    )
    const last = await query({
      query: { kind: "EventsQuery", select: ["event"], event: "$pageview", after: "all", offset: views().length - 1 },
      refresh: "force_blocking"
    })
    expect(last).toMatchObject({ results: [["$pageview"]], hasMore: false })
  })

  it("groups by the other columns when the select aggregates, within after and before (EventsQuery)", async () => {
    const json = await query({
      query: {
        kind: "DataTableNode",
        source: {
          kind: "EventsQuery",
          select: ["event", "count() -- Total"],
          after: DAYS[1],
          before: DAYS[5],
          orderBy: ["event"]
        }
      },
      refresh: "force_blocking"
    })
    const counts = new Map<string, number>()
    for (const e of EVENTS.filter((e) => dayOf(e) >= DAYS[1]! && dayOf(e) < DAYS[5]!))
      counts.set(e.event, (counts.get(e.event) ?? 0) + 1)
    expect(json.results).toEqual([...counts].sort(([a], [b]) => (a < b ? -1 : 1)))
    expect(json.zedql).toMatch(/GROUP BY event/)
  })

  it("lists one person's events matching where expressions (EventsQuery)", async () => {
    const [[person]] = (
      await query({
        query: { kind: "EventsQuery", select: ["person"], where: ["distinct_id = 'u4'"], after: "all", limit: 1 }
      })
    ).results
    const json = await query({
      query: {
        kind: "EventsQuery",
        select: ["event", "timestamp"],
        personId: person.uuid,
        where: ["properties.$browser = 'Firefox'", "toDayOfWeek(timestamp) != 7"],
        after: "all",
        limit: 1000
      },
      refresh: "force_blocking"
    })
    const expected = EVENTS.filter((e) => e.distinct_id === "u4" && new Date(e.timestamp).getUTCDay() !== 0).sort(
      byTime
    )
    expect(expected.length).toBeGreaterThan(2)
    expect(json.results.map(([event, at]: [string, string]) => [event, Date.parse(at)])).toEqual(
      expected.map((e) => [e.event, Date.parse(e.timestamp)])
    )
  })

  it("answers a mistake in an EventsQuery expression with a 400", async () => {
    const unknown = await send("POST", "/query/", { query: { kind: "EventsQuery", select: ["nope"] } })
    expect(unknown.status).toBe(400)
    expect(unknown.json).toMatchObject({
      code: "zedql_query_error",
      detail: "Unable to resolve field: nope",
      start: null
    })
    const clause = await send("POST", "/query/", { query: { kind: "EventsQuery", select: ["event FROM persons"] } })
    expect(clause.status).toBe(400)
    const extra = await send("POST", "/query/", { query: { kind: "EventsQuery", select: ["event"], actionId: 3 } })
    expect(extra.json).toMatchObject({ code: "invalid_input", attr: "query__actionId" })
  })

  /** The distinct ids of an actors query's persons, sorted. */
  const actorIds = async (node: Record<string, unknown>) => {
    const json = await query({ query: { ...node, select: ["distinct_ids"], limit: 1000 }, refresh: "force_blocking" })
    expect(json.hasMore).toBe(false)
    return json.results.flatMap(([ids]: [Array<string>]) => ids).sort()
  }
  const sorted = (ids: Iterable<string>) => [...ids].sort()

  it("lists the persons behind a trend's point, by day and breakdown value (InsightActorsQuery)", async () => {
    const source = { ...SOURCES.TrendsQuery, breakdownFilter: { breakdown: "$browser", breakdown_type: "event" } }
    // Sent alone, an InsightActorsQuery lists its persons in the default columns.
    const alone = await query({ query: { kind: "InsightActorsQuery", source: SOURCES.TrendsQuery, day: DAYS[2] } })
    expect(alone.columns).toEqual(["person", "id", "created_at"])
    expect(sorted(alone.results.map(([person]: [{ distinct_ids: Array<string> }]) => person.distinct_ids[0]))).toEqual(
      sorted(activeOn(DAYS[2]!))
    )
    const firefox = sorted(activeOn(DAYS[3]!, (e) => e.properties.$browser === "Firefox"))
    expect(firefox.length).toBeGreaterThan(0)
    expect(
      await actorIds({
        kind: "ActorsQuery",
        source: { kind: "InsightActorsQuery", source, day: DAYS[3], breakdown: "Firefox" }
      })
    ).toEqual(firefox)
  })

  it("lists the persons who converted at a funnel step, and those who dropped before it (InsightActorsQuery)", async () => {
    const buyers = EVENTS.filter(
      (p) =>
        p.event === "purchase" && views((v) => v.distinct_id === p.distinct_id).some((v) => v.timestamp < p.timestamp)
    ).map((e) => e.distinct_id)
    const viewers = new Set(views().map((e) => e.distinct_id))
    const point = (funnelStep: number) => ({
      kind: "ActorsQuery",
      source: { kind: "InsightActorsQuery", source: SOURCES.FunnelsQuery, funnelStep }
    })
    expect(await actorIds(point(2))).toEqual(sorted(new Set(buyers)))
    expect(await actorIds(point(-2))).toEqual(sorted([...viewers].filter((p) => !buyers.includes(p))))
    expect(await actorIds(point(1))).toEqual(sorted(viewers))
    const bad = await send("POST", "/query/", { query: point(3) })
    expect(bad.status).toBe(400)
    expect(bad.json.detail).toMatch(/^Invalid ActorsQuery: funnelStep/)
  })

  it("lists the persons of a retention cohort, a stickiness count, a lifecycle status (InsightActorsQuery)", async () => {
    const point = (source: unknown, fields: Record<string, unknown>) => ({
      kind: "ActorsQuery",
      source: { kind: "InsightActorsQuery", source, ...fields }
    })
    expect(await actorIds(point(SOURCES.RetentionQuery, { interval: 2 }))).toEqual(sorted(activeOn(DAYS[2]!)))
    const activeDays = new Map(PERSONS.map((p) => [`u${p}`, DAYS.filter((day) => activeOn(day).has(`u${p}`)).length]))
    for (const k of [4, 5])
      expect(await actorIds(point(SOURCES.StickinessQuery, { day: k }))).toEqual(
        sorted([...activeDays].filter(([, n]) => n === k).map(([p]) => p))
      )
    const [day, before] = [DAYS[4]!, DAYS[3]!]
    const [today, yesterday] = [activeOn(day), activeOn(before)]
    const lifecycle = (status: string) => point(SOURCES.LifecycleQuery, { day, status })
    expect(await actorIds(lifecycle("returning"))).toEqual(sorted([...today].filter((p) => yesterday.has(p))))
    expect(await actorIds(lifecycle("resurrecting"))).toEqual(sorted([...today].filter((p) => !yesterday.has(p))))
    expect(await actorIds(lifecycle("dormant"))).toEqual(sorted([...yesterday].filter((p) => !today.has(p))))
  })

  it("pages through persons, newest first, and finds them by distinct id (ActorsQuery)", async () => {
    const firstSeen = PERSONS.map((p) => ({
      id: `u${p}`,
      at: EVENTS.filter((e) => e.distinct_id === `u${p}`)
        .map((e) => e.timestamp)
        .sort()[0]!
    })).sort((a, b) => (a.at < b.at ? 1 : -1))
    const page = async (offset: number) =>
      (await query({ query: { kind: "ActorsQuery", select: ["person", "id"], limit: 4, offset } })) as {
        results: Array<[{ distinct_ids: Array<string>; id: string }, string]>
        hasMore: boolean
      }
    const [first, second] = [await page(0), await page(4)]
    expect([first.hasMore, second.hasMore]).toEqual([true, false])
    const ids = [...first.results, ...second.results].map(([person, id]) => {
      expect(person.id).toBe(id)
      return person.distinct_ids[0]
    })
    expect(ids).toEqual(firstSeen.map((p) => p.id))
    const found = await query({ query: { kind: "ActorsQuery", select: ["person_display_name"], search: "U3" } })
    expect(found.results).toEqual([[expect.objectContaining({ display_name: "u3", distinct_id: "u3" })]])
    expect((await query({ query: { kind: "ActorsQuery", search: "u_" } })).results).toEqual([])
  })

  it("sums up visitors, views, sessions, their duration and bounce rate, beside the period before (WebOverviewQuery)", async () => {
    /** The figures over the days from `first` to `last` (indexes into DAYS), worked out from the events. */
    const figures = (first: number, last: number) => {
      const inRange = (day: string) => day >= (DAYS[first] ?? "") && day <= (DAYS[last] ?? "")
      const viewed = views((e) => first >= 0 && inRange(dayOf(e)))
      const sessions = [...new Set(viewed.map((e) => e.properties.$session_id))].map((id) => {
        const all = EVENTS.filter((e) => e.properties.$session_id === id).map((e) => Date.parse(e.timestamp))
        const seconds = (Math.max(...all) - Math.min(...all)) / 1000
        const pageviews = EVENTS.filter((e) => e.properties.$session_id === id && e.event === "$pageview").length
        return { seconds, bounced: pageviews === 1 && seconds < 10 }
      })
      const mean = (xs: Array<number>) => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length)
      const rate = mean(sessions.map((s) => (s.bounced ? 100 : 0)))
      return [
        new Set(viewed.map((e) => e.distinct_id)).size,
        viewed.length,
        sessions.length,
        mean(sessions.map((s) => s.seconds)),
        rate
      ]
    }
    const overview = async (first: number, last: number) => {
      const json = await query({
        query: { kind: "WebOverviewQuery", dateRange: { date_from: DAYS[first], date_to: DAYS[last] } },
        refresh: "force_blocking"
      })
      expect(json.results.map((r: { key: string }) => r.key)).toEqual([
        "visitors",
        "views",
        "sessions",
        "session duration",
        "bounce rate"
      ])
      return json.results as Array<{ value: number | null; previous: number | null }>
    }
    const close = (actual: Array<number | null>, expected: Array<number | null>) => {
      expect(actual.map((v) => v === null)).toEqual(expected.map((v) => v === null))
      actual.forEach((v, i) => v !== null && expect(v).toBeCloseTo(expected[i]!, 2))
    }
    const last3 = await overview(4, 6)
    close(
      last3.map((r) => r.value),
      figures(4, 6)
    )
    close(
      last3.map((r) => r.previous),
      figures(1, 3)
    )
    // Sessions with a purchase last hours: not bounces.
    const bounce = figures(0, 6)[4]!
    expect(bounce).toBeGreaterThan(0)
    expect(bounce).toBeLessThan(100)
    const week = await overview(0, 6)
    close(
      week.map((r) => r.value),
      figures(0, 6)
    )
    expect(week.map((r) => r.previous)).toEqual([0, 0, 0, null, null])
  })

  it("breaks views and visitors down by browser, beside the period before, paged (WebStatsTableQuery)", async () => {
    const byBrowser = (first: number, last: number) => {
      const viewed = views((e) => dayOf(e) >= DAYS[first]! && dayOf(e) <= DAYS[last]!)
      return new Map(
        ["Chrome", "Firefox"].map((browser) => {
          const of = viewed.filter((e) => e.properties.$browser === browser)
          return [browser, [new Set(of.map((e) => e.distinct_id)).size, of.length]] as const
        })
      )
    }
    const [now, before] = [byBrowser(4, 6), byBrowser(1, 3)]
    const allVisitors = [...now.values()].reduce((sum, [visitors]) => sum + visitors!, 0)
    const expected = [...now]
      .sort(([a, [x, u]], [b, [y, v]]) => y! - x! || v! - u! || (a < b ? -1 : 1))
      .map(([browser, [visitors, count]]) => [
        browser,
        [visitors, before.get(browser)![0]],
        [count, before.get(browser)![1]],
        visitors! / allVisitors,
        ""
      ])
    const page = (limit: number, offset: number) =>
      query({
        query: {
          kind: "WebStatsTableQuery",
          breakdownBy: "Browser",
          dateRange: { date_from: DAYS[4], date_to: DAYS[6] },
          limit,
          offset
        },
        refresh: "force_blocking"
      })
    const all = await page(10, 0)
    expect(all).toMatchObject({ results: expected, hasMore: false })
    expect(all.columns).toEqual([
      "context.columns.breakdown_value",
      "context.columns.visitors",
      "context.columns.views",
      "context.columns.ui_fill_fraction",
      "context.columns.cross_sell"
    ])
    expect(await page(1, 1)).toMatchObject({ results: expected.slice(1), hasMore: false })
    expect((await page(1, 0)).hasMore).toBe(true)
  })
})
