import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import type { Zed } from "../src/index.js"
import { call, issueKey, memoryZed, PROJECT_KEY } from "./support.js"

let zed: Zed
const capture = async (events: ReadonlyArray<Record<string, unknown>>) => {
  const res = await zed.handler(
    new Request("http://zed.test/batch/", {
      method: "POST",
      body: JSON.stringify({ api_key: PROJECT_KEY, batch: events })
    })
  )
  expect(res.status).toBe(200)
}
const events = async (query = "") => {
  const res = await call(zed, `/api/projects/1/events/${query}`)
  expect(res.status).toBe(200)
  return res.json as { next: string | null; results: Array<Record<string, any>> }
}
const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString()
const FLAG_KEY = "new-checkout"

beforeAll(async () => {
  zed = await memoryZed()
  await capture([
    { event: "$identify", distinct_id: "ada", timestamp: ago(50), properties: { $set: { email: "ada@example.com" } } },
    {
      event: "$pageview",
      distinct_id: "ada",
      timestamp: ago(40),
      properties: { $current_url: "https://a.test/pricing" }
    },
    { event: "$pageview", distinct_id: "bob", timestamp: ago(30), properties: { $current_url: "https://a.test/" } },
    {
      event: "$feature_flag_called",
      distinct_id: "ada",
      timestamp: ago(20),
      properties: { $feature_flag: FLAG_KEY, $feature_flag_response: "test" }
    },
    {
      event: "$feature_flag_called",
      distinct_id: "bob",
      timestamp: ago(10),
      properties: { $feature_flag: FLAG_KEY, $feature_flag_response: "control" }
    },
    { event: "old", distinct_id: "bob", timestamp: "2025-01-01T00:00:00Z" }
  ])
})
afterAll(() => zed.close())

describe("the events API", () => {
  it("lists the last day's events newest first, with their persons", async () => {
    const { next, results } = await events()
    expect(next).toBeNull()
    expect(results.map((e) => e.event)).toEqual([
      "$feature_flag_called",
      "$feature_flag_called",
      "$pageview",
      "$pageview",
      "$identify"
    ])
    expect(results[1]).toMatchObject({
      distinct_id: "ada",
      properties: { $feature_flag: FLAG_KEY, $feature_flag_response: "test" },
      person: { is_identified: true, distinct_ids: ["ada"], properties: { email: "ada@example.com" } }
    })
    expect(results[1]!.id).toMatch(/^[0-9a-f-]{36}$/)
    expect((await events("?after=2024-12-31T00:00:00Z")).results.at(-1)!.event).toBe("old")
  })

  it("filters by event, distinct id, person, time and properties: a flag's usage", async () => {
    const calls = await events(
      `?event=$feature_flag_called&properties=${encodeURIComponent(JSON.stringify([{ key: "$feature_flag", value: FLAG_KEY }]))}`
    )
    expect(calls.results.map((e) => [e.distinct_id, e.properties["$feature_flag_response"]])).toEqual([
      ["bob", "control"],
      ["ada", "test"]
    ])
    expect((await events("?distinct_id=bob")).results.map((e) => e.event)).toEqual([
      "$feature_flag_called",
      "$pageview"
    ])
    const ada = (await call(zed, "/api/projects/1/persons/?distinct_id=ada")).json.results[0]
    for (const ref of [ada.id, ada.uuid]) expect((await events(`?person_id=${ref}`)).results).toHaveLength(3)
    expect((await events("?person_id=999999")).results).toEqual([])
    expect((await events(`?after=${ago(35)}&before=${ago(15)}`)).results.map((e) => e.distinct_id)).toEqual([
      "ada",
      "bob"
    ])
  })

  it("retrieves one event by uuid", async () => {
    const [first] = (await events()).results
    const got = await call(zed, `/api/environments/1/events/${first!.id}/`)
    expect(got.status).toBe(200)
    expect(got.json).toEqual(first)
    expect((await call(zed, "/api/projects/1/events/00000000-0000-4000-8000-000000000000/")).status).toBe(404)
    expect((await call(zed, "/api/projects/1/events/not-a-uuid/")).status).toBe(404)
  })

  it("refuses bad parameters with the field named, and keys without query:read", async () => {
    for (const [query, attr] of [
      ["?after=yesterday", "after"],
      ["?limit=0", "limit"],
      ["?offset=50001", "offset"],
      ["?properties=[{", "properties"]
    ]) {
      const res = await call(zed, `/api/projects/1/events/${query}`)
      expect(res.status).toBe(400)
      expect(res.json).toMatchObject({ type: "validation_error", attr })
    }
    const flagsOnly = await issueKey(zed, ["feature_flag:read"])
    expect((await call(zed, "/api/projects/1/events/", { key: flagsOnly })).status).toBe(403)
    expect((await call(zed, "/api/projects/1/events/", { key: await issueKey(zed, ["query:read"]) })).status).toBe(200)
  })

  it("pages through ties without losing or repeating an event", async () => {
    // Many events on few instants: the page boundary often falls inside a run of equal timestamps.
    const base = Date.parse("2024-06-01T00:00:00Z")
    const instants = fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 40 })
    let round = 0
    await fc.assert(
      fc.asyncProperty(instants, fc.integer({ min: 1, max: 7 }), async (offsets, limit) => {
        const name = `tie-${++round}`
        await capture(
          offsets.map((ms, i) => ({ event: name, distinct_id: `t${i}`, timestamp: new Date(base + ms).toISOString() }))
        )
        const seen: Array<string> = []
        let next: string | null = `/api/projects/1/events/?event=${name}&after=2024-05-01T00:00:00Z&limit=${limit}`
        while (next !== null) {
          const page: { next: string | null; results: Array<{ distinct_id: string }> } = (
            await call(zed, next.replace("http://zed.test", ""))
          ).json
          expect(page.results.length).toBeLessThanOrEqual(limit)
          seen.push(...page.results.map((e) => e.distinct_id))
          next = page.next
        }
        expect(new Set(seen).size).toBe(seen.length)
        expect(seen.sort()).toEqual(offsets.map((_, i) => `t${i}`).sort())
      }),
      { numRuns: 60 }
    )
  })
})

describe("a flag's usage", () => {
  it("shows when the flag was last called", async () => {
    const created = await call(zed, "/api/projects/1/feature_flags/", {
      method: "POST",
      body: JSON.stringify({ key: FLAG_KEY, filters: { groups: [{ rollout_percentage: 100 }] } })
    })
    expect(created.status).toBe(201)
    const lastCall = (await events("?event=$feature_flag_called&limit=1")).results[0]!.timestamp
    expect(created.json.last_called_at).toBe(lastCall)
    const fresh = await call(zed, "/api/projects/1/feature_flags/", {
      method: "POST",
      body: JSON.stringify({ key: "never-called" })
    })
    expect(fresh.json.last_called_at).toBeNull()
    const listed = (await call(zed, "/api/projects/1/feature_flags/")).json.results
    expect(
      Object.fromEntries(listed.map((f: { key: string; last_called_at: string | null }) => [f.key, f.last_called_at]))
    ).toEqual({ [FLAG_KEY]: lastCall, "never-called": null })
  })
})
