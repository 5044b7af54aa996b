import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { DEMO_EVENT_NAMES } from "../src/demo/catalog.js"
import { type DemoEvent, demoEvents, DemoLoadError, DemoOptionsError, loadDemoData, type Zed } from "../src/index.js"
import { EventStore, GroupStore, isUuid, PersonStore } from "../src/storage.js"
import { demoCompanies, demoPersons, isObject } from "./demoModel.js"
import { memoryZed } from "./support.js"

// The demo data set: deterministic, shaped like real SDK traffic, and loaded through capture so that
// what is stored is what the generated events say (computed here from the events alone).

const END = new Date("2026-03-02T00:00:00.000Z")
const DAY = 86_400_000
const generate = (events: number, seed = 1, end = END, days?: number) => [...demoEvents({ events, seed, end, days })]

/** Breaks of the rules every data set must keep, whatever the options (empty when none). */
const violations = (events: ReadonlyArray<DemoEvent>, start: number, end: number): Array<string> => {
  const problems: Array<string> = []
  const uuids = new Set<string>()
  const sessions = new Map<string, string>()
  const identifiedGroups = new Set<string>()
  const flagResponses = new Map<string, unknown>()
  let previous = -Infinity
  for (const e of events) {
    const ms = Date.parse(e.timestamp)
    if (new Date(ms).toISOString() !== e.timestamp) problems.push(`timestamp not ISO: ${e.timestamp}`)
    if (ms < previous) problems.push(`out of order at ${e.timestamp}`)
    if (ms < start || ms >= end) problems.push(`out of range: ${e.timestamp}`)
    previous = ms
    if (!isUuid(e.uuid) || e.uuid[14] !== "7" || parseInt(e.uuid.replace(/-/g, "").slice(0, 12), 16) !== ms)
      problems.push(`not a UUIDv7 of its time: ${e.uuid}`)
    if (uuids.has(e.uuid)) problems.push(`uuid twice: ${e.uuid}`)
    uuids.add(e.uuid)
    if (!DEMO_EVENT_NAMES.includes(e.event)) problems.push(`undocumented event ${e.event}`)

    // A session keeps its distinct id until `$identify` switches it to the identified one.
    const session = e.properties["$session_id"]
    if (typeof session === "string") {
      const current = sessions.get(session)
      if (e.event === "$identify") {
        if (current !== undefined && e.properties["$anon_distinct_id"] !== current)
          problems.push(`identify of another id in ${session}`)
      } else if (current !== undefined && current !== e.distinct_id)
        problems.push(`session ${session} changed distinct id without identify`)
      sessions.set(session, e.distinct_id)
    }
    if (
      e.event === "$identify" &&
      (typeof e.properties["$anon_distinct_id"] !== "string" || !isObject(e.properties["$set"]))
    ) {
      problems.push(`identify without $anon_distinct_id or $set: ${e.uuid}`)
    }

    // A group is identified before events name it.
    if (e.event === "$groupidentify") identifiedGroups.add(String(e.properties["$group_key"]))
    const groups = e.properties["$groups"]
    if (isObject(groups) && !identifiedGroups.has(String(groups["company"])))
      problems.push(`group ${String(groups["company"])} named before identified`)

    // Flags answer the same for the same distinct id.
    if (e.event === "$feature_flag_called") {
      const key = `${String(e.properties["$feature_flag"])}|${e.distinct_id}`
      const response = e.properties["$feature_flag_response"]
      if (flagResponses.has(key) && flagResponses.get(key) !== response)
        problems.push(`flag ${key} answered differently`)
      flagResponses.set(key, response)
    }
  }
  return problems
}

const CUSTOM_KEYS = ["email", "name", "plan", "company", "job_title"]
const comparable = (person: {
  distinctIds: ReadonlyArray<string>
  identified: boolean
  properties: Record<string, unknown>
}) => ({
  distinctIds: [...person.distinctIds].sort(),
  identified: person.identified,
  properties: Object.fromEntries(CUSTOM_KEYS.map((key) => [key, person.properties[key]]))
})

describe("demoEvents", () => {
  it("gives byte-identical events for the same seed and options, and other events for another seed", () => {
    const first = JSON.stringify(generate(3000, 42))
    expect(JSON.stringify(generate(3000, 42))).toBe(first)
    expect(JSON.stringify(generate(3000, 43))).not.toBe(first)
    expect(JSON.stringify(generate(3000, 42, new Date(END.getTime() + DAY)))).not.toBe(first)
  })

  it("keeps its rules for any seed, size, end and span", () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: 0, max: 1500 }),
        fc.date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2090-01-01T00:00:00Z"), noInvalidDate: true }),
        fc.integer({ min: 1, max: 90 }),
        (seed, count, end, days) => {
          const events = generate(count, seed, end, days)
          expect(events).toHaveLength(count)
          expect(violations(events, end.getTime() - days * DAY, end.getTime())).toEqual([])
          expect(JSON.stringify(generate(count, seed, end, days))).toBe(JSON.stringify(events))
        }
      ),
      { numRuns: 40 }
    )
  })

  it("is lazy: the first events come without generating the rest", () => {
    const iterator = demoEvents({ events: 1e9, end: END })
    const first = iterator.next()
    expect(first.done).toBe(false)
    expect(Date.parse(first.value!.timestamp)).toBeLessThan(END.getTime())
    iterator.return()
  })

  it("refuses options it cannot honour", () => {
    expect(() => generate(-1)).toThrow(DemoOptionsError)
    expect(() => generate(1.5)).toThrow(DemoOptionsError)
    expect(() => generate(10, 0.5)).toThrow(DemoOptionsError)
    expect(() => generate(10, 1, new Date(Number.NaN))).toThrow(DemoOptionsError)
    expect(() => generate(10, 1, END, 0)).toThrow(DemoOptionsError)
  })

  describe("looks like a product's traffic", () => {
    const events = generate(20_000, 7)
    const count = (predicate: (e: DemoEvent) => boolean) => events.filter(predicate).length
    const byName = new Map<string, number>()
    for (const e of events) byName.set(e.event, (byName.get(e.event) ?? 0) + 1)
    const valuesOf = (event: string, key: string) =>
      events.filter((e) => e.event === event).map((e) => e.properties[key])

    it("spans the default six weeks before the end", () => {
      expect(violations(events, END.getTime() - 42 * DAY, END.getTime())).toEqual([])
      expect(Date.parse(events[0]!.timestamp)).toBeLessThan(END.getTime() - 41 * DAY)
      expect(Date.parse(events.at(-1)!.timestamp)).toBeGreaterThan(END.getTime() - DAY)
    })

    it("is busier on weekdays, in working hours, and later in the span", () => {
      const hours = Array<number>(24).fill(0)
      const daily = new Map<number, number>()
      for (const e of events) {
        const ms = Date.parse(e.timestamp)
        hours[new Date(ms).getUTCHours()]!++
        daily.set(Math.floor(ms / DAY), (daily.get(Math.floor(ms / DAY)) ?? 0) + 1)
      }
      const average = (days: Array<[number, number]>) => days.reduce((sum, [, n]) => sum + n, 0) / days.length
      const weekend = [...daily].filter(([day]) => [0, 6].includes(new Date(day * DAY).getUTCDay()))
      const weekdays = [...daily].filter(([day]) => ![0, 6].includes(new Date(day * DAY).getUTCDay()))
      expect(average(weekdays)).toBeGreaterThan(1.5 * average(weekend))
      const sum = (from: number, to: number) => hours.slice(from, to).reduce((a, b) => a + b, 0)
      expect(sum(13, 18)).toBeGreaterThan(3 * sum(1, 6))
      const week = (from: number) =>
        count((e) => Date.parse(e.timestamp) >= from && Date.parse(e.timestamp) < from + 7 * DAY)
      expect(week(END.getTime() - 7 * DAY)).toBeGreaterThan(1.2 * week(END.getTime() - 42 * DAY))
    })

    it("has anonymous visitors, a plausible share of whom are identified, and users coming back over weeks", () => {
      const persons = demoPersons(events).persons
      const identified = persons.filter((p) => p.identified).length
      expect(identified / persons.length).toBeGreaterThan(0.03)
      expect(identified / persons.length).toBeLessThan(0.4)
      expect(byName.get("signed_up")).toBeGreaterThan(20)
      const weeks = new Map<string, Set<number>>()
      for (const e of events) {
        if (!e.distinct_id.startsWith("user_")) continue
        weeks.set(
          e.distinct_id,
          (weeks.get(e.distinct_id) ?? new Set()).add(Math.floor(Date.parse(e.timestamp) / (7 * DAY)))
        )
      }
      expect([...weeks.values()].filter((w) => w.size >= 3).length).toBeGreaterThan(10)
      // Identified users log in on new browsers too: a person with several anonymous ids.
      expect(persons.some((p) => p.identified && p.distinctIds.length >= 3)).toBe(true)
    })

    it("has sessions of page views, clicks and page leaves, with attribution on some entries", () => {
      const pageviews = events.filter((e) => e.event === "$pageview")
      expect(pageviews.length / events.length).toBeGreaterThan(0.2)
      expect(byName.get("$autocapture")).toBeGreaterThan(1000)
      expect(byName.get("$pageleave")).toBeGreaterThan(100)
      for (const view of pageviews.slice(0, 200)) {
        const url = new URL(view.properties["$current_url"] as string)
        expect(url.host).toBe(view.properties["$host"])
        expect(url.pathname).toBe(view.properties["$pathname"])
        for (const key of [
          "$session_id",
          "$window_id",
          "$browser",
          "$os",
          "$device_type",
          "$lib",
          "$referrer",
          "$referring_domain"
        ]) {
          expect(view.properties[key], key).toBeDefined()
        }
      }
      const withUtm = pageviews.filter((e) => e.properties["utm_source"] !== undefined).length
      expect(withUtm / pageviews.length).toBeGreaterThan(0.005)
      expect(withUtm / pageviews.length).toBeLessThan(0.3)
      expect(new Set(pageviews.map((e) => e.properties["$referring_domain"])).size).toBeGreaterThan(5)
      expect(new Set(events.map((e) => e.properties["$browser"])).size).toBeGreaterThan(4)
      expect(count((e) => typeof e.properties["$elements_chain"] === "string")).toBe(byName.get("$autocapture"))
    })

    it("has typed properties: numbers, booleans and dates", () => {
      for (const [event, key] of [
        ["plan_upgraded", "price"],
        ["invoice_paid", "price"],
        ["document_edited", "duration_ms"],
        ["search_performed", "results_count"]
      ] as const) {
        const values = valuesOf(event, key)
        expect(values.length, event).toBeGreaterThan(0)
        expect(
          values.every((v) => typeof v === "number" && Number.isFinite(v)),
          `${event}.${key}`
        ).toBe(true)
      }
      expect(new Set(valuesOf("search_performed", "has_results"))).toEqual(new Set([true, false]))
      const due = valuesOf("task_created", "due_date")
      expect(due.length).toBeGreaterThan(0)
      expect(due.every((d) => typeof d === "string" && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/.test(d))).toBe(
        true
      )
    })

    it("has companies as groups, feature flags, server-side events and a long tail of rare events", () => {
      const groupSets = events.filter((e) => e.event === "$groupidentify").map((e) => e.properties["$group_set"])
      expect(groupSets.length).toBeGreaterThan(20)
      expect(groupSets.every(isObject)).toBe(true)
      expect(count((e) => isObject(e.properties["$groups"])) / events.length).toBeGreaterThan(0.2)
      const flags = events.filter((e) => e.event === "$feature_flag_called")
      expect(new Set(flags.map((e) => e.properties["$feature_flag"])).size).toBeGreaterThanOrEqual(3)
      expect(new Set(flags.map((e) => typeof e.properties["$feature_flag_response"]))).toEqual(
        new Set(["boolean", "string"])
      )
      expect(count((e) => e.properties["$lib"] === "posthog-node")).toBeGreaterThan(0)
      const rare = [...byName].filter(([, n]) => n < events.length / 1000)
      expect(rare.length).toBeGreaterThanOrEqual(5)
    })
  })
})

describe("loadDemoData", () => {
  let zed: Zed
  beforeAll(async () => {
    zed = await memoryZed()
  })
  afterAll(() => zed.close())

  const options = { events: 2500, seed: 11, end: new Date("2026-01-15T00:00:00.000Z"), batchSize: 400 }

  it("stores every event through capture, with the persons and groups the events describe", async () => {
    const progress: Array<number> = []
    expect(await loadDemoData(zed, { ...options, onProgress: (loaded) => progress.push(loaded) })).toBe(2500)
    expect(progress).toEqual([400, 800, 1200, 1600, 2000, 2400, 2500])

    const events = [...demoEvents(options)]
    const stored = await zed.run(Effect.flatMap(EventStore, (s) => s.list(1, { limit: 100_000, offset: 0 })))
    expect(stored).toHaveLength(2500)
    expect(new Set(stored.map((e) => e.uuid))).toEqual(new Set(events.map((e) => e.uuid)))
    const byUuid = new Map(stored.map((e) => [e.uuid, e]))
    for (const e of events) expect(byUuid.get(e.uuid)!.timestamp.toISOString()).toBe(e.timestamp)

    const { count, results } = await zed.run(
      Effect.flatMap(PersonStore, (s) => s.list(1, { properties: [], limit: 100_000, offset: 0 }))
    )
    const expected = demoPersons(events).persons
    expect(count).toBe(expected.length)
    const actual = results.map((p) =>
      comparable({ distinctIds: p.distinct_ids, identified: p.is_identified, properties: p.properties })
    )
    const sort = (list: Array<ReturnType<typeof comparable>>) =>
      list.sort((a, b) => a.distinctIds[0]!.localeCompare(b.distinctIds[0]!))
    expect(sort(actual)).toEqual(sort(expected.map(comparable)))

    // Each company holds what its `$groupidentify` events set, the later winning.
    const companies = demoCompanies(events)
    expect(companies.size).toBeGreaterThan(0)
    for (const [key, properties] of companies) {
      const group = await zed.run(Effect.flatMap(GroupStore, (s) => s.get(1, 0, key)))
      expect(group._tag === "Some" && group.value.properties).toEqual(properties)
    }
  })

  it("stores nothing twice when loaded again", async () => {
    expect(await loadDemoData(zed, options)).toBe(2500)
    const stored = await zed.run(Effect.flatMap(EventStore, (s) => s.list(1, { limit: 100_000, offset: 0 })))
    expect(stored).toHaveLength(2500)
  })

  it("refuses a project that does not exist, or a batch size that is not a positive whole number", async () => {
    await expect(loadDemoData(zed, { ...options, project: 99 })).rejects.toThrow(DemoLoadError)
    await expect(loadDemoData(zed, { ...options, batchSize: 0 })).rejects.toThrow(DemoLoadError)
  })
})
