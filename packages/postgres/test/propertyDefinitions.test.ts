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
import { Effect, Layer } from "effect"
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
  const list = (projectId: number) => run(Effect.flatMap(PropertyDefinitions, (d) => d.list(projectId))).then(sorted)
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
})

describe.each(Object.keys(backends))("%s ingestion records property definitions", (name) => {
  const TOKEN = `phc_propdefs_ingest_${name}_00001`
  let zed: Zed
  let cleanup: () => Promise<void>
  // What ingestion sent to the store, per call; the next call fails after writing when `failNext` is set.
  const sent: Array<ReadonlyArray<string>> = []
  let failNext = false

  const instrumented = (storage: ZedStorage): ZedStorage =>
    Layer.effect(
      PropertyDefinitions,
      Effect.map(PropertyDefinitions, (store) =>
        PropertyDefinitions.of({
          list: store.list,
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
})
