import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import fc from "fast-check"
import { ADMIN_KEY, call, importEvents, PROJECT_KEY } from "../../core/test/support.js"
import { backends } from "./backends.js"

// PathsQuery through `POST …/query/`: the edges between the steps of the persons' session paths,
// each query's answer worked out here from the test's own events by the rules PostHog's paths
// follow (nodes, sessions cut at 30 minutes, repeats merged, start and end points, step limit,
// cleaning rules, groupings, exclusions, edge weights), and the persons behind an edge.

const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
const START = Date.UTC(2025, 5, 2)
const HOST = "https://shop.test"
const PAGES = ["/home", "/about/", "/pricing", "/product/1", "/product/2", "/cart", "/checkout"]
const CUSTOM = ["signed up", "added to cart"]

type Event = {
  readonly event: string
  readonly distinct_id: string
  readonly timestamp: string
  readonly properties: Record<string, string>
}

/** A small deterministic generator, so that the fixed data set is the same on every run. */
const random = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
  return seed / 2_147_483_648
}

/**
 * Persons u0…u9 on `day`: two or three visits each, hours apart; within a visit, page views (and
 * now and then a custom event or a screen) seconds to minutes apart, sometimes the same page twice
 * in a row, one visit with a 40-minute pause in it.
 */
const visits = (day: number, seed: number, persons = 10): Array<Event> => {
  const next = random(seed)
  const pick = <T>(xs: ReadonlyArray<T>) => xs[Math.floor(next() * xs.length)]!
  const events: Array<Event> = []
  for (let p = 0; p < persons; p++) {
    const visitsOf = 2 + Math.floor(next() * 2)
    for (let v = 0; v < visitsOf; v++) {
      let t = START + day * DAY + (1 + v * 4) * HOUR + p * MINUTE
      const length = 2 + Math.floor(next() * 12)
      let page = pick(PAGES)
      for (let i = 0; i < length; i++) {
        const roll = next()
        const base = { distinct_id: `u${p}`, timestamp: new Date(t).toISOString() }
        if (roll < 0.1) events.push({ ...base, event: pick(CUSTOM), properties: {} })
        else if (roll < 0.15) events.push({ ...base, event: "$screen", properties: { $screen_name: "Home screen" } })
        else {
          if (next() > 0.2) page = pick(PAGES)
          events.push({ ...base, event: "$pageview", properties: { $current_url: `${HOST}${page}` } })
        }
        t += (p === 3 && v === 0 && i === 0 ? 40 * MINUTE : 0) + (5 + Math.floor(next() * 300)) * SECOND
      }
    }
  }
  return events
}

interface PathsFilter {
  readonly includeEventTypes?: ReadonlyArray<string>
  readonly startPoint?: string
  readonly endPoint?: string
  readonly stepLimit?: number
  readonly excludeEvents?: ReadonlyArray<string>
  readonly pathGroupings?: ReadonlyArray<string>
  readonly localPathCleaningFilters?: ReadonlyArray<{ readonly regex: string; readonly alias: string }>
  readonly minEdgeWeight?: number
  readonly maxEdgeWeight?: number
  readonly edgeLimit?: number
}

interface Edge {
  readonly source: string
  readonly target: string
  readonly value: number
  readonly average_conversion_time: number
}

interface Step {
  readonly node: string
  readonly time: number
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** Every session path of the events (only those in [from, to)), as lists of steps. */
const sessionPaths = (events: ReadonlyArray<Event>, filter: PathsFilter): Array<Array<Step>> => {
  const types = filter.includeEventTypes ?? []
  const excluded = filter.excludeEvents ?? []
  const taken = (e: Event) =>
    types.length === 0 || types.includes(e.event) || (types.includes("custom_event") && !e.event.startsWith("$"))
  const asked = (type: string) => (types.length === 0 ? !excluded.includes(type) : types.includes(type))
  const nodeOf = (e: Event) => {
    let node =
      e.event === "$pageview" && asked("$pageview")
        ? (e.properties.$current_url ?? "").replace(/(.)\/$/, "$1")
        : e.event === "$screen" && asked("$screen")
          ? (e.properties.$screen_name ?? "")
          : e.event
    for (const rule of filter.localPathCleaningFilters ?? [])
      node = node.replace(new RegExp(rule.regex, "g"), rule.alias)
    const group = (filter.pathGroupings ?? []).find((g) => new RegExp(g.split("*").map(escape).join(".*")).test(node))
    return group ?? node
  }
  const byPerson = new Map<string, Array<Step>>()
  for (const e of [...events].sort((a, b) => a.timestamp.localeCompare(b.timestamp))) {
    if (!taken(e)) continue
    const node = nodeOf(e)
    if (excluded.includes(node)) continue
    byPerson.set(e.distinct_id, [...(byPerson.get(e.distinct_id) ?? []), { node, time: Date.parse(e.timestamp) }])
  }
  const paths: Array<Array<Step>> = []
  for (const steps of byPerson.values()) {
    let session: Array<Step> = []
    steps.forEach((step, i) => {
      if (i > 0 && step.time - steps[i - 1]!.time >= 30 * MINUTE) {
        paths.push(session)
        session = []
      }
      session.push(step)
    })
    paths.push(session)
  }
  const trim = (p: string | undefined) => (p && p.length > 1 && p.endsWith("/") ? p.slice(0, -1) : p)
  const [start, end] = [trim(filter.startPoint), trim(filter.endPoint)]
  const limit = filter.stepLimit ?? 5
  return paths.flatMap((session) => {
    // A node followed at once by itself is one step: the last of the run.
    let path = session.filter((step, i) => session[i + 1]?.node !== step.node)
    if (start !== undefined) {
      const i = path.findIndex((s) => s.node === start)
      if (i < 0) return []
      path = path.slice(i)
    }
    if (end !== undefined) {
      const i = path.findIndex((s) => s.node === end)
      if (i < 0) return []
      path = path.slice(0, i + 1)
    }
    if (start !== undefined && end !== undefined) {
      const half = Math.floor(limit / 2)
      if (path.length > limit)
        path = [...path.slice(0, half), { node: "...", time: path[half]!.time }, ...path.slice(path.length - half)]
      return [path]
    }
    return [end !== undefined ? path.slice(Math.max(0, path.length - limit)) : path.slice(0, limit)]
  })
}

/** The edges of the session paths, weighted, sorted, cut and trimmed to those reachable from a first step. */
const expectedEdges = (events: ReadonlyArray<Event>, filter: PathsFilter): Array<Edge> => {
  const edges = new Map<string, { source: string; target: string; times: Array<number> }>()
  for (const path of sessionPaths(events, filter)) {
    for (let k = 1; k < path.length; k++) {
      const [source, target] = [`${k}_${path[k - 1]!.node}`, `${k + 1}_${path[k]!.node}`]
      const edge = edges.get(`${source}\n${target}`) ?? { source, target, times: [] }
      edge.times.push(Math.floor(path[k]!.time / SECOND) - Math.floor(path[k - 1]!.time / SECOND))
      edges.set(`${source}\n${target}`, edge)
    }
  }
  const bytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b))
  const kept = [...edges.values()]
    .map((e) => ({
      source: e.source,
      target: e.target,
      value: e.times.length,
      average_conversion_time: (e.times.reduce((a, b) => a + b, 0) / e.times.length) * 1000
    }))
    .filter((e) => e.value >= (filter.minEdgeWeight ?? 0) && e.value <= (filter.maxEdgeWeight ?? Infinity))
    .sort((a, b) => b.value - a.value || bytes(a.source, b.source) || bytes(a.target, b.target))
    .slice(0, filter.edgeLimit ?? 50)
  return reachableEdges(kept)
}

/** The edges reachable from a first step (`1_…`) through the edges given. */
const reachableEdges = (kept: ReadonlyArray<Edge>): Array<Edge> => {
  const next = new Map<string, Array<string>>()
  for (const e of kept) next.set(e.source, [...(next.get(e.source) ?? []), e.target])
  const seen = new Set<string>()
  const stack = kept.filter((e) => e.source.startsWith("1_")).map((e) => e.source)
  while (stack.length > 0) {
    const node = stack.pop()!
    if (seen.has(node)) continue
    seen.add(node)
    stack.push(...(next.get(node) ?? []))
  }
  return kept.filter((e) => seen.has(e.source))
}

/** The persons whose session paths take an edge from `from` to `to` (either may be left out). */
const expectedActors = (events: ReadonlyArray<Event>, filter: PathsFilter, from?: string, to?: string) =>
  new Set(
    [...new Set(events.map((e) => e.distinct_id))].filter((person) =>
      sessionPaths(
        events.filter((e) => e.distinct_id === person),
        filter
      ).some((path) =>
        path.some(
          (step, k) =>
            (to === undefined || `${k + 1}_${step.node}` === to) &&
            (from === undefined || (k > 0 && `${k}_${path[k - 1]!.node}` === from))
        )
      )
    )
  )

const EVENTS = visits(0, 7, 24)
const DAY0 = new Date(START).toISOString().slice(0, 10)
const RANGE = { date_from: DAY0, date_to: DAY0 }
const WITHOUT_HOST = [{ regex: `^${escape(HOST)}`, alias: "" }]
/** Days after the fixed data set's, one per generated case. */
const PROPERTY_DAYS = 8

describe.each(["pglite", "chdb"])("paths through the query API on %s", (name) => {
  let zed: Zed
  let cleanup: () => Promise<void>
  const generated = Array.from({ length: PROPERTY_DAYS }, (_, i) => visits(i + 1, 100 + i, 6))
  beforeAll(async () => {
    const backend = await backends("query-paths")[name]!()
    cleanup = backend.cleanup
    zed = await createZed({
      storage: backend.storage,
      bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY, adminPassword: null }
    })
    await importEvents(zed, PROJECT_KEY, [...EVENTS, ...generated.flat()])
  })
  afterAll(async () => {
    await zed?.close()
    await cleanup?.()
  })

  const send = (body: unknown) =>
    call(zed, "/api/environments/1/query/", { method: "POST", body: JSON.stringify(body) })
  const paths = async (pathsFilter: PathsFilter, dateRange: Record<string, string> = RANGE) => {
    const res = await send({ query: { kind: "PathsQuery", dateRange, pathsFilter }, refresh: "force_blocking" })
    expect(res.status, res.text).toBe(200)
    return res.json
  }
  const same = (actual: ReadonlyArray<Edge>, expected: ReadonlyArray<Edge>) => {
    expect(actual.map(({ average_conversion_time, ...e }) => e)).toEqual(
      expected.map(({ average_conversion_time, ...e }) => e)
    )
    actual.forEach((e, i) => expect(e.average_conversion_time).toBeCloseTo(expected[i]!.average_conversion_time, 3))
  }

  it("links the page views of each session, step by step, with the ZedQL it ran", async () => {
    const filter = { includeEventTypes: ["$pageview"], localPathCleaningFilters: WITHOUT_HOST }
    const json = await paths(filter)
    const expected = expectedEdges(EVENTS, filter)
    expect(expected.length).toBeGreaterThan(10)
    // Trailing slashes go, and steps start from 1.
    expect(expected.some((e) => e.target.endsWith("_/about"))).toBe(true)
    same(json.results, expected)
    expect(json.zedql).toMatch(/FROM events/)
    expect(json).toMatchObject({ is_cached: false, error: null })
  })

  it("cuts a person's events into sessions at a 30-minute pause, and merges a page repeated at once", async () => {
    const filter = { includeEventTypes: ["$pageview", "$screen", "custom_event"], stepLimit: 20 }
    const json = await paths(filter)
    same(json.results, expectedEdges(EVENTS, filter))
    // The data has both: a pause within a visit, and a page viewed twice in a row.
    const byPerson = (p: string) => EVENTS.filter((e) => e.distinct_id === p)
    const gaps = byPerson("u3").map((e, i, all) =>
      i === 0 ? 0 : Date.parse(e.timestamp) - Date.parse(all[i - 1]!.timestamp)
    )
    expect(gaps.some((gap) => gap >= 30 * MINUTE && gap < 2 * HOUR)).toBe(true)
    const repeated = EVENTS.some((e, i) => {
      const before = EVENTS[i - 1]
      return (
        before?.distinct_id === e.distinct_id &&
        before.properties.$current_url === e.properties.$current_url &&
        e.event === "$pageview" &&
        before.event === "$pageview"
      )
    })
    expect(repeated).toBe(true)
  })

  it("starts at a start point, ends at an end point, and keeps both ends of a long path between them", async () => {
    for (const filter of [
      {
        includeEventTypes: ["$pageview"],
        localPathCleaningFilters: WITHOUT_HOST,
        startPoint: "/pricing",
        stepLimit: 4
      },
      { includeEventTypes: ["$pageview"], localPathCleaningFilters: WITHOUT_HOST, endPoint: "/about/", stepLimit: 3 },
      { localPathCleaningFilters: WITHOUT_HOST, startPoint: "/home", endPoint: "/checkout", stepLimit: 5 },
      { localPathCleaningFilters: WITHOUT_HOST, startPoint: "/home", endPoint: "/checkout", stepLimit: 20 }
    ]) {
      const expected = expectedEdges(EVENTS, filter)
      expect(expected.length, JSON.stringify(filter)).toBeGreaterThan(0)
      same((await paths(filter)).results, expected)
    }
    // The short limit cuts some paths between the points.
    const cut = { localPathCleaningFilters: WITHOUT_HOST, startPoint: "/home", endPoint: "/checkout", stepLimit: 5 }
    expect(expectedEdges(EVENTS, cut).some((e) => e.target === "3_...")).toBe(true)
  })

  it("cleans, groups and excludes nodes, and keeps the edges within the weights", async () => {
    const cleaning = {
      localPathCleaningFilters: [...WITHOUT_HOST, { regex: "^/pricing$", alias: "/plans" }],
      pathGroupings: ["/product/*"],
      excludeEvents: ["/cart", "signed up"]
    }
    const all = expectedEdges(EVENTS, { ...cleaning, edgeLimit: 1000 })
    expect(all.some((e) => e.target.endsWith("_/product/*"))).toBe(true)
    expect(all.some((e) => e.target.endsWith("_/plans"))).toBe(true)
    expect(all.every((e) => !/_\/cart$|_signed up$|_\/product\/\d$/.test(e.target))).toBe(true)
    same((await paths(cleaning)).results, expectedEdges(EVENTS, cleaning))
    // The weights drop edges on both sides.
    const heaviest = Math.max(...all.map((e) => e.value))
    expect(heaviest).toBeGreaterThan(2)
    expect(all.some((e) => e.value < 2)).toBe(true)
    const weighed = { ...cleaning, minEdgeWeight: 2, maxEdgeWeight: heaviest - 1, edgeLimit: 15 }
    const expected = expectedEdges(EVENTS, weighed)
    expect(expected.length).toBeGreaterThan(0)
    same((await paths(weighed)).results, expected)
  })

  it("lists the persons behind an edge, and those reaching its target (InsightActorsQuery)", async () => {
    const filter = { includeEventTypes: ["$pageview"], localPathCleaningFilters: WITHOUT_HOST }
    const [edge] = expectedEdges(EVENTS, filter)
    const actors = async (keys: Record<string, string>) => {
      const res = await send({
        query: {
          kind: "ActorsQuery",
          select: ["person_display_name"],
          source: {
            kind: "InsightActorsQuery",
            source: { kind: "PathsQuery", dateRange: RANGE, pathsFilter: { ...filter, ...keys } }
          }
        },
        refresh: "force_blocking"
      })
      expect(res.status, res.text).toBe(200)
      return new Set(res.json.results.map(([p]: [{ distinct_id: string }]) => p.distinct_id))
    }
    const both = expectedActors(EVENTS, filter, edge!.source, edge!.target)
    expect(both.size).toBeGreaterThan(0)
    expect(await actors({ pathStartKey: edge!.source, pathEndKey: edge!.target })).toEqual(both)
    const reaching = expectedActors(EVENTS, filter, undefined, edge!.target)
    expect(reaching.size).toBeGreaterThanOrEqual(both.size)
    expect(await actors({ pathEndKey: edge!.target })).toEqual(reaching)
    // Those whose session paths end at a node: its step and name.
    const ends = sessionPaths(EVENTS, filter).map((path) => `${path.length}_${path.at(-1)!.node}`)
    const dropoff = ends.find((key) => !key.startsWith("1_"))!
    const stopped = new Set(
      [...new Set(EVENTS.map((e) => e.distinct_id))].filter((person) =>
        sessionPaths(
          EVENTS.filter((e) => e.distinct_id === person),
          filter
        ).some((path) => `${path.length}_${path.at(-1)!.node}` === dropoff)
      )
    )
    expect(stopped.size).toBeGreaterThan(0)
    expect(await actors({ pathDropoffKey: dropoff })).toEqual(stopped)
  })

  it("answers any day's events with the edges worked out from them (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: PROPERTY_DAYS - 1 }),
        fc.record(
          {
            stepLimit: fc.integer({ min: 2, max: 8 }),
            startPoint: fc.constantFrom(...PAGES),
            endPoint: fc.constantFrom(...PAGES),
            edgeLimit: fc.integer({ min: 1, max: 60 })
          },
          { requiredKeys: ["stepLimit"] }
        ),
        async (i, options) => {
          const day = new Date(START + (i + 1) * DAY).toISOString().slice(0, 10)
          const filter = { ...options, localPathCleaningFilters: WITHOUT_HOST }
          const json = await paths(filter, { date_from: day, date_to: day })
          same(json.results, expectedEdges(generated[i]!, filter))
        }
      ),
      { numRuns: 12 }
    )
  })

  it("gives a saved paths insight's result, bare or in an InsightVizNode", async () => {
    const source = {
      kind: "PathsQuery",
      dateRange: RANGE,
      pathsFilter: { includeEventTypes: ["$pageview"], localPathCleaningFilters: WITHOUT_HOST, stepLimit: 3 }
    }
    const created = await call(zed, "/api/projects/1/insights/", {
      method: "POST",
      body: JSON.stringify({ name: "Paths", query: { kind: "InsightVizNode", source } })
    })
    expect(created.status, created.text).toBe(201)
    const saved = (await call(zed, `/api/projects/1/insights/${created.json.id}/?refresh=force_blocking`)).json
    same(saved.result, expectedEdges(EVENTS, source.pathsFilter))
    const bare = await send({ query: source })
    expect(bare.json).toMatchObject({ results: saved.result, is_cached: true, zedql: saved.zedql })
  })

  it("shows ZedQL that, sent back as a ZedQL query, gives the same edges", async () => {
    const filter = {
      localPathCleaningFilters: [...WITHOUT_HOST, { regex: "^/pricing$", alias: "/plans" }],
      pathGroupings: ["/product/*"],
      excludeEvents: ["/cart"],
      startPoint: "/home",
      endPoint: "/checkout",
      stepLimit: 6,
      minEdgeWeight: 1
    }
    const json = await paths(filter)
    const expected = expectedEdges(EVENTS, filter)
    expect(expected.length).toBeGreaterThan(3)
    same(json.results, expected)
    // Stages one after another, not subqueries nested deep.
    expect(json.zedql).toMatch(/^WITH path_events AS \(SELECT/)
    const again = await send({ query: { kind: "HogQLQuery", query: json.zedql }, refresh: "force_blocking" })
    expect(again.status, again.text).toBe(200)
    const rows = again.json.results.map(([source, target, value, seconds]: [string, string, number, number]) => ({
      source,
      target,
      value: Number(value),
      average_conversion_time: Number(seconds) * 1000
    }))
    same(reachableEdges(rows), expected)
  })

  it("refuses what it cannot run with a 400 naming the field", async () => {
    const hogql = await send({ query: { kind: "PathsQuery", pathsFilter: { includeEventTypes: ["hogql"] } } })
    expect(hogql.status).toBe(400)
    expect(hogql.json).toMatchObject({ code: "invalid_query", attr: "query" })
    const regex = await send({
      query: { kind: "PathsQuery", pathsFilter: { localPathCleaningFilters: [{ regex: "(", alias: "x" }] } }
    })
    expect(regex.status).toBe(400)
    expect(regex.json.detail).toContain("localPathCleaningFilters")
    const limit = await send({ query: { kind: "PathsQuery", pathsFilter: { stepLimit: 0 } } })
    expect(limit.status).toBe(400)
    expect(limit.json.detail).toContain("stepLimit")
  })
})
