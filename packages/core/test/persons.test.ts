import { describe, expect, it } from "@effect/vitest"
import { Effect, ManagedRuntime } from "effect"
import fc from "fast-check"
import type { IncomingEvent } from "../src/ingest/normalize.js"
import { ingest } from "../src/ingest/writer.js"
import { memoryStorage } from "../src/index.js"
import { EventStore, PersonStore } from "../src/storage.js"
import { isIllegalDistinctId, personUuid } from "../src/persons/model.js"
import { applyPropertyUpdates, processPersons } from "../src/persons/processor.js"

let clock = Date.parse("2026-01-01T00:00:00Z")
let serial = 0
const event = (
  name: string,
  distinctId: string,
  properties: Record<string, unknown> = {},
  processPerson = true
): IncomingEvent => ({
  uuid: `00000000-0000-7000-8000-${String(++serial).padStart(12, "0")}`,
  event: name,
  distinct_id: distinctId,
  properties,
  timestamp: new Date((clock += 1000)),
  received_at: new Date(clock),
  processPerson
})

const P = 1
const run = (events: ReadonlyArray<IncomingEvent>) => processPersons(P, events, [])

describe("person properties", () => {
  it("apply $set_once only to absent keys, then $set, then $unset", () => {
    const person: Record<string, unknown> = { a: 1, b: 2, gone: true }
    expect(
      applyPropertyUpdates(person, { $set_once: { a: 9, c: 3 }, $set: { b: 20, c: 30 }, $unset: ["gone", "never"] })
    ).toBe(true)
    expect(person).toEqual({ a: 1, b: 20, c: 30 })
    expect(applyPropertyUpdates(person, { $set: { b: 20 }, $set_once: { a: 0 } })).toBe(false)
    applyPropertyUpdates(person, { $unset: { a: "any" } })
    expect(person).toEqual({ b: 20, c: 30 })
  })

  it("are set on creation with the creating event's uuid", () => {
    const first = event("signup", "u1", { $set: { plan: "pro" }, $set_once: { source: "ad" } })
    const { changes, personIds } = run([first])
    expect(personIds).toEqual([personUuid(P, "u1")])
    expect(changes.created).toHaveLength(1)
    expect(changes.created[0]!.properties).toEqual({ plan: "pro", source: "ad", $creator_event_uuid: first.uuid })
    expect(changes.created[0]!.is_identified).toBe(false)
  })
})

describe("identify, alias and merge", () => {
  it("$identify joins the anonymous id to the identified one and marks the person identified", () => {
    const { changes, personIds } = run([
      event("$pageview", "anon"),
      event("$identify", "user@x.io", { $anon_distinct_id: "anon", $set: { email: "user@x.io" } })
    ])
    expect(changes.created).toHaveLength(1)
    const person = changes.created[0]!
    expect(person.distinct_ids.sort()).toEqual(["anon", "user@x.io"])
    expect(person.is_identified).toBe(true)
    expect(person.properties["email"]).toBe("user@x.io")
    expect(new Set(personIds)).toEqual(new Set([person.uuid]))
  })

  it("$identify without an anonymous id still marks the person identified (posthog-node)", () => {
    expect(run([event("$identify", "u", { $set: { a: 1 } })]).changes.created[0]!.is_identified).toBe(true)
  })

  it("$create_alias attaches the alias to the person", () => {
    const { changes } = run([event("e", "u"), event("$create_alias", "u", { alias: "u-alias" })])
    expect(changes.created[0]!.distinct_ids.sort()).toEqual(["u", "u-alias"])
  })

  it("merges two persons, the surviving one keeping its properties and the earlier created_at", () => {
    const a = event("e", "a", { $set: { shared: "from a", only_a: 1 } })
    const b = event("e", "b", { $set: { shared: "from b" } })
    const { changes, personIds } = run([a, b, event("$create_alias", "b", { alias: "a" })])
    expect(changes.created).toHaveLength(1)
    const survivor = changes.created[0]!
    expect(survivor.uuid).toBe(personUuid(P, "b"))
    expect(survivor.properties).toMatchObject({ shared: "from b", only_a: 1 })
    expect(survivor.created_at).toEqual(a.timestamp)
    expect(personIds).toEqual([survivor.uuid, survivor.uuid, survivor.uuid])
  })

  it("refuses to merge away an identified person, unless $merge_dangerously", () => {
    const setup = [event("$identify", "a"), event("$identify", "b")]
    const refused = run([...setup, event("$create_alias", "b", { alias: "a" })])
    expect(refused.changes.created).toHaveLength(2)
    expect(refused.warnings).toEqual([{ type: "cannot_merge_already_identified", distinct_ids: ["a", "b"] }])
    const forced = run([...setup, event("$merge_dangerously", "b", { alias: "a" })])
    expect(forced.changes.created).toHaveLength(1)
    expect(forced.changes.created[0]!.distinct_ids.sort()).toEqual(["a", "b"])
  })

  it("never merges through ids that buggy clients send for everyone", () => {
    for (const id of ["anonymous", "NULL".toLowerCase(), "'undefined'", '"guest"', "  ", "[object Object]", "0"]) {
      expect(isIllegalDistinctId(id)).toBe(true)
    }
    expect(isIllegalDistinctId("user-0")).toBe(false)
    const { changes, warnings } = run([event("$identify", "real", { $anon_distinct_id: "undefined" })])
    expect(changes.created.map((p) => p.distinct_ids)).toEqual([["real"]])
    expect(warnings[0]!.type).toBe("cannot_merge_with_illegal_distinct_id")
  })

  it("gives personless events the id's deterministic person id, or its existing person's", () => {
    const { changes, personIds } = run([
      event("e", "ghost", {}, false),
      event("e", "known"),
      event("e", "known", {}, false)
    ])
    expect(personIds).toEqual([personUuid(P, "ghost"), personUuid(P, "known"), personUuid(P, "known")])
    expect(changes.created.map((p) => p.distinct_ids)).toEqual([["known"]])
  })

  it("re-points events sent before an id joined another person", () => {
    const { changes } = run([event("e", "anon", {}, false), event("$identify", "user", { $anon_distinct_id: "anon" })])
    expect(changes.repoint).toEqual([{ from: personUuid(P, "anon"), to: personUuid(P, "user") }])
  })
})

const snapshot = (runtime: ManagedRuntime.ManagedRuntime<PersonStore | EventStore, unknown>) =>
  runtime.runPromise(
    Effect.gen(function* () {
      const { results } = yield* (yield* PersonStore).list(P, { properties: [], limit: 1000, offset: 0 })
      const events = yield* (yield* EventStore).list(P, { limit: 1000, offset: 0 })
      return {
        persons: results
          .map((p) => ({
            uuid: p.uuid,
            ids: [...p.distinct_ids].sort(),
            properties: p.properties,
            identified: p.is_identified,
            created: p.created_at
          }))
          .sort((a, b) => a.uuid.localeCompare(b.uuid)),
        events: Object.fromEntries(events.map((e) => [e.uuid, e.person_id]))
      }
    })
  )

// One group commit must leave the same persons and event attributions as committing each event
// on its own: that is what lets the writer batch concurrent requests.
describe("batch processing", () => {
  const ids = fc.constantFrom("anon-1", "anon-2", "user-a", "user-b", "null")
  const props = fc.dictionary(
    fc.constantFrom("plan", "email", "seats"),
    fc.oneof(fc.string({ maxLength: 3 }), fc.integer()),
    { maxKeys: 2 }
  )
  const step = fc.oneof(
    fc.record({
      kind: fc.constant("set"),
      id: ids,
      set: props,
      setOnce: props,
      unset: fc.subarray(["plan", "seats"]),
      personless: fc.boolean()
    }),
    fc.record({
      kind: fc.constantFrom("$identify", "$create_alias", "$merge_dangerously"),
      id: ids,
      other: ids,
      set: props
    })
  )
  type Step = typeof step extends fc.Arbitrary<infer T> ? T : never
  const toEvent = (s: Step): IncomingEvent =>
    s.kind === "set"
      ? event("e", s.id, { $set: s.set, $set_once: s.setOnce, $unset: s.unset }, !s.personless)
      : event(s.kind, s.id, { [s.kind === "$identify" ? "$anon_distinct_id" : "alias"]: s.other, $set: s.set })

  it("one group or one event at a time: the same persons and attributions", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const events = steps.map(toEvent)
        const together = ManagedRuntime.make(memoryStorage())
        const apart = ManagedRuntime.make(memoryStorage())
        await together.runPromise(ingest([{ projectId: P, events }]))
        for (const e of events) await apart.runPromise(ingest([{ projectId: P, events: [e] }]))
        const [a, b] = await Promise.all([snapshot(together), snapshot(apart)])
        expect(a).toEqual(b)
        // Every distinct id belongs to at most one person, and every event's person exists unless it was personless.
        const owners = a.persons.flatMap((p) => p.ids)
        expect(new Set(owners).size).toBe(owners.length)
        const personUuids = new Set(a.persons.map((p) => p.uuid))
        events.forEach((e) => {
          if (e.processPerson) expect(personUuids.has(a.events[e.uuid]!)).toBe(true)
        })
        await Promise.all([together.dispose(), apart.dispose()])
      }),
      { numRuns: 300 }
    )
  })

  it("a retried event is stored once and applies its updates once", async () => {
    const runtime = ManagedRuntime.make(memoryStorage())
    const once = event("e", "u", { $set_once: { first: 1 }, $set: { n: 1 } })
    await runtime.runPromise(ingest([{ projectId: P, events: [once, once] }]))
    await runtime.runPromise(ingest([{ projectId: P, events: [once] }]))
    const after = await snapshot(runtime)
    expect(Object.keys(after.events)).toEqual([once.uuid])
    expect(after.persons).toHaveLength(1)
    await runtime.dispose()
  })
})

describe("what each submission stored", () => {
  it("is told once per event: not for events stored before, repeated in it, or taken by an earlier submission of its group", async () => {
    const runtime = ManagedRuntime.make(memoryStorage())
    const [old, a, b, c] = [event("e", "u"), event("e", "u"), event("e", "v"), event("e", "w")]
    await runtime.runPromise(ingest([{ projectId: P, events: [old] }]))
    const { stored } = await runtime.runPromise(
      ingest([
        { projectId: P, events: [old, a, a, b] },
        { projectId: P, events: [b, c] },
        { projectId: P + 1, events: [b] }
      ])
    )
    expect(stored.map((events) => events.map((e) => e.uuid))).toEqual([[a.uuid, b.uuid], [c.uuid], [b.uuid]])
    await runtime.dispose()
  })
})

describe("retries among new events", () => {
  it("skip the retried events entirely: their old updates are not applied again", async () => {
    const runtime = ManagedRuntime.make(memoryStorage())
    const free = event("e", "u", { $set: { plan: "free" } })
    const pro = event("e", "u", { $set: { plan: "pro" } })
    await runtime.runPromise(ingest([{ projectId: P, events: [free] }]))
    await runtime.runPromise(ingest([{ projectId: P, events: [pro] }]))
    // An SDK resends `free` together with something new.
    const fresh = event("e", "u", { $set_once: { first: true } })
    await runtime.runPromise(ingest([{ projectId: P, events: [free, fresh] }]))
    const after = await snapshot(runtime)
    expect(after.persons).toHaveLength(1)
    expect(after.persons[0]!.properties).toMatchObject({ plan: "pro", first: true })
    expect(Object.keys(after.events).sort()).toEqual([free.uuid, pro.uuid, fresh.uuid].sort())
    await runtime.dispose()
  })
})
