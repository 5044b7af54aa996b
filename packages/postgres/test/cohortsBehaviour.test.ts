import { beforeAll, describe, expect, it } from "@effect/vitest"
import type { Zed } from "@zed/core"
import fc from "fast-check"
import { ADMIN_KEY, call, importEvents, PROJECT_KEY, postQuery, zedqlRequest } from "../../core/test/support.js"
import { apiSuite } from "./apiSuite.js"

// Behavioural cohorts through the API: each kind of behavioural filter, nested cohorts, negation and
// person properties, calculated in the background and served by `…/persons/`, IN COHORT and flags.
// Histories are generated (fast-check, seeded); the members expected are worked out here from them.

const DAY = 86_400_000
const NOW = Date.now()

interface Made {
  readonly i: number
  readonly plan: "free" | "pro"
  /** When the person bought and viewed, in days ago (buys at half days, views at quarter days: never on a window's edge). */
  readonly buys: ReadonlyArray<number>
  readonly views: ReadonlyArray<number>
}

const PEOPLE: ReadonlyArray<Made> = fc
  .sample(
    fc.record({
      plan: fc.constantFrom("free" as const, "pro" as const),
      buys: fc.array(fc.integer({ min: 0, max: 45 }), { maxLength: 6 }),
      views: fc.array(fc.integer({ min: 0, max: 45 }), { maxLength: 4 })
    }),
    { numRuns: 40, seed: 25 }
  )
  .map((p, i) => ({ i, plan: p.plan, buys: p.buys.map((d) => d + 0.5), views: p.views.map((d) => d + 0.25) }))

const within = (days: ReadonlyArray<number>, from: number, to = 0) => days.filter((d) => d < from && d >= to)

// What each filter asks, as the test reads it from the histories.
const performed = (p: Made) => within(p.buys, 7).length > 0
const multiple = (p: Made) => within(p.buys, 30).length >= 3
const firstTime = (p: Made) => p.buys.length > 0 && Math.max(...p.buys) < 14
const stopped = (p: Made) => within(p.buys, 30, 7).length > 0 && within(p.buys, 7).length === 0
const restarted = (p: Made) =>
  p.buys.some((d) => d >= 30) && within(p.buys, 30, 7).length === 0 && within(p.buys, 7).length > 0
// A view, then a buy within 2 days after it, both in the last 30 days.
const sequence = (p: Made) => within(p.views, 30).some((v) => within(p.buys, 30).some((b) => b < v && v - b <= 2))
const viewedLately = (p: Made) => within(p.views, 3).length > 0
const nested = (p: Made) => performed(p) && !viewedLately(p) && p.plan === "pro" && !multiple(p)

const days = (n: number) => ({ time_value: n, time_interval: "day" })
const buy = { key: "buy", event_type: "events", type: "behavioral" }
const FILTERS = {
  performed: { ...buy, value: "performed_event", ...days(7) },
  multiple: { ...buy, value: "performed_event_multiple", operator: "gte", operator_value: 3, ...days(30) },
  firstTime: { ...buy, value: "performed_event_first_time", ...days(14) },
  stopped: { ...buy, value: "stopped_performing_event", ...days(30), seq_time_value: 7, seq_time_interval: "day" },
  restarted: {
    ...buy,
    value: "restarted_performing_event",
    ...days(30),
    seq_time_value: 7,
    seq_time_interval: "day"
  },
  sequence: {
    key: "view",
    type: "behavioral",
    value: "performed_event_sequence",
    ...days(30),
    seq_event: "buy",
    seq_time_value: 2,
    seq_time_interval: "day"
  }
} as const
const RULES: Record<keyof typeof FILTERS, (p: Made) => boolean> = {
  performed,
  multiple,
  firstTime,
  stopped,
  restarted,
  sequence
}

const group = (...values: ReadonlyArray<unknown>) => ({ properties: { type: "AND", values } })
const expected = (member: (p: Made) => boolean) =>
  PEOPLE.filter(member)
    .map((p) => `u${p.i}`)
    .sort()

describe.each(["pglite", "postgres", "chdb"])("%s behavioural cohorts", (name) => {
  const suite = apiSuite("cohorts-behaviour", name)
  const { send } = suite
  let zed: Zed
  const ids: Record<string, number> = {}

  const make = async (cohortName: string, filters: unknown) => {
    const res = await send("POST", "/cohorts/", { name: cohortName, filters })
    expect(res.status, res.text).toBe(201)
    return res.json.id as number
  }
  /** The cohort once a calculation that started at `after` or later has finished. */
  const calculated = async (id: number, after: number) => {
    for (;;) {
      const res = await send("GET", `/cohorts/${id}/`)
      expect(res.status, res.text).toBe(200)
      const { last_calculation, is_calculating, errors_calculating } = res.json
      expect(errors_calculating, res.text).toBe(0)
      if (!is_calculating && last_calculation !== null && Date.parse(last_calculation) >= after) return res.json
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
  const { members } = suite
  const distinctIdsWhere = async (where: string) => {
    const res = await postQuery(
      zed,
      1,
      zedqlRequest(`SELECT DISTINCT distinct_id FROM events WHERE ${where} ORDER BY distinct_id LIMIT 1000`, {
        refresh: "force_blocking"
      })
    )
    expect(res.status, res.text).toBe(200)
    return (res.json.results as Array<[string]>).map(([id]) => id).sort()
  }

  beforeAll(async () => {
    zed = suite.zed
    await importEvents(
      zed,
      PROJECT_KEY,
      PEOPLE.flatMap((p) => [
        // Everyone has an event, so everyone is a person with a plan.
        {
          event: "signed up",
          distinct_id: `u${p.i}`,
          timestamp: new Date(NOW - 60 * DAY).toISOString(),
          properties: { $set: { plan: p.plan } }
        },
        ...p.buys.map((d) => ({
          event: "buy",
          distinct_id: `u${p.i}`,
          timestamp: new Date(NOW - d * DAY).toISOString()
        })),
        ...p.views.map((d) => ({
          event: "view",
          distinct_id: `u${p.i}`,
          timestamp: new Date(NOW - d * DAY).toISOString()
        }))
      ])
    )
    const before = Date.now()
    for (const [key, filter] of Object.entries(FILTERS)) ids[key] = await make(key, group(filter))
    ids.nested = await make(
      "Bought lately, no recent view, pro, not a frequent buyer",
      group(
        { key: "id", type: "cohort", value: ids.performed },
        { key: "view", type: "behavioral", value: "performed_event", ...days(3), negation: true },
        { key: "plan", type: "person", value: "pro" },
        { key: "id", type: "cohort", value: ids.multiple, operator: "not_in" }
      )
    )
    for (const id of Object.values(ids)) await calculated(id, before - 1000)
  }, 600_000)

  it("lists each behavioural cohort's persons as the histories say, with the count", async () => {
    for (const [key, member] of [...Object.entries(RULES), ["nested", nested] as const]) {
      const want = expected(member)
      const got = await members(ids[key]!)
      expect(got.ids, key).toEqual(want)
      expect(got.count, key).toBe(want.length)
      expect((await send("GET", `/cohorts/${ids[key]}/`)).json.count, key).toBe(want.length)
    }
    // The data exercise each kind both ways.
    for (const member of [...Object.values(RULES), nested]) {
      expect(expected(member).length).toBeGreaterThan(0)
      expect(expected(member).length).toBeLessThan(PEOPLE.length)
    }
  })

  it("answers IN COHORT from the calculated membership, as a hand-written query does", async () => {
    for (const key of Object.keys(RULES)) {
      expect(await distinctIdsWhere(`person_id IN COHORT ${ids[key]}`), key).toEqual(
        expected(RULES[key as keyof typeof RULES])
      )
    }
    expect(await distinctIdsWhere(`person_id IN COHORT 'multiple'`)).toEqual(
      await distinctIdsWhere(
        `person_id IN (SELECT person_id FROM events WHERE event = 'buy' AND timestamp >= now() - INTERVAL 30 DAY
          GROUP BY person_id HAVING count() >= 3)`
      )
    )
    expect(await distinctIdsWhere(`person_id IN COHORT ${ids.stopped}`)).toEqual(
      await distinctIdsWhere(
        `person_id IN (SELECT person_id FROM events WHERE event = 'buy' GROUP BY person_id
          HAVING countIf(timestamp >= now() - INTERVAL 30 DAY AND timestamp < now() - INTERVAL 7 DAY) > 0
            AND countIf(timestamp >= now() - INTERVAL 7 DAY) = 0)`
      )
    )
  })

  it("filters a trend by a behavioural cohort", async () => {
    const made = await send("POST", "/insights/", {
      name: "Buys of recent buyers",
      query: {
        kind: "InsightVizNode",
        source: {
          kind: "TrendsQuery",
          series: [{ kind: "EventsNode", event: "buy" }],
          dateRange: { date_from: "-60d" },
          properties: [{ key: "id", type: "cohort", value: ids.nested }]
        }
      }
    })
    expect(made.status, made.text).toBe(201)
    const res = await send("GET", `/insights/${made.json.id}/?refresh=blocking`)
    expect(res.status, res.text).toBe(200)
    const buys = PEOPLE.filter(nested).reduce((sum, p) => sum + p.buys.length, 0)
    expect(buys).toBeGreaterThan(0)
    expect(res.json.result[0].count).toBe(buys)
  })

  it("enables a flag on a behavioural cohort for its calculated members", async () => {
    const flag = await send("POST", "/feature_flags/", {
      key: "nested-cohort",
      filters: { groups: [{ properties: [{ key: "id", type: "cohort", value: ids.nested }], rollout_percentage: 100 }] }
    })
    expect(flag.status, flag.text).toBe(201)
    const enabled: Array<string> = []
    for (const p of PEOPLE) {
      const res = await call(zed, "/flags/?v=2", {
        method: "POST",
        key: null,
        body: JSON.stringify({ token: PROJECT_KEY, distinct_id: `u${p.i}` })
      })
      expect(res.status, res.text).toBe(200)
      if (res.json.flags["nested-cohort"].enabled === true) enabled.push(`u${p.i}`)
    }
    expect(enabled.sort()).toEqual(expected(nested))
  })

  it("calculates again when the definition changes", async () => {
    const before = Date.now()
    const res = await send("PATCH", `/cohorts/${ids.multiple}/`, {
      filters: group({ ...FILTERS.multiple, operator: "lte", operator_value: 1 })
    })
    expect(res.status, res.text).toBe(200)
    await calculated(ids.multiple, before)
    const fewBuys = (p: Made) => within(p.buys, 30).length >= 1 && within(p.buys, 30).length <= 1
    expect((await members(ids.multiple)).ids).toEqual(expected(fewBuys))
    // The cohort nesting it was calculated again too.
    await calculated(ids.nested, before)
    const renested = (p: Made) => performed(p) && !viewedLately(p) && p.plan === "pro" && !fewBuys(p)
    expect((await members(ids.nested)).ids).toEqual(expected(renested))
  })

  it("refuses a cohort containing itself, a cycle, another project's cohort and an incomplete filter", async () => {
    const refused = async (method: string, path: string, body: unknown, attr: string) => {
      const res = await send(method, path, body)
      expect(res.status, res.text).toBe(400)
      expect(res.json.attr, res.text).toBe(attr)
    }
    await refused(
      "PATCH",
      `/cohorts/${ids.performed}/`,
      { filters: group(FILTERS.performed, { key: "id", type: "cohort", value: ids.performed }) },
      "filters__properties__values__1__value"
    )
    // nested uses performed: performed may not use nested.
    await refused(
      "PATCH",
      `/cohorts/${ids.performed}/`,
      {
        filters: {
          properties: {
            type: "OR",
            values: [{ type: "AND", values: [{ key: "id", type: "cohort", value: ids.nested }] }]
          }
        }
      },
      "filters__properties__values__0__values__0__value"
    )
    const other = await call(zed, "/api/projects/", {
      method: "POST",
      key: ADMIN_KEY,
      body: JSON.stringify({ name: "Other" })
    })
    expect(other.status, other.text).toBe(201)
    const theirs = await call(zed, `/api/projects/${other.json.id}/cohorts/`, {
      method: "POST",
      key: ADMIN_KEY,
      body: JSON.stringify({ name: "Theirs", filters: group(FILTERS.performed) })
    })
    expect(theirs.status, theirs.text).toBe(201)
    await refused(
      "POST",
      "/cohorts/",
      { name: "x", filters: group({ key: "id", type: "cohort", value: theirs.json.id }) },
      "filters__properties__values__0__value"
    )
    const { operator_value: _, ...noCount } = FILTERS.multiple
    await refused(
      "POST",
      "/cohorts/",
      { name: "x", filters: group(noCount) },
      "filters__properties__values__0__operator_value"
    )
    const { seq_event: __, ...noNext } = FILTERS.sequence
    await refused(
      "POST",
      "/cohorts/",
      { name: "x", filters: group(noNext) },
      "filters__properties__values__0__seq_event"
    )
    await refused(
      "POST",
      "/cohorts/",
      { name: "x", filters: group({ ...FILTERS.stopped, seq_time_value: 40 }) },
      "filters__properties__values__0__seq_time_value"
    )
    await refused(
      "POST",
      "/cohorts/",
      { name: "x", filters: group({ ...buy, value: "performed_event" }) },
      "filters__properties__values__0__time_value"
    )
  })
})
