import { beforeAll, describe, expect, it } from "@effect/vitest"
import type { Zed } from "@zed/core"
import { ADMIN_KEY, call, importEvents, PROJECT_KEY, postQuery, zedqlRequest } from "../../core/test/support.js"
import { apiSuite } from "./apiSuite.js"

// A cohort's persons through the API: dynamic cohorts list the persons matching their filters now
// (nested groups, negation, nested dynamic and static cohorts), paged newest first, with the count on
// the cohort. The expected members are worked out here from the persons the test made.

const T0 = Date.parse("2026-03-01T00:00:00Z")
const PLANS = ["free", "pro", "team"] as const

interface Made {
  readonly i: number
  readonly plan: string
  readonly age: number
  readonly email: string
}

const PEOPLE: ReadonlyArray<Made> = Array.from({ length: 30 }, (_, i) => ({
  i,
  plan: PLANS[i % 3]!,
  age: 20 + ((i * 7) % 30),
  email: i % 4 === 0 ? `u${i}@corp.test` : `u${i}@home.test`
}))

const inA = (p: Made) => (p.plan === "pro" && p.age > 30) || p.email.includes("@corp")
const inStatic = (p: Made) => p.i % 5 === 0
const inC = (p: Made) => inA(p) && !inStatic(p) && p.plan !== "team"

/** Distinct ids of the expected members, newest (last made) first. */
const expected = (member: (p: Made) => boolean) =>
  PEOPLE.filter(member)
    .sort((a, b) => b.i - a.i)
    .map((p) => `u${p.i}`)

describe.each(["memory", "pglite", "postgres", "chdb"])("%s cohort persons", (name) => {
  const suite = apiSuite("cohorts-api", name)
  const { send } = suite
  let zed: Zed
  const cohort: Record<"a" | "b" | "c" | "empty", number> = { a: 0, b: 0, c: 0, empty: 0 }

  const make = async (body: unknown) => {
    const res = await send("POST", "/cohorts/", body)
    expect(res.status, res.text).toBe(201)
    return res.json.id as number
  }
  const members = async (id: number, query = "") => {
    const res = await send("GET", `/cohorts/${id}/persons/${query}`)
    expect(res.status, res.text).toBe(200)
    return res.json as { count: number; next: string | null; results: Array<{ distinct_ids: Array<string> }> }
  }
  const distinctIds = (page: { results: Array<{ distinct_ids: Array<string> }> }) =>
    page.results.map((p) => p.distinct_ids[0])

  beforeAll(async () => {
    zed = suite.zed
    await importEvents(
      zed,
      PROJECT_KEY,
      PEOPLE.map((p) => ({
        event: "$pageview",
        distinct_id: `u${p.i}`,
        timestamp: new Date(T0 + p.i * 1000).toISOString(),
        properties: { $set: { plan: p.plan, age: p.age, email: p.email } }
      }))
    )
    cohort.a = await make({
      name: "Pro over 30, or corporate",
      filters: {
        properties: {
          type: "OR",
          values: [
            {
              type: "AND",
              values: [
                { key: "plan", value: "pro", type: "person" },
                { key: "age", value: 30, operator: "gt", type: "person" }
              ]
            },
            { key: "email", value: "@corp", operator: "icontains", type: "person" }
          ]
        }
      }
    })
    cohort.b = await make({ name: "Listed", is_static: true })
    cohort.empty = await make({ name: "No one", is_static: true })
    const listed = await call(zed, "/api/projects/1/persons/?limit=100", { key: ADMIN_KEY })
    const uuids = (listed.json.results as Array<{ uuid: string; distinct_ids: Array<string> }>)
      .filter((p) => inStatic(PEOPLE[Number(p.distinct_ids[0]!.slice(1))]!))
      .map((p) => p.uuid)
    const added = await send("PATCH", `/cohorts/${cohort.b}/add_persons_to_static_cohort/`, { person_ids: uuids })
    expect(added.status, added.text).toBe(200)
    cohort.c = await make({
      name: "A, not listed, not team",
      filters: {
        properties: {
          type: "AND",
          values: [
            { key: "id", value: cohort.a, type: "cohort" },
            { key: "id", value: cohort.b, type: "cohort", operator: "not_in" },
            { key: "plan", value: "team", type: "person", negation: true }
          ]
        }
      }
    })
  })

  it("lists the persons matching a dynamic cohort, with its count", async () => {
    for (const [id, member] of [
      [cohort.a, inA],
      [cohort.c, inC]
    ] as const) {
      const want = expected(member)
      expect(want.length).toBeGreaterThan(2)
      const page = await members(id, "?limit=100")
      expect(page.count).toBe(want.length)
      expect(distinctIds(page)).toEqual(want)
      const retrieved = await send("GET", `/cohorts/${id}/`)
      expect(retrieved.json.count).toBe(want.length)
    }
  })

  // The in-memory store runs no ZedQL.
  it.skipIf(name === "memory")("answers IN COHORT in ZedQL with the same persons, by id or by name", async () => {
    const distinctIdsWhere = async (where: string) => {
      const res = await postQuery(
        zed,
        1,
        zedqlRequest(`SELECT DISTINCT distinct_id FROM events WHERE ${where} ORDER BY distinct_id LIMIT 1000`, {
          refresh: "force_blocking"
        })
      )
      expect(res.status, res.text).toBe(200)
      return (res.json.results as Array<[string]>).map(([id]) => id)
    }
    const sorted = (member: (p: Made) => boolean) => expected(member).sort()
    expect(await distinctIdsWhere(`person_id IN COHORT ${cohort.a}`)).toEqual(sorted(inA))
    expect(await distinctIdsWhere(`person_id IN COHORT 'A, not listed, not team'`)).toEqual(sorted(inC))
    expect(await distinctIdsWhere(`person_id NOT IN COHORT ${cohort.b}`)).toEqual(sorted((p) => !inStatic(p)))
    expect(await distinctIdsWhere(`person_id IN COHORT ${cohort.empty}`)).toEqual([])
    expect(await distinctIdsWhere(`person_id NOT IN COHORT ${cohort.empty}`)).toEqual(sorted(() => true))
  })

  it.skipIf(name === "memory")("filters a ZedQL query by cohort through its filters", async () => {
    const withFilters = async (properties: unknown) => {
      return postQuery(zed, 1, {
        query: {
          kind: "ZedQLQuery",
          query: "SELECT DISTINCT distinct_id FROM events WHERE {filters} ORDER BY distinct_id LIMIT 1000",
          filters: { properties }
        },
        refresh: "force_blocking"
      })
    }
    const ids = async (properties: unknown) => {
      const res = await withFilters(properties)
      expect(res.status, res.text).toBe(200)
      return (res.json.results as Array<[string]>).map(([id]) => id)
    }
    expect(await ids([{ key: "id", type: "cohort", value: cohort.a }])).toEqual(expected(inA).sort())
    expect(await ids([{ key: "id", type: "cohort", value: String(cohort.c) }])).toEqual(expected(inC).sort())
    const refused = await withFilters([{ key: "id", type: "cohort", value: cohort.a, operator: "exact" }])
    expect(refused.status, refused.text).toBe(400)
    expect(refused.json.detail).toContain("cohort's id, and it takes no operator")
  })

  it.skipIf(name === "memory")("filters a trend by cohort", async () => {
    const source = (properties: unknown) => ({
      kind: "TrendsQuery",
      series: [{ kind: "EventsNode", event: "$pageview" }],
      dateRange: { date_from: "2026-02-28", date_to: "2026-03-02" },
      properties
    })
    const save = (properties: unknown) =>
      send("POST", "/insights/", { name: "By cohort", query: { kind: "InsightVizNode", source: source(properties) } })
    const trend = async (properties: unknown) => {
      const made = await save(properties)
      expect(made.status, made.text).toBe(201)
      const res = await send("GET", `/insights/${made.json.id}/?refresh=blocking`)
      expect(res.status, res.text).toBe(200)
      return res.json.result[0].count as number
    }
    // One pageview per person.
    expect(await trend([{ key: "id", type: "cohort", value: cohort.a }])).toBe(PEOPLE.filter(inA).length)
    expect(
      await trend({
        type: "AND",
        values: [
          { type: "OR", values: [{ key: "id", type: "cohort", value: String(cohort.c) }] },
          { key: "plan", value: "pro", type: "person" }
        ]
      })
    ).toBe(PEOPLE.filter((p) => inC(p) && p.plan === "pro").length)
    for (const filter of [
      { key: "id", type: "cohort", value: "x" },
      { key: "id", type: "cohort", value: cohort.a, operator: "is_not" }
    ]) {
      const refused = await save([filter])
      expect(refused.status, refused.text).toBe(400)
      expect(refused.json.detail).toContain("cohort's id, and it takes no operator")
    }
  })

  it("refuses IN COHORT with a cohort the project does not have", async () => {
    const other = await call(zed, "/api/projects/", {
      method: "POST",
      key: ADMIN_KEY,
      body: JSON.stringify({ name: "Other" })
    })
    expect(other.status, other.text).toBe(201)
    const theirs = await call(zed, `/api/projects/${other.json.id}/cohorts/`, {
      method: "POST",
      key: ADMIN_KEY,
      body: JSON.stringify({ name: "Theirs", is_static: true })
    })
    expect(theirs.status, theirs.text).toBe(201)
    for (const [ref, detail] of [
      [theirs.json.id, `no cohort ${theirs.json.id}`],
      ["'Theirs'", "no cohort named 'Theirs'"],
      ["1.5", "cohort's id (a number) or name"]
    ]) {
      const res = await postQuery(zed, 1, zedqlRequest(`SELECT count() FROM events WHERE person_id IN COHORT ${ref}`))
      expect(res.status, res.text).toBe(400)
      expect(res.json.detail).toContain(detail)
    }
  })

  it("pages the members as the persons list does", async () => {
    const want = expected(inA)
    const seen: Array<string | undefined> = []
    for (let offset = 0; offset < want.length; offset += 4) {
      const page = await members(cohort.a, `?limit=4&offset=${offset}`)
      expect(page.count).toBe(want.length)
      expect(page.next === null).toBe(offset + 4 >= want.length)
      seen.push(...distinctIds(page))
    }
    expect(seen).toEqual(want)
  })

  it("follows a person whose properties change", async () => {
    // u1 is on "pro" and 27: outside A until corporate.
    expect(inA(PEOPLE[1]!)).toBe(false)
    await importEvents(zed, PROJECT_KEY, [
      {
        event: "$set",
        distinct_id: "u1",
        timestamp: new Date(T0 + 100_000).toISOString(),
        properties: { $set: { email: "u1@corp.test" } }
      }
    ])
    const moved = PEOPLE.map((p) => (p.i === 1 ? { ...p, email: "u1@corp.test" } : p))
    const page = await members(cohort.a, "?limit=100")
    expect(page.count).toBe(moved.filter(inA).length)
    expect(distinctIds(page)).toContain("u1")
  })

  it("lists the persons a flag on the cohort is enabled for", async () => {
    const flag = await send("POST", "/feature_flags/", {
      key: "cohort-c",
      filters: { groups: [{ properties: [{ key: "id", type: "cohort", value: cohort.c }], rollout_percentage: 100 }] }
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
      if (res.json.flags["cohort-c"].enabled === true) enabled.push(`u${p.i}`)
    }
    expect(enabled.length).toBeGreaterThan(2)
    expect(distinctIds(await members(cohort.c, "?limit=100")).sort()).toEqual(enabled.sort())
  })

  it("keeps a static cohort's listed persons", async () => {
    const page = await members(cohort.b, "?limit=100")
    expect(page.count).toBe(PEOPLE.filter(inStatic).length)
    expect(new Set(distinctIds(page))).toEqual(new Set(expected(inStatic)))
  })
})
