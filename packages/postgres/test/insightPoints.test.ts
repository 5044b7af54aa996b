import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { uuidv7 } from "@zed/core/storage"
import { ADMIN_KEY, call, importEvents, PROJECT_KEY, snapshotPayload } from "../../core/test/support.js"
import { backends } from "./backends.js"

// Points of insights through `POST …/query/`, each answer worked out here from the test's own
// events: the persons behind a point of the compared (previous) period of a trend or stickiness
// insight; the recordings of the events that put each person there (`includeRecordings`,
// PostHog's `matched_recordings`); and actions as funnel steps and retention entities, which give
// what the same filters written as events and property filters give.

const DAY = 86_400_000
const HOUR = 3_600_000
const MINUTE = 60_000
const START = Date.UTC(2025, 4, 1)
const DAYS = Array.from({ length: 14 }, (_, d) => new Date(START + d * DAY).toISOString().slice(0, 10))
const PERSONS = [0, 1, 2, 3, 4, 5]
const PAGES = ["home", "pricing", "docs"]
/** The current period is the second week; the first is the one it is compared with. */
const CURRENT = { date_from: DAYS[7], date_to: DAYS[13] }

type Event = {
  readonly uuid: string
  readonly event: string
  readonly distinct_id: string
  readonly timestamp: string
  readonly properties: Record<string, string>
}

const at = (d: number, ms: number) => new Date(START + d * DAY + ms).toISOString()

// Person p views a page on day d unless (3p + d) % 4 == 0 (u5 only from the second week on), at
// hour 8 + p, and on even p + d /pricing two minutes later in the same session; on day 2p + 1 they
// buy in the evening, plan "pro" for odd p. Sessions with (p + d) % 3 == 0 are recorded.
const EVENTS: ReadonlyArray<Event> = PERSONS.flatMap((p) =>
  DAYS.flatMap((_, d): Array<Event> => {
    const session = `s${p}-${d}`
    const base = { distinct_id: `u${p}`, properties: { $session_id: session } }
    const active = (3 * p + d) % 4 !== 0 && (p !== 5 || d >= 7)
    return [
      ...(active
        ? [
            {
              ...base,
              uuid: uuidv7(),
              event: "$pageview",
              timestamp: at(d, (8 + p) * HOUR),
              properties: { ...base.properties, $current_url: `https://shop.test/${PAGES[(p + d) % 3]}` }
            }
          ]
        : []),
      ...(active && (p + d) % 2 === 0
        ? [
            {
              ...base,
              uuid: uuidv7(),
              event: "$pageview",
              timestamp: at(d, (8 + p) * HOUR + 2 * MINUTE),
              properties: { ...base.properties, $current_url: "https://shop.test/pricing" }
            }
          ]
        : []),
      ...(d === 2 * p + 1
        ? [
            {
              ...base,
              uuid: uuidv7(),
              event: "purchase",
              timestamp: at(d, 20 * HOUR),
              properties: { ...base.properties, plan: p % 2 === 1 ? "pro" : "free" }
            }
          ]
        : [])
    ]
  })
)
const RECORDED = new Set(PERSONS.flatMap((p) => DAYS.flatMap((_, d) => ((p + d) % 3 === 0 ? [`s${p}-${d}`] : []))))

const dayOf = (e: Event) => e.timestamp.slice(0, 10)
const viewsOn = (day: string) => EVENTS.filter((e) => e.event === "$pageview" && dayOf(e) === day)
const sorted = (ids: Iterable<string>) => [...new Set(ids)].sort()

describe.each(["pglite", "postgres", "chdb"])("points of insights on %s", (name) => {
  let zed: Zed
  let cleanup: () => Promise<void>
  const send = (method: string, path: string, body?: unknown) =>
    call(zed, `/api/environments/1${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) })
  const query = async (node: Record<string, unknown>) => {
    const res = await send("POST", "/query/", { query: node, refresh: "force_blocking" })
    expect(res.status, res.text).toBe(200)
    return res.json
  }
  /** The distinct ids of the persons behind a point. */
  const actorIds = async (point: Record<string, unknown>) => {
    const json = await query({
      kind: "ActorsQuery",
      select: ["distinct_ids"],
      limit: 1000,
      source: { kind: "InsightActorsQuery", ...point }
    })
    return json.results.flatMap(([ids]: [Array<string>]) => ids).sort()
  }

  beforeAll(async () => {
    const backend = await backends("insight-points")[name]!()
    cleanup = backend.cleanup
    zed = await createZed({
      storage: backend.storage,
      bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY, adminPassword: null }
    })
    await importEvents(zed, PROJECT_KEY, EVENTS)
    for (const session of RECORDED) {
      const [p, d] = session.slice(1).split("-").map(Number) as [number, number]
      const t = START + d * DAY + (8 + p) * HOUR
      const body = snapshotPayload(session, `u${p}`, {
        w1: [
          { type: 4, timestamp: t, data: { href: "https://shop.test/", width: 800, height: 600 } },
          { type: 2, timestamp: t + 1, data: { node: { type: 0, childNodes: [] } } }
        ]
      })
      const res = await call(zed, "/s/", { method: "POST", key: null, body: JSON.stringify(body) })
      expect(res.status, res.text).toBe(200)
    }
  })
  afterAll(async () => {
    await zed?.close()
    await cleanup?.()
  })

  const trend = { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: CURRENT }

  it("lists the persons behind a point of the compared period, by its own days", async () => {
    const compared = { ...trend, compareFilter: { compare: true } }
    const json = await query(compared)
    const previous = json.results.find((r: { compare_label: string }) => r.compare_label === "previous")
    expect(previous.days).toEqual(DAYS.slice(0, 7))
    expect(previous.data).toEqual(DAYS.slice(0, 7).map((day) => viewsOn(day).length))
    for (const day of [DAYS[2]!, DAYS[5]!]) {
      const expected = sorted(viewsOn(day).map((e) => e.distinct_id))
      expect(expected.length).toBeGreaterThan(0)
      expect(await actorIds({ source: compared, day, compare: "previous" })).toEqual(expected)
    }
    expect(await actorIds({ source: compared, day: DAYS[9], compare: "current" })).toEqual(
      sorted(viewsOn(DAYS[9]!).map((e) => e.distinct_id))
    )
    // Over the whole previous week: u5 was not there yet.
    const week = (from: number) =>
      sorted(DAYS.slice(from, from + 7).flatMap((day) => viewsOn(day).map((e) => e.distinct_id)))
    expect(week(0)).not.toContain("u5")
    expect(await actorIds({ source: compared, compare: "previous" })).toEqual(week(0))
    expect(await actorIds({ source: compared })).toEqual(week(7))
  })

  it("lists the persons of a stickiness count in the compared period", async () => {
    const source = {
      kind: "StickinessQuery",
      series: [{ kind: "EventsNode", event: "$pageview" }],
      dateRange: CURRENT,
      compareFilter: { compare: true }
    }
    const activeDays = (p: number, from: number) =>
      DAYS.slice(from, from + 7).filter((day) => viewsOn(day).some((e) => e.distinct_id === `u${p}`)).length
    const counts = new Set(PERSONS.map((p) => activeDays(p, 0)).filter((k) => k > 0))
    expect(counts.size).toBeGreaterThan(1)
    for (const k of counts)
      expect(await actorIds({ source, day: k, compare: "previous" })).toEqual(
        sorted(PERSONS.filter((p) => activeDays(p, 0) === k).map((p) => `u${p}`))
      )
  })

  /** Each person's recorded sessions among `events`, with those events, as PostHog lists them. */
  const recordingsOf = (events: ReadonlyArray<Event>) => {
    const byPerson = new Map<string, Map<string, Array<Event>>>()
    for (const e of [...events].sort((a, b) => a.timestamp.localeCompare(b.timestamp))) {
      if (!RECORDED.has(e.properties.$session_id!)) continue
      const sessions = byPerson.get(e.distinct_id) ?? new Map<string, Array<Event>>()
      byPerson.set(e.distinct_id, sessions)
      sessions.set(e.properties.$session_id!, [...(sessions.get(e.properties.$session_id!) ?? []), e])
    }
    return byPerson
  }
  type Recording = { session_id: string; events: Array<{ uuid: string; timestamp: string }> }
  const shown = (recordings: Array<Recording>) =>
    recordings.map((r) => ({
      session_id: r.session_id,
      events: r.events.map((e) => [e.uuid, Date.parse(e.timestamp)])
    }))
  const expectedShown = (sessions: Map<string, Array<Event>> | undefined) =>
    [...(sessions ?? [])].map(([session_id, events]) => ({
      session_id,
      events: events.map((e) => [e.uuid, Date.parse(e.timestamp)])
    }))

  it("gives each person the recordings of the events that matched them (includeRecordings)", async () => {
    const day = DAYS[9]!
    const expected = recordingsOf(viewsOn(day))
    expect(expected.size).toBeGreaterThan(0)
    const json = await query({
      kind: "ActorsQuery",
      select: ["person_display_name"],
      source: { kind: "InsightActorsQuery", source: trend, day, includeRecordings: true }
    })
    expect(json.columns).toEqual(["person_display_name", "matched_recordings"])
    const persons = sorted(viewsOn(day).map((e) => e.distinct_id))
    expect(sorted(json.results.map(([p]: [{ distinct_id: string }]) => p.distinct_id))).toEqual(persons)
    for (const [person, recordings] of json.results as Array<[{ distinct_id: string }, Array<Recording>]>)
      expect(shown(recordings), person.distinct_id).toEqual(expectedShown(expected.get(person.distinct_id)))
    // Some persons on that day have recordings and some do not.
    expect(json.results.some(([, r]: [unknown, Array<Recording>]) => r.length === 0)).toBe(true)
    expect(json.zedql).toMatch(/session_replay_events/)
  })

  it("gives the recordings of a stickiness point's events, asked for as a column", async () => {
    const source = { kind: "StickinessQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: CURRENT }
    const week = EVENTS.filter((e) => e.event === "$pageview" && dayOf(e) >= DAYS[7]!)
    const activeDays = (person: string) => new Set(week.filter((e) => e.distinct_id === person).map(dayOf)).size
    const k = activeDays("u1")
    const json = await query({
      kind: "ActorsQuery",
      select: ["distinct_ids", "matched_recordings"],
      source: { kind: "InsightActorsQuery", source, day: k }
    })
    const expected = recordingsOf(week)
    const persons = sorted(PERSONS.map((p) => `u${p}`).filter((person) => activeDays(person) === k))
    expect(sorted(json.results.map(([ids]: [Array<string>]) => ids[0]))).toEqual(persons)
    for (const [[person], recordings] of json.results as Array<[Array<string>, Array<Recording>]>)
      expect(shown(recordings), person).toEqual(expectedShown(expected.get(person!)))
  })

  it("gives the recordings of a funnel's reached steps, a paths edge's, a retention cohort's and a lifecycle status' events", async () => {
    const recordingsOfPoint = async (source: unknown, point: Record<string, unknown>) => {
      const json = await query({
        kind: "ActorsQuery",
        select: ["distinct_ids"],
        limit: 1000,
        source: { kind: "InsightActorsQuery", source, includeRecordings: true, ...point }
      })
      return new Map(
        (json.results as Array<[Array<string>, Array<Recording>]>).map(([[person], recordings]) => [
          person!,
          shown(recordings)
        ])
      )
    }
    const expectedOf = (persons: Iterable<string>, events: ReadonlyArray<Event>) => {
      const recorded = recordingsOf(events)
      return new Map([...persons].map((person) => [person, expectedShown(recorded.get(person))]))
    }
    // Funnel: each buyer's purchase and the latest page view within 14 days before it.
    const funnel = {
      kind: "FunnelsQuery",
      series: [
        { kind: "EventsNode", event: "$pageview" },
        { kind: "EventsNode", event: "purchase" }
      ],
      dateRange: { date_from: DAYS[0], date_to: DAYS[13] }
    }
    const paths = EVENTS.filter((e) => e.event === "purchase").flatMap((purchase) => {
      const before = EVENTS.filter(
        (v) =>
          v.event === "$pageview" &&
          v.distinct_id === purchase.distinct_id &&
          v.timestamp < purchase.timestamp &&
          Date.parse(purchase.timestamp) - Date.parse(v.timestamp) <= 14 * DAY
      ).sort((a, b) => b.timestamp.localeCompare(a.timestamp))
      return before.length === 0 ? [] : [[before[0]!, purchase] as const]
    })
    const funnelExpected = expectedOf(
      paths.map(([view]) => view.distinct_id),
      paths.flat()
    )
    expect([...funnelExpected.values()].some((r) => r.length > 0)).toBe(true)
    expect(await recordingsOfPoint(funnel, { funnelStep: 2 })).toEqual(funnelExpected)
    // Paths: the sessions going from home to pricing, and their page view of pricing.
    const inWeek = EVENTS.filter((e) => e.event === "$pageview" && dayOf(e) >= DAYS[7]!)
    const toPricing = inWeek.filter((e) => {
      const session = inWeek.filter((x) => x.properties.$session_id === e.properties.$session_id)
      return session.length === 2 && session[0]!.properties.$current_url!.endsWith("/home") && session[1] === e
    })
    expect(toPricing.length).toBeGreaterThan(0)
    const edge = {
      kind: "PathsQuery",
      dateRange: CURRENT,
      pathsFilter: {
        includeEventTypes: ["$pageview"],
        pathStartKey: "1_https://shop.test/home",
        pathEndKey: "2_https://shop.test/pricing"
      }
    }
    expect(await recordingsOfPoint(edge, {})).toEqual(
      expectedOf(
        toPricing.map((e) => e.distinct_id),
        toPricing
      )
    )
    // Retention: a day's cohort and its page views that day.
    const retention = {
      kind: "RetentionQuery",
      dateRange: { date_to: DAYS[13] },
      retentionFilter: {
        period: "Day",
        totalIntervals: 14,
        targetEntity: { id: "$pageview", type: "events" },
        returningEntity: { id: "$pageview", type: "events" }
      }
    }
    const cohortViews = viewsOn(DAYS[6]!)
    expect(await recordingsOfPoint(retention, { interval: 6 })).toEqual(
      expectedOf(
        cohortViews.map((e) => e.distinct_id),
        cohortViews
      )
    )
    // Lifecycle: those returning on a day, and their page views that day.
    const lifecycle = {
      kind: "LifecycleQuery",
      series: [{ kind: "EventsNode", event: "$pageview" }],
      dateRange: CURRENT
    }
    const [day, before] = [DAYS[10]!, DAYS[9]!]
    const yesterday = new Set(viewsOn(before).map((e) => e.distinct_id))
    const returning = viewsOn(day).filter((e) => yesterday.has(e.distinct_id))
    expect(returning.length).toBeGreaterThan(0)
    expect(await recordingsOfPoint(lifecycle, { day, status: "returning" })).toEqual(
      expectedOf(
        returning.map((e) => e.distinct_id),
        returning
      )
    )
  })

  describe("actions", () => {
    let pricing: number
    let pro: number
    beforeAll(async () => {
      const make = async (body: Record<string, unknown>) => {
        const res = await send("POST", "/actions/", body)
        expect(res.status, res.text).toBe(201)
        return res.json.id as number
      }
      pricing = await make({ name: "Saw pricing", steps: [{ event: "$pageview", url: "/pricing" }] })
      pro = await make({
        name: "Bought pro",
        steps: [{ event: "purchase", properties: [{ key: "plan", value: "pro", operator: "exact", type: "event" }] }]
      })
    })
    const PRICING_BY_HAND = {
      kind: "EventsNode",
      event: "$pageview",
      properties: [{ key: "$current_url", value: "/pricing", operator: "icontains", type: "event" }]
    }
    const PRO_BY_HAND = {
      kind: "EventsNode",
      event: "purchase",
      properties: [{ key: "plan", value: "pro", operator: "exact", type: "event" }]
    }
    const ALL = { date_from: DAYS[0], date_to: DAYS[13] }

    it("counts a funnel of actions as the same steps written as events and filters", async () => {
      const funnel = (series: Array<unknown>) => ({
        kind: "FunnelsQuery",
        series,
        dateRange: ALL,
        funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: "day" }
      })
      const byAction = funnel([
        { kind: "ActionsNode", id: pricing },
        { kind: "ActionsNode", id: pro, name: "Bought pro", custom_name: "Pro" }
      ])
      const [actions, byHand] = [await query(byAction), await query(funnel([PRICING_BY_HAND, PRO_BY_HAND]))]
      // Worked out: who saw pricing, and who bought pro after seeing it.
      const saw = EVENTS.filter((e) => e.event === "$pageview" && e.properties.$current_url!.endsWith("/pricing"))
      const bought = EVENTS.filter(
        (e) =>
          e.event === "purchase" &&
          e.properties.plan === "pro" &&
          saw.some((s) => s.distinct_id === e.distinct_id && s.timestamp < e.timestamp)
      )
      const counts = [sorted(saw.map((e) => e.distinct_id)).length, sorted(bought.map((e) => e.distinct_id)).length]
      expect(counts[1]).toBeGreaterThan(0)
      expect(counts[1]).toBeLessThan(counts[0]!)
      expect(actions.results.map((s: { count: number }) => s.count)).toEqual(counts)
      expect(byHand.results.map((s: { count: number }) => s.count)).toEqual(counts)
      expect(actions.results[1]).toMatchObject({
        action_id: pro,
        type: "actions",
        name: "Bought pro",
        custom_name: "Pro"
      })
      expect(actions.results[1].average_conversion_time).toBeCloseTo(byHand.results[1].average_conversion_time, 6)
      expect(await actorIds({ source: byAction, funnelStep: 2 })).toEqual(sorted(bought.map((e) => e.distinct_id)))
    })

    it("keeps a retention table of actions as of the same entities written as events and filters", async () => {
      const retention = (target: unknown, returning: unknown) => ({
        kind: "RetentionQuery",
        dateRange: { date_to: DAYS[13] },
        retentionFilter: { period: "Day", totalIntervals: 14, targetEntity: target, returningEntity: returning }
      })
      const byAction = await query(retention({ type: "actions", id: pricing }, { type: "actions", id: pricing }))
      const byHand = await query(
        retention(
          { id: "$pageview", type: "events", properties: PRICING_BY_HAND.properties },
          { id: "$pageview", type: "events", properties: PRICING_BY_HAND.properties }
        )
      )
      const counts = (json: { results: Array<{ values: Array<{ count: number }> }> }) =>
        json.results.map((c) => c.values.map((v) => v.count))
      // Worked out: each day's persons who saw pricing, and which of them saw it again later.
      const sawOn = (day: string) =>
        new Set(
          EVENTS.filter(
            (e) => e.event === "$pageview" && dayOf(e) === day && e.properties.$current_url!.endsWith("/pricing")
          ).map((e) => e.distinct_id)
        )
      const expected = DAYS.map((day, i) => {
        const cohort = sawOn(day)
        return DAYS.slice(i).map((later) => [...sawOn(later)].filter((p) => cohort.has(p)).length)
      })
      expect(counts(byAction)).toEqual(expected)
      expect(counts(byHand)).toEqual(expected)
    })

    it("refuses an action step without its id, and an unknown action", async () => {
      const missing = await send("POST", "/query/", {
        query: { kind: "FunnelsQuery", series: [{ kind: "ActionsNode" }, PRO_BY_HAND] }
      })
      expect(missing.status).toBe(400)
      expect(missing.json.detail).toMatch(/ActionsNode needs the action's id/)
      const retention = await send("POST", "/query/", {
        query: { kind: "RetentionQuery", retentionFilter: { targetEntity: { type: "actions", id: "pricing" } } }
      })
      expect(retention.status).toBe(400)
      expect(retention.json.detail).toMatch(/actions entity needs the action's id/)
      const unknown = await send("POST", "/query/", {
        query: { kind: "FunnelsQuery", series: [{ kind: "ActionsNode", id: 999_999 }, PRO_BY_HAND] },
        refresh: "force_blocking"
      })
      expect(unknown.status, unknown.text).toBe(400)
    })
  })
})
