import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed, type ZedStorage } from "@zed/core"
import {
  EventStore,
  type PropertyDefinition,
  PropertyDefinitions,
  StorageError,
  Transactor,
  uuidv7
} from "@zed/core/storage"
import { Effect, Layer, Option } from "effect"
import { backends as storageBackends, suiteStorage } from "./backends.js"

// Property definitions alike on every backend: the first type recorded stays, keys are told apart by
// owner and group type (NULL for non-group owners included), and ingestion records them in its
// transaction, sending each only until it has been committed once.

const backends = storageBackends("propdefs")

const def = (
  owner: PropertyDefinition["owner"],
  key: string,
  propertyType: PropertyDefinition["propertyType"],
  groupTypeIndex: number | null = null
): PropertyDefinition => ({ owner, key, propertyType, groupTypeIndex })
const sorted = (definitions: ReadonlyArray<PropertyDefinition>) =>
  [...definitions].sort((a, b) =>
    `${a.owner}:${a.groupTypeIndex}:${a.key}`.localeCompare(`${b.owner}:${b.groupTypeIndex}:${b.key}`)
  )

describe.each(Object.keys(backends))("%s property definitions store", (name) => {
  const suite = suiteStorage(backends[name]!)
  const run = suite.run
  const list = (projectId: number) =>
    run(Effect.flatMap(PropertyDefinitions, (d) => d.list(projectId))).then((stored) =>
      sorted(
        stored.map(({ groupTypeIndex, key, owner, propertyType }) => ({ owner, key, propertyType, groupTypeIndex }))
      )
    )
  const record = (projectId: number, definitions: ReadonlyArray<PropertyDefinition>) =>
    run(Effect.flatMap(PropertyDefinitions, (d) => d.record(projectId, definitions)))

  it("keeps the first type of each key per owner and group type, across calls and within one", async () => {
    expect(await list(1)).toEqual([])
    await record(1, [
      def("event", "plan", "String"),
      def("person", "plan", "Numeric"),
      def("group", "plan", "Boolean", 0),
      def("group", "plan", "DateTime", 1),
      def("event", "plan", "Numeric")
    ])
    await record(1, [
      def("event", "plan", "Boolean"),
      def("person", "plan", "String"),
      def("group", "plan", "String", 0),
      def("event", "n", "Numeric")
    ])
    expect(await list(1)).toEqual(
      sorted([
        def("event", "n", "Numeric"),
        def("event", "plan", "String"),
        def("group", "plan", "Boolean", 0),
        def("group", "plan", "DateTime", 1),
        def("person", "plan", "Numeric")
      ])
    )
    expect(await list(suite.other)).toEqual([])
    await record(suite.other, [def("event", "plan", "Numeric")])
    expect(await list(suite.other)).toEqual([def("event", "plan", "Numeric")])
  })

  it("keeps keys as sent: case, spaces, quotes and non-ASCII", async () => {
    const keys = ["Plan", "plan ", "it's", '"q"', "ключ", "$feature/new-ui", "a\\b", "__proto__"]
    await record(
      suite.other,
      keys.map((k) => def("person", k, "String"))
    )
    expect(
      (await list(suite.other))
        .filter((d) => d.owner === "person")
        .map((d) => d.key)
        .sort()
    ).toEqual([...keys].sort())
  })

  it("rolls back with the transaction that recorded them", async () => {
    const failed = await suite.runExit(
      Effect.gen(function* () {
        const transactor = yield* Transactor
        yield* transactor.transaction(
          Effect.gen(function* () {
            yield* (yield* PropertyDefinitions).record(1, [def("event", "rolled_back", "String")])
            return yield* new StorageError({ message: "abandoned" })
          })
        )
      })
    )
    expect(failed._tag).toBe("Failure")
    expect((await list(1)).map((d) => d.key)).not.toContain("rolled_back")
  })

  it("lets concurrent transactions record overlapping definitions in any order", async () => {
    const keys = Array.from({ length: 30 }, (_, i) => `race_${i}`)
    await run(
      Effect.all(
        Array.from({ length: 6 }, (_, n) =>
          Effect.flatMap(Transactor, (t) =>
            t.transaction(
              Effect.flatMap(PropertyDefinitions, (d) =>
                d.record(
                  1,
                  (n % 2 ? [...keys].reverse() : keys).map((k) => def("event", k, n % 3 === 0 ? "Numeric" : "String"))
                )
              )
            )
          )
        ),
        { concurrency: "unbounded" }
      )
    )
    const raced = (await list(1)).filter((d) => d.key.startsWith("race_"))
    expect(raced.map((d) => d.key).sort()).toEqual([...keys].sort())
    // One of the writers won each key, with its type.
    for (const d of raced) expect(["Numeric", "String"]).toContain(d.propertyType)
  })

  const store = <A>(f: (d: PropertyDefinitions["Type"]) => Effect.Effect<A, StorageError>) =>
    run(Effect.flatMap(PropertyDefinitions, f))
  const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 12, minutes))

  it("records event names, moving last seen only forward, and links their properties", async () => {
    await store((d) =>
      d.recordEvents(1, [
        { name: "a", seenAt: at(10), properties: ["x", "y"] },
        { name: "a", seenAt: at(5), properties: ["z"] },
        { name: "b", seenAt: at(5), properties: [] }
      ])
    )
    await store((d) => d.recordEvents(1, [{ name: "a", seenAt: at(1), properties: ["x"] }]))
    await store((d) => d.recordEvents(1, [{ name: "b", seenAt: at(20), properties: ["y"] }]))
    const events = await store((d) => d.listEvents(1))
    expect(events.map((e) => [e.name, e.last_seen_at])).toEqual([
      ["a", at(10)],
      ["b", at(20)]
    ])
    for (const e of events) expect(e).toMatchObject({ description: "", tags: [], verified: false, hidden: false })
    expect([...(await store((d) => d.seenWith(1, ["a"])))].sort()).toEqual(["x", "y", "z"])
    expect([...(await store((d) => d.seenWith(1, ["b", "c"])))]).toEqual(["y"])
    expect([...(await store((d) => d.seenWith(suite.other, ["a"])))]).toEqual([])
    expect(await store((d) => d.listEvents(suite.other))).toEqual([])
  })

  it("counts each event name's volume since a time, as its events' timestamps say", async () => {
    const days = [0, 1, 2, 29, 31, 40]
    const base = Date.UTC(2026, 1, 1)
    const events = days.flatMap((day, i) =>
      ["v1", "v2"].slice(0, 1 + (i % 2)).map((name) => ({
        uuid: uuidv7(),
        event: name,
        distinct_id: "d",
        person_id: "00000000-0000-0000-0000-000000000001",
        properties: {},
        timestamp: new Date(base - day * 86_400_000),
        created_at: new Date(base),
        groups: [null, null, null, null, null]
      }))
    )
    await run(Effect.flatMap(EventStore, (s) => s.insert(suite.other, events)))
    const since = new Date(base - 30 * 86_400_000)
    const expected = new Map<string, number>()
    for (const e of events) if (e.timestamp >= since) expected.set(e.event, (expected.get(e.event) ?? 0) + 1)
    const volumes = await run(Effect.flatMap(EventStore, (s) => s.volumes(suite.other, ["v1", "v2", "v3"], since)))
    expect(new Map([...volumes].sort())).toEqual(new Map([...expected].sort()))
    expect((await run(Effect.flatMap(EventStore, (s) => s.volumes(1, ["v1"], since)))).size).toBe(0)
  })

  it("changes what describes a definition, and a property's type", async () => {
    await store((d) => d.recordEvents(1, [{ name: "described", seenAt: at(0), properties: [] }]))
    await store((d) => d.record(1, [def("person", "described", "String")]))
    const event = (await store((d) => d.listEvents(1))).find((e) => e.name === "described")!
    const changed = await store((d) =>
      d.updateEvent(1, event.id, { description: "d", tags: ["t"], verified: true, verified_at: at(30) })
    )
    expect(Option.getOrThrow(changed)).toMatchObject({
      description: "d",
      tags: ["t"],
      verified: true,
      verified_at: at(30)
    })
    expect(Option.getOrThrow(changed).updated_at).not.toBeNull()
    expect((await store((d) => d.listEvents(1))).find((e) => e.name === "described")).toEqual(
      Option.getOrThrow(changed)
    )
    const property = (await store((d) => d.list(1))).find((p) => p.key === "described")!
    const retyped = await store((d) => d.updateProperty(1, property.id, { propertyType: "Numeric", hidden: true }))
    expect(Option.getOrThrow(retyped)).toMatchObject({ key: "described", propertyType: "Numeric", hidden: true })
    expect((await store((d) => d.list(1))).find((p) => p.key === "described")?.propertyType).toBe("Numeric")
    // Another project's id, or none at all, names nothing.
    expect(Option.isNone(await store((d) => d.updateEvent(suite.other, event.id, { hidden: true })))).toBe(true)
    expect(Option.isNone(await store((d) => d.updateProperty(1, "not-a-uuid", { hidden: true })))).toBe(true)
  })
})

describe.each(Object.keys(backends))("%s ingestion records property definitions", (name) => {
  const TOKEN = `phc_propdefs_ingest_${name}_00001`
  let zed: Zed
  let cleanup: () => Promise<void>
  // What ingestion sent to the store, per call; the next call fails after writing when `failNext` is set.
  const sent: Array<ReadonlyArray<string>> = []
  const sentEvents: Array<ReadonlyArray<string>> = []
  let failNext = false

  const instrumented = (storage: ZedStorage): ZedStorage =>
    Layer.effect(
      PropertyDefinitions,
      Effect.map(PropertyDefinitions, (store) =>
        PropertyDefinitions.of({
          ...store,
          recordEvents: (projectId, events) =>
            Effect.tap(store.recordEvents(projectId, events), () => {
              sentEvents.push(events.map((e) => `${e.name}(${e.properties.join(",")})`))
            }),
          record: (projectId, definitions) =>
            Effect.flatMap(store.record(projectId, definitions), () => {
              sent.push(definitions.map((d) => `${d.owner}${d.groupTypeIndex ?? ""}.${d.key}`))
              if (!failNext) return Effect.void
              failNext = false
              return Effect.fail(new StorageError({ message: "injected failure after the definitions were written" }))
            })
        })
      )
    ).pipe(Layer.provideMerge(storage))

  beforeAll(async () => {
    const backend = await backends[name]!()
    cleanup = backend.cleanup
    zed = await createZed({ storage: instrumented(backend.storage), bootstrap: { projectApiKey: TOKEN } })
  })
  afterAll(async () => {
    await zed.close()
    await cleanup()
  })

  const capture = async (batch: ReadonlyArray<Record<string, unknown>>) => {
    const response = await zed.handler(
      new Request("http://zed.test/batch/", { method: "POST", body: JSON.stringify({ api_key: TOKEN, batch }) })
    )
    expect(response.status).toBe(200)
  }
  const types = async () =>
    Object.fromEntries(
      (await zed.run(Effect.flatMap(PropertyDefinitions, (d) => d.list(1)))).map((d) => [
        `${d.owner}${d.groupTypeIndex ?? ""}.${d.key}`,
        d.propertyType
      ])
    )

  it("records event, person and group property types from captured events", async () => {
    await capture([
      {
        event: "$groupidentify",
        distinct_id: "u1",
        properties: { $group_type: "company", $group_key: "acme", $group_set: { employees: 12, founded: "2001-04-01" } }
      },
      {
        event: "purchase",
        distinct_id: "u1",
        properties: { price: 9.5, paid: true, coupon_code: "123", $groups: { company: "acme" } },
        $set: { plan: "pro", signed_up_at: Math.floor(Date.now() / 1000) }
      }
    ])
    expect(await types()).toMatchObject({
      "event.price": "Numeric",
      "event.paid": "Boolean",
      "event.coupon_code": "String",
      "person.plan": "String",
      "person.signed_up_at": "DateTime",
      "group0.employees": "Numeric",
      "group0.founded": "DateTime"
    })
    // Not group columns or person updates, nor what only $groupidentify carried.
    const keys = Object.keys(await types())
    for (const key of ["event.$groups", "event.$set", "event.$group_type", "event.$group_set", "person.employees"])
      expect(keys).not.toContain(key)
  })

  it("keeps the first type, and sends only definitions it has not committed before", async () => {
    const before = sent.length
    await capture([
      {
        event: "purchase",
        distinct_id: "u2",
        properties: { price: "cheap", paid: "no", $lib: "web" },
        $set: { plan: 3 }
      }
    ])
    expect(await types()).toMatchObject({
      "event.price": "Numeric",
      "event.paid": "Boolean",
      "person.plan": "String",
      "event.$lib": "String"
    })
    // Only $lib was new; the two requests after it have nothing new to send.
    expect(sent.slice(before).flat()).not.toContain("event.price")
    expect(sent.slice(before).flat()).toContain("event.$lib")
    await capture([
      {
        event: "purchase",
        distinct_id: "u3",
        properties: { price: 1, paid: false, $lib: "web" },
        $set: { plan: "free" }
      }
    ])
    await capture([{ event: "other", distinct_id: "u3", properties: { price: 2 } }])
    expect(sent.length).toBe(before + 1)
  })

  it("records again after a rolled-back attempt: what it wrote did not count as committed", async () => {
    const before = sent.length
    failNext = true
    const uuid = uuidv7()
    await capture([{ event: "purchase", uuid, distinct_id: "u4", properties: { gift_wrap: true, price: 3 } }])
    // Written, rolled back, retried and written again.
    const [written, again, ...more] = sent.slice(before)
    expect(written).toContain("event.gift_wrap")
    expect(again).toEqual(written)
    expect(more).toEqual([])
    expect(await types()).toMatchObject({ "event.gift_wrap": "Boolean" })
    const stored = await zed.run(Effect.flatMap(EventStore, (s) => s.list(1, { limit: 100, offset: 0 })))
    expect(stored.filter((e) => e.uuid === uuid)).toHaveLength(1)
  })

  it("records an event name when new or an hour stale, and each of its properties once", async () => {
    const before = sentEvents.length
    await capture([{ event: "hourly", distinct_id: "u5", properties: { a: 1 } }])
    await capture([{ event: "hourly", distinct_id: "u5", properties: { a: 2 } }])
    await capture([{ event: "hourly", distinct_id: "u5", properties: { a: 3, b: 1 } }])
    expect(sentEvents.slice(before)).toEqual([["hourly(a)"], ["hourly(b)"]])
    const hourly = (await zed.run(Effect.flatMap(PropertyDefinitions, (d) => d.listEvents(1)))).find(
      (e) => e.name === "hourly"
    )
    expect(hourly?.last_seen_at).not.toBeNull()
  })
})
