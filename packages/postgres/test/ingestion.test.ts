import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { matches, PROPERTY_OPERATORS, type PropertyFilter } from "@zed/core/domain"
import { EventStore, GroupStore, type IncomingEvent, PersonStore, type StorageServices } from "@zed/core/storage"
import { bootstrap } from "../../core/src/bootstrap.js"
import { ingest } from "../../core/src/ingest/writer.js"
import { Effect, ManagedRuntime, Option } from "effect"
import fc from "fast-check"
import { backends as storageBackends } from "./backends.js"

// Ingestion through the storage ports must give the same persons, events and groups on every
// backend, and SQL property filters must select exactly what the reference `matches` does.

type Runtime = ManagedRuntime.ManagedRuntime<StorageServices, unknown>
const backends = storageBackends("ingest")

let serial = 0
let clock = Date.parse("2026-02-01T00:00:00.000Z")
const event = (
  name: string,
  distinctId: string,
  properties: Record<string, unknown> = {},
  processPerson = true
): IncomingEvent => ({
  uuid: `0196a3e1-0000-7000-8000-${String(++serial).padStart(12, "0")}`,
  event: name,
  distinct_id: distinctId,
  properties,
  timestamp: new Date((clock += 1000)),
  received_at: new Date(clock + 5),
  processPerson
})

// Committed in several groups, as concurrent requests would be.
const scenario: ReadonlyArray<ReadonlyArray<IncomingEvent>> = [
  [
    event("$pageview", "anon-1", { $set_once: { first_page: "/" }, $groups: { company: "acme" } }),
    event("e", "ghost", {}, false),
    event("$identify", "ghost", { $set: { kind: "ghost" } })
  ],
  [
    event("$identify", "ada", { $anon_distinct_id: "anon-1", $set: { email: "ada@example.com", plan: "free" } }),
    event("$groupidentify", "ada", { $group_type: "company", $group_key: "acme", $group_set: { size: 10 } }),
    event("e", "bob", { $set: { plan: "pro" }, $groups: { company: "acme", team: "core" } })
  ],
  [
    event("$create_alias", "bob", { alias: "bob-2" }),
    event("$merge_dangerously", "ada", { alias: "bob" }),
    event("$groupidentify", "ada", { $group_type: "company", $group_key: "acme", $group_set: { plan: "enterprise" } }),
    event("$identify", "ghost", { $anon_distinct_id: "ada", $set: { note: "refused: ada is identified" } })
  ],
  [
    event("e", "ada", { $unset: ["plan"] }),
    event("e", "bob-2", {}),
    ...["t2", "t3", "t4", "t5", "t6"].map((t) => event("e", "x", { $groups: { [t]: "k" } }))
  ]
]

const filterValue = fc.oneof(
  fc.constantFrom("pro", "free", "10", "9.5", "true", "a", "", "Ada"),
  fc.integer({ min: -3, max: 20 }),
  fc.constant(true)
)
const filters = fc.array(
  fc.record({
    key: fc.constantFrom("plan", "n", "flag", "name", "missing"),
    operator: fc.constantFrom(...PROPERTY_OPERATORS),
    value: fc.oneof(filterValue, fc.array(filterValue, { maxLength: 3 }))
  }),
  { minLength: 1, maxLength: 2 }
)
// Numbers JavaScript prints in exponent form (1e-7) read back from PostgreSQL's numeric as 0.0000001,
// so text operators on them may differ; decimals as people write them agree.
const propertyValue = fc.oneof(
  fc.constantFrom("pro", "free", "PRO", "10", " 7 ", "x9"),
  fc.integer({ min: -5, max: 20 }),
  fc.integer({ min: -500, max: 2000 }).map((n) => n / 100),
  fc.boolean(),
  fc.constant(null)
)
const flagCalls = [
  event("$feature_flag_called", "ada", { $feature_flag: "beta", $feature_flag_response: true }),
  event("$feature_flag_called", "bob", { $feature_flag: "beta", $feature_flag_response: false }),
  event("$feature_flag_called", "ada", { $feature_flag: "color", $feature_flag_response: "blue" }),
  event("not a flag call", "ada", { $feature_flag: "gamma" })
]

const personProperties = fc.sample(
  fc.dictionary(fc.constantFrom("plan", "n", "flag", "name"), propertyValue, { maxKeys: 4 }),
  { numRuns: 40, seed: 7 }
)

describe.each(Object.keys(backends))("%s ingestion", (name) => {
  let runtime: Runtime
  let cleanup: () => Promise<void>
  const run = <A, E>(effect: Effect.Effect<A, E, StorageServices>) => runtime.runPromise(effect)

  beforeAll(async () => {
    const backend = await backends[name]!()
    cleanup = backend.cleanup
    runtime = ManagedRuntime.make(backend.storage)
    await run(bootstrap())
    for (const group of scenario) {
      await run(ingest([{ projectId: 1, events: group }]))
    }
    // Persons for the filter property test, in project 1 too, one event each.
    await run(
      ingest([
        { projectId: 1, events: personProperties.map((properties, i) => event("seed", `p${i}`, { $set: properties })) }
      ])
    )
    // Events carrying the same properties, for the event filter property test.
    await run(
      ingest([
        { projectId: 1, events: personProperties.map((properties, i) => event("probe", `p${i}`, properties, false)) }
      ])
    )
    await run(ingest([{ projectId: 1, events: flagCalls }]))
  })
  afterAll(async () => {
    await runtime.dispose()
    await cleanup()
  })

  const snapshot = Effect.gen(function* () {
    const persons = (yield* (yield* PersonStore).list(1, { properties: [], limit: 1000, offset: 0 })).results
      .filter((p) => !p.distinct_ids.some((d) => /^p\d+$/.test(d)))
      .map(({ id: _, version: __, ...p }) => ({ ...p, distinct_ids: [...p.distinct_ids].sort() }))
      .sort((a, b) => a.uuid.localeCompare(b.uuid))
    const events = (yield* (yield* EventStore).list(1, { limit: 1000, offset: 0 })).filter((e) => e.event !== "seed")
    const groups = yield* GroupStore
    return {
      persons,
      events,
      types: [...(yield* groups.types(1))].sort(),
      acme: Option.getOrNull(yield* groups.get(1, 0, "acme"))
    }
  })

  let expected: Effect.Effect.Success<typeof snapshot> | undefined

  it("stores what the reference (in-memory) backend stores", async () => {
    const got = await run(snapshot)
    expected ??= got
    expect(got).toEqual(expected)
  })

  it("merged ada, anon-1, bob and bob-2 into one identified person without ada's unset plan", async () => {
    const { events, persons } = await run(snapshot)
    const merged = persons.find((p) => p.distinct_ids.includes("ada"))!
    expect(merged.distinct_ids).toEqual(["ada", "anon-1", "bob", "bob-2"])
    expect(merged).toMatchObject({ is_identified: true, properties: { email: "ada@example.com", first_page: "/" } })
    expect(merged.properties).not.toHaveProperty("kind")
    expect(merged.properties).not.toHaveProperty("plan")
    expect(merged.properties).not.toHaveProperty("note")
    // Every event of those ids now belongs to the merged person; ghost's stays personless-then-own.
    for (const e of events.filter((e) => ["ada", "anon-1", "bob", "bob-2"].includes(e.distinct_id)))
      expect(e.person_id).toBe(merged.uuid)
    // ghost had its own identified person, so merging ada into it was refused.
    expect(persons.find((p) => p.distinct_ids.includes("ghost"))).toMatchObject({
      distinct_ids: ["ghost"],
      is_identified: true,
      properties: { kind: "ghost" }
    })
  })

  it("kept five group types at most, and merged group properties", async () => {
    const { acme, events, types } = await run(snapshot)
    expect(types).toEqual([
      ["company", 0],
      ["t2", 2],
      ["t3", 3],
      ["t4", 4],
      ["team", 1]
    ])
    expect(acme).toMatchObject({ group_key: "acme", properties: { size: 10, plan: "enterprise" }, version: 1 })
    expect(events.find((e) => e.distinct_id === "bob" && e.event === "e")?.groups).toEqual([
      "acme",
      "core",
      null,
      null,
      null
    ])
    expect(
      events
        .filter((e) => e.properties["$groups"] && JSON.stringify(e.properties["$groups"]).includes("t6"))
        .map((e) => e.groups)
    ).toEqual([[null, null, null, null, null]])
  })

  it("selects with property filters exactly what the reference does", async () => {
    const { results } = await run(
      Effect.flatMap(PersonStore, (s) => s.list(1, { properties: [], limit: 1000, offset: 0 }))
    )
    const seeded = results.filter((p) => /^p\d+$/.test(p.distinct_ids[0]!))
    await fc.assert(
      fc.asyncProperty(filters, async (fs) => {
        const chosen = fs as ReadonlyArray<PropertyFilter>
        const got = await run(
          Effect.flatMap(PersonStore, (s) => s.list(1, { properties: chosen, limit: 1000, offset: 0 }))
        )
        const want = seeded
          .filter((p) => chosen.every((f) => matches(p.properties, f)))
          .map((p) => p.uuid)
          .sort()
        expect(
          got.results
            .filter((p) => /^p\d+$/.test(p.distinct_ids[0]!))
            .map((p) => p.uuid)
            .sort()
        ).toEqual(want)
      }),
      { numRuns: name === "memory" ? 200 : 120 }
    )
  })

  it("selects events with property filters exactly what the reference does", async () => {
    const probes = await run(Effect.flatMap(EventStore, (s) => s.list(1, { event: "probe", limit: 1000, offset: 0 })))
    expect(probes).toHaveLength(personProperties.length)
    await fc.assert(
      fc.asyncProperty(filters, async (fs) => {
        const chosen = fs as ReadonlyArray<PropertyFilter>
        const got = await run(
          Effect.flatMap(EventStore, (s) => s.list(1, { event: "probe", properties: chosen, limit: 1000, offset: 0 }))
        )
        expect(got.map((e) => e.uuid)).toEqual(
          probes.filter((e) => chosen.every((f) => matches(e.properties, f))).map((e) => e.uuid)
        )
      }),
      { numRuns: name === "memory" ? 200 : 120 }
    )
  })

  it("pages events and persons by keyset as by offset, and finds persons by many distinct ids or e-mails", async () => {
    const events = await run(Effect.flatMap(EventStore, (s) => s.list(1, { limit: 1000, offset: 0 })))
    const persons = (
      await run(Effect.flatMap(PersonStore, (s) => s.list(1, { properties: [], limit: 1000, offset: 0 })))
    ).results
    for (const limit of [1, 3, 7]) {
      const keyed: Array<string> = []
      let beyond: { timestamp: Date; uuid: string } | undefined
      for (;;) {
        const page = await run(Effect.flatMap(EventStore, (s) => s.list(1, { limit, offset: 0, beyond })))
        keyed.push(...page.map((e) => e.uuid))
        if (page.length < limit) break
        beyond = page.at(-1)!
      }
      expect(keyed).toEqual(events.map((e) => e.uuid))
      const people: Array<number> = []
      let after: { created_at: Date; id: number } | undefined
      for (;;) {
        const { results } = await run(
          Effect.flatMap(PersonStore, (s) => s.list(1, { properties: [], limit, offset: 0, beyond: after }))
        )
        people.push(...results.map((p) => p.id))
        if (results.length < limit) break
        after = results.at(-1)!
      }
      expect(people).toEqual(persons.map((p) => p.id))
    }
    const ids = persons.flatMap((p) => p.distinct_ids).filter((_, i) => i % 3 === 0)
    const byIds = await run(
      Effect.flatMap(PersonStore, (s) =>
        s.list(1, { distinct_ids: [...ids, "nobody"], properties: [], limit: 1000, offset: 0 })
      )
    )
    expect(byIds.results.map((p) => p.id)).toEqual(
      persons.filter((p) => p.distinct_ids.some((d) => ids.includes(d))).map((p) => p.id)
    )
    const emailOf = (p: (typeof persons)[number]) => p.properties["email"]
    const emails = [...new Set(persons.map(emailOf).filter((e): e is string => typeof e === "string"))]
    expect(emails.length).toBeGreaterThan(0)
    const byEmails = await run(
      Effect.flatMap(PersonStore, (s) => s.list(1, { emails, properties: [], limit: 1000, offset: 0 }))
    )
    expect(byEmails.results.map((p) => p.id)).toEqual(
      persons.filter((p) => emails.includes(emailOf(p) as string)).map((p) => p.id)
    )
  })

  it("knows each flag's last call, and finds persons by uuid", async () => {
    const calls = await run(Effect.flatMap(EventStore, (s) => s.lastFlagCalls(1, ["beta", "color", "gamma", "never"])))
    expect(calls).toEqual(
      new Map([
        ["beta", flagCalls[1]!.timestamp],
        ["color", flagCalls[2]!.timestamp]
      ])
    )
    const { persons } = await run(snapshot)
    const wanted = persons.slice(0, 2).map((p) => p.uuid)
    const found = await run(
      Effect.flatMap(PersonStore, (s) => s.getMany(1, [...wanted, "00000000-0000-4000-8000-000000000000"]))
    )
    expect(found.map((p) => p.uuid).sort()).toEqual([...wanted].sort())
    expect(await run(Effect.flatMap(PersonStore, (s) => s.getMany(2, wanted)))).toEqual([])
  })

  it("counts property values, and deletes a person's events", async () => {
    const values = await run(Effect.flatMap(PersonStore, (s) => s.values(1, "plan", "R")))
    const text = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v))
    const want = new Map<string, number>()
    for (const p of personProperties)
      if ("plan" in p && text(p["plan"]).toLowerCase().includes("r"))
        want.set(text(p["plan"]), (want.get(text(p["plan"])) ?? 0) + 1)
    expect(new Map(values.map((v) => [text(v.value), v.count]))).toEqual(want)

    const { events, persons } = await run(snapshot)
    const merged = persons.find((p) => p.distinct_ids.includes("ada"))!
    const deleted = await run(Effect.flatMap(EventStore, (s) => s.deleteByPerson(1, merged.uuid)))
    expect(deleted).toBe(events.filter((e) => e.person_id === merged.uuid).length)
    expect(
      await run(Effect.flatMap(EventStore, (s) => s.list(1, { person_id: merged.uuid, limit: 10, offset: 0 })))
    ).toEqual([])
  })
})
