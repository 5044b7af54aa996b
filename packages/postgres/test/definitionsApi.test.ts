import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { uuidv7 } from "@zed/core/storage"
import {
  ADMIN_KEY,
  call,
  importEvents,
  issueKey,
  PROJECT_KEY,
  postQuery,
  zedqlRequest
} from "../../core/test/support.js"
import { backends } from "./backends.js"

// Event and property definitions through the API, from events imported as an SDK sends them: the
// expectations (names, 30-day volumes, which keys came with which event, the first value's type) are
// worked out here from the events sent.

const DAY = 86_400_000
const now = Date.now()

interface Sent {
  readonly event: string
  readonly properties: Record<string, unknown>
  readonly daysAgo: number
}

// Each event name with the properties of its events, in the order sent; some older than 30 days.
const sent: ReadonlyArray<Sent> = [
  { event: "$pageview", properties: { $current_url: "https://a.test/", $screen_width: 1280 }, daysAgo: 1 },
  { event: "$pageview", properties: { $current_url: "https://a.test/b", $referrer: "x" }, daysAgo: 2 },
  { event: "$pageview", properties: { $current_url: "https://a.test/c" }, daysAgo: 45 },
  { event: "signed up", properties: { plan: "pro", seats: 3, $set: { email: "a@a.test", age: 31 } }, daysAgo: 3 },
  { event: "signed up", properties: { plan: "free", trial: true }, daysAgo: 40 },
  { event: "sign in", properties: { method: "password" }, daysAgo: 5 },
  { event: "purchase", properties: { amount: "9", at: "2024-01-31T10:00:00Z" }, daysAgo: 6 },
  { event: "purchase", properties: { amount: "10", $set_once: { first_plan: "pro" } }, daysAgo: 7 }
]

// Keys with a meaning of their own on events are no event properties.
const eventKeys = (properties: Record<string, unknown>) =>
  Object.keys(properties).filter((k) => k !== "$set" && k !== "$set_once")

const names = [...new Set(sent.map((s) => s.event))].sort()
const volume = (name: string) => sent.filter((s) => s.event === name && s.daysAgo < 30).length
const keysOf = (events: ReadonlyArray<string>) =>
  new Set(sent.filter((s) => events.includes(s.event)).flatMap((s) => eventKeys(s.properties)))
const allEventKeys = [...keysOf(names)].sort()
const personKeys = [
  ...new Set(
    sent.flatMap((s) =>
      ["$set", "$set_once"].flatMap((op) => Object.keys((s.properties[op] as Record<string, unknown>) ?? {}))
    )
  )
].sort()

/** The type PostHog gives a first value: numbers Numeric, booleans Boolean, ISO date text DateTime, other text String. */
const firstType = (key: string) => {
  const value = sent.flatMap((s) => (key in s.properties ? [s.properties[key]] : []))[0]
  if (typeof value === "number") return "Numeric"
  if (typeof value === "boolean") return "Boolean"
  return /^\d{4}-\d{2}-\d{2}T/.test(String(value)) ? "DateTime" : "String"
}

describe.each(["pglite", "postgres"])("%s event and property definitions", (name) => {
  let zed: Zed
  let cleanup: () => Promise<void>
  let importedAt: { from: number; to: number }

  beforeAll(async () => {
    const backend = await backends("definitions-api")[name]!()
    cleanup = backend.cleanup
    zed = await createZed({
      storage: backend.storage,
      bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY, adminPassword: null }
    })
    const from = Date.now()
    await importEvents(
      zed,
      PROJECT_KEY,
      sent.map((s, i) => ({
        event: s.event,
        distinct_id: `user-${i % 3}`,
        uuid: uuidv7(),
        timestamp: new Date(now - s.daysAgo * DAY).toISOString(),
        properties: s.properties
      }))
    )
    importedAt = { from, to: Date.now() }
  })
  afterAll(async () => {
    await zed?.close()
    await cleanup?.()
  })

  const get = (path: string, key = ADMIN_KEY) => call(zed, `/api/projects/1${path}`, { key })
  const patch = (path: string, body: unknown, key = ADMIN_KEY) =>
    call(zed, `/api/environments/1${path}`, { method: "PATCH", body: JSON.stringify(body), key })
  const results = async (path: string) => {
    const res = await get(path)
    expect(res.status, res.text).toBe(200)
    return res.json.results as Array<Record<string, any>>
  }

  it("lists every event name with its 30-day volume and when it was last seen", async () => {
    const res = await get("/event_definitions/")
    expect(res.status, res.text).toBe(200)
    expect(res.json.count).toBe(names.length)
    expect(res.json.results.map((d: { name: string }) => d.name)).toEqual(names)
    for (const d of res.json.results) {
      expect(d.volume_30_day, d.name).toBe(volume(d.name))
      const seen = Date.parse(d.last_seen_at)
      expect(seen).toBeGreaterThanOrEqual(importedAt.from - 1000)
      expect(seen).toBeLessThanOrEqual(importedAt.to + 1000)
      expect(d).toMatchObject({ description: "", tags: [], verified: false, hidden: false })
    }
    // The environment prefix answers the same.
    const same = await call(zed, "/api/environments/1/event_definitions/")
    expect(same.json.results.map((d: { id: string }) => d.id)).toEqual(res.json.results.map((d: any) => d.id))
  })

  it("searches by every word, splits PostHog's events from custom ones, and pages", async () => {
    const search = (q: string) => names.filter((n) => q.split(" ").every((t) => n.toLowerCase().includes(t)))
    for (const q of ["sign", "sign up", "SIGN", "view", "nothing"])
      expect(
        (await results(`/event_definitions/?search=${encodeURIComponent(q)}`)).map((d) => d.name),
        q
      ).toEqual(search(q.toLowerCase()))
    expect((await results("/event_definitions/?event_type=posthog")).map((d) => d.name)).toEqual(
      names.filter((n) => n.startsWith("$"))
    )
    expect((await results("/event_definitions/?event_type=custom")).map((d) => d.name)).toEqual(
      names.filter((n) => !n.startsWith("$"))
    )
    expect((await results("/event_definitions/?ordering=-name")).map((d) => d.name)).toEqual([...names].reverse())
    const page = await get("/event_definitions/?limit=2&offset=1")
    expect(page.json.count).toBe(names.length)
    expect(page.json.results.map((d: { name: string }) => d.name)).toEqual(names.slice(1, 3))
    expect(new URL(page.json.next).searchParams.get("offset")).toBe("3")
  })

  it("lists event and person properties with the type of their first value", async () => {
    const events = await results("/property_definitions/?limit=1000")
    expect(events.map((d) => d.name)).toEqual(allEventKeys)
    for (const d of events) {
      expect(d.property_type, d.name).toBe(firstType(d.name))
      expect(d.is_numerical, d.name).toBe(firstType(d.name) === "Numeric")
      expect(d.type).toBe("event")
      expect(d.is_seen_on_filtered_events).toBeNull()
    }
    // Person processing adds `$…` properties of its own (the current URL, the initial one, …).
    const persons = (await results("/property_definitions/?type=person")).map((d) => d.name)
    expect(persons.filter((k) => !k.startsWith("$"))).toEqual(personKeys)
    expect(persons).toContain("$initial_current_url")
    expect((await results("/property_definitions/?is_numerical=true")).map((d) => d.name)).toEqual(
      allEventKeys.filter((k) => firstType(k) === "Numeric")
    )
    expect((await results("/property_definitions/?search=current")).map((d) => d.name)).toEqual(["$current_url"])
    expect(
      (
        await results(
          `/property_definitions/?properties=plan,seats,nope&excluded_properties=${encodeURIComponent('["seats"]')}`
        )
      ).map((d) => d.name)
    ).toEqual(["plan"])
    const sessions = await results("/property_definitions/?type=session&search=duration")
    expect(sessions.map((d) => [d.name, d.property_type, d.type])).toEqual([
      ["$session_duration", "Numeric", "session"]
    ])
  })

  it("tells the properties seen with given events, first or alone", async () => {
    for (const events of [["purchase"], ["signed up", "sign in"], ["$pageview", "never sent"]]) {
      const param = encodeURIComponent(JSON.stringify(events))
      const seen = keysOf(events)
      const only = await results(`/property_definitions/?event_names=${param}&filter_by_event_names=true`)
      expect(
        only.map((d) => d.name),
        events.join()
      ).toEqual([...seen].sort())
      expect(only.every((d) => d.is_seen_on_filtered_events === true)).toBe(true)
      const marked = await results(`/property_definitions/?event_names=${param}&limit=1000`)
      expect(marked.map((d) => [d.name, d.is_seen_on_filtered_events])).toEqual([
        ...[...seen].sort().map((k) => [k, true]),
        ...allEventKeys.filter((k) => !seen.has(k)).map((k) => [k, false])
      ])
    }
  })

  it("describes, verifies and hides an event definition", async () => {
    const [signedUp] = await results("/event_definitions/?search=signed")
    const described = await patch(`/event_definitions/${signedUp!.id}/`, {
      description: "A new account",
      tags: ["growth"],
      verified: true
    })
    expect(described.status, described.text).toBe(200)
    expect(described.json).toMatchObject({
      description: "A new account",
      tags: ["growth"],
      verified: true,
      hidden: false
    })
    expect(described.json.verified_at).not.toBeNull()
    expect(described.json.volume_30_day).toBe(volume("signed up"))
    expect((await get(`/event_definitions/${signedUp!.id}/`)).json).toEqual(described.json)

    const both = await patch(`/event_definitions/${signedUp!.id}/`, { verified: true, hidden: true })
    expect(both.status).toBe(400)
    expect(both.json).toMatchObject({ type: "validation_error", attr: "hidden" })

    const hidden = await patch(`/event_definitions/${signedUp!.id}/`, { hidden: true })
    expect(hidden.json).toMatchObject({
      hidden: true,
      verified: false,
      verified_at: null,
      description: "A new account"
    })
    expect((await results("/event_definitions/?exclude_hidden=true")).map((d) => d.name)).toEqual(
      names.filter((n) => n !== "signed up")
    )
    expect((await patch("/event_definitions/00000000-0000-0000-0000-000000000000/", { hidden: true })).status).toBe(404)
    expect((await patch("/event_definitions/not-an-id/", { hidden: true })).status).toBe(404)
    expect((await patch(`/event_definitions/${signedUp!.id}/`, { tags: "growth" })).status).toBe(400)
  })

  it("needs the definition scopes", async () => {
    const reader = await issueKey(zed, ["event_definition:read", "property_definition:read"])
    const [first] = await results("/event_definitions/")
    expect((await get("/event_definitions/", reader)).status).toBe(200)
    expect((await get("/property_definitions/", reader)).status).toBe(200)
    expect((await patch(`/event_definitions/${first!.id}/`, { description: "x" }, reader)).status).toBe(403)
    const other = await issueKey(zed, ["insight:read"])
    expect((await get("/event_definitions/", other)).status).toBe(403)
    expect((await get("/property_definitions/", other)).status).toBe(403)
  })

  it("changes a property's type, and ZedQL reads it as the new type", async () => {
    const amounts = sent.flatMap((s) => (s.event === "purchase" ? [s.properties["amount"] as string] : []))
    const max = async () => {
      const res = await postQuery(
        zed,
        1,
        zedqlRequest("SELECT max(properties.amount) FROM events WHERE event = 'purchase'", {
          refresh: "force_blocking"
        })
      )
      expect(res.status, res.text).toBe(200)
      return res.json.results[0][0]
    }
    // As text, the greatest is the last in text order; as numbers, the largest number.
    expect(await max()).toBe([...amounts].sort().at(-1))
    const [amount] = await results("/property_definitions/?search=amount")
    expect(amount!.property_type).toBe("String")
    const changed = await patch(`/property_definitions/${amount!.id}/`, { property_type: "Numeric", tags: ["money"] })
    expect(changed.status, changed.text).toBe(200)
    expect(changed.json).toMatchObject({
      name: "amount",
      property_type: "Numeric",
      is_numerical: true,
      tags: ["money"]
    })
    expect((await get(`/property_definitions/${amount!.id}/`)).json).toEqual(changed.json)
    expect(await max()).toBe(Math.max(...amounts.map(Number)))
    const bad = await patch(`/property_definitions/${amount!.id}/`, { property_type: "Number" })
    expect(bad.status).toBe(400)
    expect(bad.json.attr).toBe("property_type")
  })

  it("refuses a group listing without its group type", async () => {
    const res = await get("/property_definitions/?type=group")
    expect(res.status).toBe(400)
    expect(res.json).toMatchObject({ type: "validation_error", attr: "group_type_index" })
    expect((await results("/property_definitions/?type=group&group_type_index=0")).length).toBe(0)
  })
})
