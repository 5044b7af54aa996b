import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { gunzipSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it, vi } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { EventStore, GroupStore, PersonStore, type StoredEvent } from "@zed/core/storage"
import { pgliteStorage } from "@zed/postgres"
import { Effect, Option } from "effect"
import { PostHog, type PostHogOptions } from "posthog-node"

// posthog-node, as published, against a real Zed on PGlite: whatever the SDK sends must come out of
// storage exactly as the application passed it.

const PROJECT_KEY = "phc_sdk_node_compat_project_0001"
const PERSONAL_KEY = "phx_sdk_node_compat_personal_0001"
// posthog-node does not export its package.json; the installed copy is hoisted to the root.
const SDK_VERSION: string = JSON.parse(
  readFileSync(new URL("../../../node_modules/posthog-node/package.json", import.meta.url), "utf8")
).version

interface Seen {
  readonly method: string
  readonly path: string
  readonly encoding: string | undefined
  readonly status: number
}

let zed: Zed
let server: Server
let host: string
// Every request the SDK made, as it reached the server and how it was answered.
const seen: Array<Seen> = []

beforeAll(async () => {
  zed = await createZed({
    storage: pgliteStorage(),
    bootstrap: { projectApiKey: PROJECT_KEY, personalApiKey: PERSONAL_KEY }
  })
  server = createServer((req, res) => {
    res.on("finish", () =>
      seen.push({
        method: req.method ?? "",
        path: new URL(req.url ?? "/", "http://x").pathname,
        encoding: req.headers["content-encoding"],
        status: res.statusCode
      })
    )
    void zed.nodeHandler(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve))
  await zed?.close()
})

// Each test names its own distinct ids, so tests sharing the database never see each other's data.
const tag = () => randomUUID().slice(0, 8)

const client = (options: Partial<PostHogOptions> = {}) =>
  new PostHog(PROJECT_KEY, { host, flushAt: 100, flushInterval: 0, fetchRetryDelay: 10, ...options })

const storedEvents = (): Promise<ReadonlyArray<StoredEvent>> =>
  zed.run(Effect.flatMap(EventStore, (s) => s.list(1, { limit: 1000, offset: 0 })))

// Oldest first. Events of one batch may share a millisecond; the SDK's uuidv7s keep their order. (Across
// requests the order can flip: each request's skew correction adds its own latency.)
const eventsOf = async (...distinctIds: Array<string>) =>
  (await storedEvents())
    .filter((e) => distinctIds.includes(e.distinct_id))
    .sort((a, b) => a.timestamp.getTime() - b.timestamp.getTime() || a.uuid.localeCompare(b.uuid))

const personOf = async (distinctId: string) => {
  const { results } = await zed.run(
    Effect.flatMap(PersonStore, (s) => s.list(1, { distinct_id: distinctId, properties: [], limit: 10, offset: 0 }))
  )
  expect(results).toHaveLength(1)
  return results[0]!
}

const api = async (path: string) => {
  const res = await fetch(`${host}${path}`, { headers: { authorization: `Bearer ${PERSONAL_KEY}` } })
  expect(res.status).toBe(200)
  return res.json()
}

describe("posthog-node against Zed", () => {
  it("stores captured events as sent: names, ids, properties, uuids, timestamps, groups", async () => {
    const id = `node-capture-${tag()}`
    const uuid = randomUUID()
    const when = new Date("2024-03-01T12:34:56.789Z")
    const properties = {
      plan: "pro",
      seats: 3,
      ratio: 0.25,
      trial: false,
      tags: ["a", "b"],
      nested: { deep: [1, "x", null] },
      empty: null
    }
    const before = seen.length
    const ph = client()
    ph.capture({ distinctId: id, event: "signed up", properties, uuid, timestamp: when })
    ph.capture({
      distinctId: id,
      event: "viewed dashboard",
      groups: { company: "acme", project: "p-1" },
      properties: { $set: { tier: "gold" }, $set_once: { first_tier: "silver" } }
    })
    await ph.shutdown()

    // One gzipped batch to /batch/, answered 200 only once stored. (Polled: the server logs an answer once it is written.)
    await expect
      .poll(() => seen.slice(before))
      .toEqual([{ method: "POST", path: "/batch/", encoding: "gzip", status: 200 }])

    const [signedUp, viewed, ...rest] = await eventsOf(id)
    expect(rest).toEqual([])
    expect(signedUp!.uuid).toBe(uuid)
    expect(signedUp!.event).toBe("signed up")
    expect(signedUp!.properties).toMatchObject({
      ...properties,
      $lib: "posthog-node",
      $lib_version: SDK_VERSION,
      $geoip_disable: true,
      $is_server: true
    })
    expect(signedUp!.groups).toEqual([null, null, null, null, null])
    // posthog-node sends `sent_at`, so the timestamp is corrected for clock skew the way PostHog does it:
    // received_at + (timestamp - sent_at). On one machine that is the given instant plus the request's latency.
    const sentAt = Date.parse(signedUp!.properties["$sent_at"] as string)
    expect(signedUp!.timestamp.getTime()).toBe(signedUp!.created_at.getTime() + when.getTime() - sentAt)
    expect(signedUp!.timestamp.getTime() - when.getTime()).toBeGreaterThanOrEqual(0)
    expect(signedUp!.timestamp.getTime() - when.getTime()).toBeLessThan(5_000)

    expect(viewed!.event).toBe("viewed dashboard")
    expect(viewed!.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(viewed!.properties["$groups"]).toEqual({ company: "acme", project: "p-1" })
    const types = await zed.run(Effect.flatMap(GroupStore, (s) => s.types(1)))
    const groups: Array<string | null> = [null, null, null, null, null]
    groups[types.get("company")!] = "acme"
    groups[types.get("project")!] = "p-1"
    expect(viewed!.groups).toEqual(groups)

    // Both events belong to one person, who got the `$set`/`$set_once` of the second.
    const person = await personOf(id)
    expect(person.distinct_ids).toEqual([id])
    expect(person.is_identified).toBe(false)
    expect(person.properties).toMatchObject({ tier: "gold", first_tier: "silver" })
    expect([signedUp!.person_id, viewed!.person_id]).toEqual([person.uuid, person.uuid])
  })

  it("identify sets person properties, $set_once only once, and marks the person identified", async () => {
    const id = `node-identify-${tag()}`
    const ph = client()
    ph.identify({ distinctId: id, properties: { email: `${id}@example.com`, name: "Ada" } })
    ph.identify({ distinctId: id, properties: { $set: { plan: "pro" }, $set_once: { first_plan: "free" } } })
    ph.identify({ distinctId: id, properties: { $set_once: { first_plan: "pro", signup_source: "ads" } } })
    ph.setPersonProperties({
      distinctId: id,
      properties: { plan: "enterprise" },
      propertiesOnce: { first_plan: "trial" }
    })
    ph.unsetPersonProperties({ distinctId: id, properties: ["name"] })
    await ph.shutdown()

    const events = await eventsOf(id)
    expect(events.map((e) => e.event)).toEqual(["$identify", "$identify", "$identify", "$set", "$set"])
    // Properties given without `$set` are sent as `$set`.
    expect(events[0]!.properties["$set"]).toEqual({ email: `${id}@example.com`, name: "Ada" })
    expect(events[1]!.properties).toMatchObject({ $set: { plan: "pro" }, $set_once: { first_plan: "free" } })

    const person = await personOf(id)
    expect(person.is_identified).toBe(true)
    expect(person.distinct_ids).toEqual([id])
    expect(person.properties).toMatchObject({
      email: `${id}@example.com`,
      plan: "enterprise",
      first_plan: "free",
      signup_source: "ads"
    })
    expect(person.properties).not.toHaveProperty("name")
  })

  it("identify with $anon_distinct_id merges the anonymous person into the identified one", async () => {
    const anon = `node-anon-${tag()}`
    const user = `node-user-${tag()}`
    const ph = client()
    ph.capture({ distinctId: anon, event: "browsed", properties: { $set: { referrer: "ads" } } })
    await ph.flush()
    ph.identify({ distinctId: user, properties: { $set: { email: `${user}@example.com` }, $anon_distinct_id: anon } })
    ph.capture({ distinctId: user, event: "bought" })
    await ph.shutdown()

    const events = await eventsOf(anon, user)
    expect(events.map((e) => [e.event, e.distinct_id])).toEqual([
      ["browsed", anon],
      ["$identify", user],
      ["bought", user]
    ])
    expect(events[1]!.properties["$anon_distinct_id"]).toBe(anon)
    const person = await personOf(user)
    expect([...person.distinct_ids].sort()).toEqual([anon, user].sort())
    expect(person.is_identified).toBe(true)
    expect(person.properties).toMatchObject({ referrer: "ads", email: `${user}@example.com` })
    // The anonymous event now belongs to the merged person too.
    expect(events.map((e) => e.person_id)).toEqual([person.uuid, person.uuid, person.uuid])
  })

  it("alias joins a new id to a person, and merges two existing anonymous persons", async () => {
    const main = `node-alias-main-${tag()}`
    const fresh = `node-alias-fresh-${tag()}`
    const other = `node-alias-other-${tag()}`
    const ph = client()
    ph.capture({ distinctId: main, event: "first", properties: { $set: { role: "admin" } } })
    ph.capture({ distinctId: other, event: "elsewhere", properties: { $set: { device: "phone", role: "guest" } } })
    await ph.flush()
    ph.alias({ distinctId: main, alias: fresh })
    ph.alias({ distinctId: main, alias: other })
    ph.capture({ distinctId: fresh, event: "as fresh" })
    await ph.shutdown()

    const aliases = (await eventsOf(main)).filter((e) => e.event === "$create_alias")
    expect(aliases.map((e) => e.properties["alias"])).toEqual([fresh, other])

    // Over the persons API, as a client would look it up: any of the three ids finds the one person.
    const lookups = await Promise.all(
      [main, fresh, other].map((id) => api(`/api/projects/1/persons/?distinct_id=${encodeURIComponent(id)}`))
    )
    for (const found of lookups) expect(found.count).toBe(1)
    const [person] = lookups[0].results
    expect(lookups.map((found) => found.results[0].id)).toEqual([person.id, person.id, person.id])
    expect([...person.distinct_ids].sort()).toEqual([main, fresh, other].sort())
    expect(person.is_identified).toBe(true)
    // The person aliased into keeps its own values; the merged one contributes what it alone had.
    expect(person.properties).toMatchObject({ role: "admin", device: "phone" })
    expect(await api(`/api/projects/1/persons/${person.id}/`)).toMatchObject({ id: person.id, uuid: person.uuid })
    for (const event of await eventsOf(main, fresh, other)) expect(event.person_id).toBe(person.uuid)
  })

  it("groupIdentify creates the group and merges later properties into it", async () => {
    const key = `acme-${tag()}`
    const ph = client({ flushAt: 1 })
    ph.groupIdentify({ groupType: "company", groupKey: key, properties: { name: "Acme", employees: 42 } })
    await ph.flush()
    ph.groupIdentify({ groupType: "company", groupKey: key, properties: { employees: 43, plan: "enterprise" } })
    await ph.shutdown()

    const events = await eventsOf(`$company_${key}`)
    expect(events.map((e) => e.event)).toEqual(["$groupidentify", "$groupidentify"])
    expect(events[0]!.properties).toMatchObject({
      $group_type: "company",
      $group_key: key,
      $group_set: { name: "Acme", employees: 42 }
    })
    const index = (await zed.run(Effect.flatMap(GroupStore, (s) => s.types(1)))).get("company")!
    const group = Option.getOrThrow(await zed.run(Effect.flatMap(GroupStore, (s) => s.get(1, index, key))))
    expect(group).toMatchObject({ group_type_index: index, group_key: key })
    expect(group.properties).toEqual({ name: "Acme", employees: 43, plan: "enterprise" })
  })

  it("the same uuid sent twice, in one batch or two, is stored once: the first wins", async () => {
    const id = `node-dedupe-${tag()}`
    const [inOne, inTwo] = [randomUUID(), randomUUID()]
    const ph = client()
    ph.capture({ distinctId: id, event: "once", uuid: inOne, properties: { attempt: 1 } })
    ph.capture({ distinctId: id, event: "once", uuid: inOne, properties: { attempt: 2 } })
    ph.capture({ distinctId: id, event: "twice", uuid: inTwo, properties: { attempt: 1 } })
    await ph.flush()
    ph.capture({ distinctId: id, event: "twice", uuid: inTwo, properties: { attempt: 2 } })
    await ph.shutdown()

    const events = (await eventsOf(id)).map((e) => [e.uuid, e.event, e.properties["attempt"]])
    expect(events.sort((a, b) => String(a[1]).localeCompare(String(b[1])))).toEqual([
      [inOne, "once", 1],
      [inTwo, "twice", 1]
    ])
  })

  it("a batch whose answer is lost is retried by the SDK and stored once", async () => {
    const id = `node-retry-${tag()}`
    const uuids = [randomUUID(), randomUUID()]
    let attempts = 0
    // The first answer is dropped after Zed stored the batch, like a connection cut on the way back.
    const ph = client({
      fetch: async (url, options) => {
        const res = await fetch(url, options as RequestInit)
        if (++attempts > 1) return res
        await res.body?.cancel()
        throw new TypeError("fetch failed: connection reset")
      }
    })
    const errors: Array<unknown> = []
    ph.on("error", (error) => errors.push(error))
    ph.capture({ distinctId: id, event: "paid", uuid: uuids[0], properties: { amount: 10 } })
    ph.capture({ distinctId: id, event: "paid", uuid: uuids[1], properties: { amount: 20 } })
    await ph.shutdown()

    expect(attempts).toBe(2)
    expect(errors).toEqual([])
    const events = (await eventsOf(id)).map((e) => [e.uuid, e.properties["amount"]])
    expect(events.sort((a, b) => Number(a[1]) - Number(b[1]))).toEqual([
      [uuids[0], 10],
      [uuids[1], 20]
    ])
  })

  it("an oversized event is refused with 413: the SDK halves its batches, and only that event is lost", async () => {
    const id = `node-big-${tag()}`
    const ph = client()
    const errors: Array<unknown> = []
    ph.on("error", (error) => errors.push(error))
    ph.capture({ distinctId: id, event: "small", properties: { n: 1 } })
    ph.capture({ distinctId: id, event: "small", properties: { n: 2 } })
    // Over Zed's 1 MB per event, though it gzips to almost nothing.
    ph.capture({ distinctId: id, event: "huge", properties: { blob: "x".repeat(1_100_000) } })
    ph.capture({ distinctId: id, event: "small", properties: { n: 3 } })
    // 4 events: 413; halves to [1, 2] (stored) and [huge, 3]: 413; then [huge] alone: 413, dropped, and the flush fails.
    await expect(ph.flush()).rejects.toMatchObject({ status: 413 })
    await ph.shutdown()

    expect(errors).toHaveLength(1)
    // Sent in different requests, so skew correction may order them either way.
    const events = (await eventsOf(id)).map((e) => [e.event, e.properties["n"]])
    expect(events.sort((a, b) => Number(a[1]) - Number(b[1]))).toEqual([
      ["small", 1],
      ["small", 2],
      ["small", 3]
    ])
  })

  it("captureException stores the $exception event with its exception list", async () => {
    const id = `node-exception-${tag()}`
    const ph = client()
    ph.captureException(new RangeError("out of range"), id, { route: "/checkout" })
    await ph.shutdown()

    const [event, ...rest] = await eventsOf(id)
    expect(rest).toEqual([])
    expect(event!.event).toBe("$exception")
    expect(event!.properties).toMatchObject({ route: "/checkout", $lib: "posthog-node" })
    const list = event!.properties["$exception_list"] as Array<Record<string, unknown>>
    expect(list[0]).toMatchObject({ type: "RangeError", value: "out of range", stacktrace: { type: "raw" } })
    expect((list[0]!["stacktrace"] as { frames: Array<unknown> }).frames.length).toBeGreaterThan(0)
  })

  it("historicalMigration stores old timestamps exactly as given", async () => {
    const id = `node-history-${tag()}`
    const bodies: Array<Record<string, unknown>> = []
    const ph = client({
      historicalMigration: true,
      // Read what went over the wire on the way out; the request itself is unchanged.
      fetch: async (url, options) => {
        const body = Buffer.from(await new Response(options.body as BodyInit).arrayBuffer())
        bodies.push(
          JSON.parse((options.headers["Content-Encoding"] === "gzip" ? gunzipSync(body) : body).toString("utf8"))
        )
        return fetch(url, options as RequestInit)
      }
    })
    const times = ["2019-01-01T00:00:00.000Z", "2019-06-15T13:14:15.161Z", "2019-12-31T23:59:59.999Z"]
    times.forEach((iso, i) =>
      ph.capture({ distinctId: id, event: "imported", timestamp: new Date(iso), properties: { row: i } })
    )
    await ph.shutdown()

    expect(bodies).toHaveLength(1)
    expect(bodies[0]).toMatchObject({ api_key: PROJECT_KEY, historical_migration: true, sent_at: expect.any(String) })
    const events = await eventsOf(id)
    expect(events.map((e) => [e.properties["row"], e.timestamp.toISOString()]).sort()).toEqual(
      times.map((iso, i) => [i, iso])
    )
  })

  it("an unknown project key: the SDK neither throws nor retries, and nothing is stored", async () => {
    const id = `node-badkey-${tag()}`
    const before = seen.length
    const ph = new PostHog("phc_no_project_has_this_key_0001", {
      host,
      flushAt: 100,
      flushInterval: 0,
      fetchRetryDelay: 10
    })
    const errors: Array<unknown> = []
    ph.on("error", (error) => errors.push(error))
    // The SDK logs the refusal on shutdown; keep it out of the test output but check it says why.
    const logged = vi.spyOn(console, "error").mockImplementation(() => {})
    try {
      expect(() => ph.capture({ distinctId: id, event: "lost" })).not.toThrow()
      await expect(ph.shutdown()).resolves.toBeUndefined()
      expect(logged.mock.calls.flat().join(" ")).toContain("no project has this API key")
    } finally {
      logged.mockRestore()
    }

    // Zed refuses it with 401, which the SDK reports and does not retry.
    await expect
      .poll(() => seen.slice(before))
      .toEqual([{ method: "POST", path: "/batch/", encoding: "gzip", status: 401 }])
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatchObject({ status: 401 })
    expect(await eventsOf(id)).toEqual([])
    const { results } = await zed.run(
      Effect.flatMap(PersonStore, (s) => s.list(1, { distinct_id: id, properties: [], limit: 10, offset: 0 }))
    )
    expect(results).toEqual([])
  })
})
