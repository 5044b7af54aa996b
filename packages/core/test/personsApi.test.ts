import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { type Zed } from "../src/index.js"
import { EventStore } from "../src/storage.js"
import { call, issueKey, memoryZed, PROJECT_KEY } from "./support.js"

let zed: Zed
const capture = (events: ReadonlyArray<Record<string, unknown>>) =>
  zed.handler(
    new Request("http://zed.test/batch/", {
      method: "POST",
      body: JSON.stringify({ api_key: PROJECT_KEY, batch: events })
    })
  )

beforeAll(async () => {
  zed = await memoryZed()
  let t = Date.parse("2026-01-01T00:00:00Z")
  const at = () => new Date((t += 60_000)).toISOString()
  for (const [id, properties] of [
    ["ada", { email: "ada@example.com", name: "Ada", age: 36, plan: "pro" }],
    ["bob", { email: "bob@example.org", name: "Bob", age: "41", plan: "free" }],
    ["cy", { name: "Cy", age: 9 }],
    ["dee", { email: "dee@example.com", plan: "pro", vip: true }]
  ] as const) {
    const res = await capture([
      { event: "$identify", distinct_id: id, timestamp: at(), properties: { $set: properties } }
    ])
    expect(res.status).toBe(200)
  }
  await capture([{ event: "$create_alias", distinct_id: "ada", timestamp: at(), properties: { alias: "ada-phone" } }])
  await capture([
    { event: "page", distinct_id: "ada-phone", timestamp: at() },
    { event: "page", distinct_id: "bob", timestamp: at() }
  ])
})
afterAll(() => zed.close())

const list = async (query = "") => (await call(zed, `/api/projects/1/persons/${query}`)).json
const names = async (query = "") => (await list(query)).results.map((p: { name: string }) => p.name)

describe("listing persons", () => {
  it("lists newest first with their distinct ids and a display name", async () => {
    const all = await list()
    expect(all.count).toBe(4)
    expect(all.results.map((p: { name: string }) => p.name)).toEqual([
      "dee@example.com",
      "Cy",
      "bob@example.org",
      "ada@example.com"
    ])
    expect(all.results[3]).toMatchObject({
      distinct_ids: ["ada", "ada-phone"],
      is_identified: true,
      properties: { plan: "pro" }
    })
    expect(all.results[3].uuid).toMatch(/^[0-9a-f-]{36}$/)
  })

  it("pages with limit and offset", async () => {
    const first = await list("?limit=3")
    expect(first.results).toHaveLength(3)
    expect(first.next).toBe("http://zed.test/api/projects/1/persons/?limit=3&offset=3")
    const second = (await call(zed, first.next.replace("http://zed.test", ""))).json
    expect(second.results.map((p: { name: string }) => p.name)).toEqual(["ada@example.com"])
    expect(second.next).toBeNull()
  })

  it("filters by distinct id, e-mail and search", async () => {
    expect(await names("?distinct_id=ada-phone")).toEqual(["ada@example.com"])
    expect(await names("?email=bob@example.org")).toEqual(["bob@example.org"])
    expect(await names("?search=EXAMPLE.COM")).toEqual(["dee@example.com", "ada@example.com"])
    expect(await names("?search=cy")).toEqual(["Cy"])
  })

  it("filters by properties with each operator", async () => {
    const where = (filters: unknown) => names(`?properties=${encodeURIComponent(JSON.stringify(filters))}`)
    expect(await where([{ key: "plan", value: "pro" }])).toEqual(["dee@example.com", "ada@example.com"])
    expect(await where([{ key: "plan", value: ["free", "pro"], operator: "exact" }])).toHaveLength(3)
    expect(await where([{ key: "plan", value: "pro", operator: "is_not" }])).toEqual(["Cy", "bob@example.org"])
    expect(await where([{ key: "email", value: "EXAMPLE.ORG", operator: "icontains" }])).toEqual(["bob@example.org"])
    expect(await where([{ key: "email", value: "example", operator: "not_icontains" }])).toEqual(["Cy"])
    expect(await where([{ key: "age", value: 36, operator: "gte" }])).toEqual(["bob@example.org", "ada@example.com"])
    expect(await where([{ key: "age", value: "10", operator: "lt" }])).toEqual(["Cy"])
    expect(await where([{ key: "vip", operator: "is_set" }])).toEqual(["dee@example.com"])
    expect(await where([{ key: "email", operator: "is_not_set" }])).toEqual(["Cy"])
    expect(await where([{ key: "vip", value: "true" }])).toEqual(["dee@example.com"])
    expect(
      await where([
        { key: "plan", value: "pro" },
        { key: "email", value: "ada", operator: "icontains" }
      ])
    ).toEqual(["ada@example.com"])
  })

  it("answers 400 naming the problem in a property filter", async () => {
    expect((await call(zed, "/api/projects/1/persons/?properties=not-json")).json).toMatchObject({
      code: "invalid_input",
      attr: "properties"
    })
    const unknown = encodeURIComponent(JSON.stringify([{ key: "plan", value: "x", operator: "sounds_like" }]))
    expect((await call(zed, `/api/projects/1/persons/?properties=${unknown}`)).json).toMatchObject({
      attr: "properties__0__operator"
    })
    const noValue = encodeURIComponent(JSON.stringify([{ key: "plan", operator: "icontains" }]))
    expect((await call(zed, `/api/projects/1/persons/?properties=${noValue}`)).json).toMatchObject({
      code: "required",
      attr: "properties__0"
    })
  })
})

describe("one person", () => {
  it("is found by id or uuid; anything else is refused with a hint", async () => {
    const [ada] = (await list("?distinct_id=ada")).results
    expect((await call(zed, `/api/projects/1/persons/${ada.id}/`)).json).toEqual(ada)
    expect((await call(zed, `/api/environments/1/persons/${ada.uuid}`)).json).toEqual(ada)
    const byDistinctId = await call(zed, "/api/projects/1/persons/ada/")
    expect(byDistinctId.status).toBe(400)
    expect(byDistinctId.json.detail).toMatch(/please use \/persons\?distinct_id=X instead/)
    expect((await call(zed, "/api/projects/1/persons/999999/")).status).toBe(404)
  })

  it("cannot be created through the API", async () => {
    expect((await call(zed, "/api/projects/1/persons/", { method: "POST", body: "{}" })).status).toBe(405)
  })
})

describe("property values", () => {
  it("lists values with counts, filtered by text, as JSON or CSV", async () => {
    expect((await call(zed, "/api/projects/1/persons/values/?key=plan")).json).toEqual([
      { name: "pro", count: 2 },
      { name: "free", count: 1 }
    ])
    expect(
      (await call(zed, "/api/projects/1/persons/values/?key=email&value=.COM")).json.map(
        (v: { name: string }) => v.name
      )
    ).toEqual(["ada@example.com", "dee@example.com"])
    const csv = await call(zed, "/api/projects/1/persons/values/?key=plan&format=csv")
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/)
    expect(csv.text).toBe("name,count\r\npro,2\r\nfree,1\r\n")
    expect((await call(zed, "/api/projects/1/persons/values/")).json).toMatchObject({ code: "required", attr: "key" })
  })
})

describe("deleting persons", () => {
  const eventsOf = (personId: string) =>
    zed.run(Effect.flatMap(EventStore, (s) => s.list(1, { person_id: personId, limit: 100, offset: 0 })))

  it("needs person:write", async () => {
    const reader = await issueKey(zed, ["person:read"])
    const [cy] = (await list("?distinct_id=cy")).results
    expect((await call(zed, `/api/projects/1/persons/${cy.id}/`, { method: "DELETE", key: reader })).json.detail).toBe(
      "API key missing required scope 'person:write'"
    )
  })

  it("removes the person and keeps their events unless asked", async () => {
    const [bob] = (await list("?distinct_id=bob")).results
    expect((await eventsOf(bob.uuid)).length).toBe(2)
    const res = await call(zed, `/api/projects/1/persons/${bob.id}/`, { method: "DELETE" })
    expect(res.status).toBe(202)
    expect(res.text).toBe("")
    expect((await call(zed, `/api/projects/1/persons/${bob.id}/`)).status).toBe(404)
    expect((await eventsOf(bob.uuid)).length).toBe(2)
  })

  it("with delete_events=true removes their events too, and the distinct ids can start a new person", async () => {
    const [ada] = (await list("?distinct_id=ada")).results
    expect((await eventsOf(ada.uuid)).length).toBe(3)
    expect(
      (await call(zed, `/api/projects/1/persons/${ada.uuid}/?delete_events=true`, { method: "DELETE" })).status
    ).toBe(202)
    expect(await eventsOf(ada.uuid)).toEqual([])
    await capture([{ event: "back", distinct_id: "ada-phone", properties: { $set: { returned: true } } }])
    const [again] = (await list("?distinct_id=ada-phone")).results
    expect(again.distinct_ids).toEqual(["ada-phone"])
    expect(again.properties).toMatchObject({ returned: true })
    expect(again.properties).not.toHaveProperty("plan")
  })
})
