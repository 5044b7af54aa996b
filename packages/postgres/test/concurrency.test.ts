import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { EventStore, PersonStore, type StorageServices } from "@zed/core/storage"
import { bootstrap } from "../../core/src/bootstrap.js"
import { ingest } from "../../core/src/ingest/writer.js"
import { Effect, ManagedRuntime } from "effect"
import { postgresStorage, temporaryDatabase, type TemporaryDatabase } from "../src/index.js"
import { incomingEvent } from "./backends.js"
import { TEST_SERVER_URL } from "./server.js"

// Two Zed instances on one database, racing: one stores an anonymous visitor's page view while the
// other stores the identify that joins that visitor to a user. Whatever the interleaving, each
// visitor and user must end up as one person, never split, and no event is lost or doubled.

let db: TemporaryDatabase
let a: ManagedRuntime.ManagedRuntime<StorageServices, unknown>
let b: ManagedRuntime.ManagedRuntime<StorageServices, unknown>

beforeAll(async () => {
  db = await temporaryDatabase(TEST_SERVER_URL)
  a = ManagedRuntime.make(postgresStorage({ url: db.url }))
  b = ManagedRuntime.make(postgresStorage({ url: db.url }))
  await a.runPromise(bootstrap())
})
afterAll(async () => {
  await a.dispose()
  await b.dispose()
  await db.drop()
})

const event = incomingEvent

describe("concurrent writers on one PostgreSQL database", () => {
  it("never split a person when they claim the same distinct ids at once", async () => {
    const pairs = Array.from({ length: 40 }, (_, i) => ({ anon: `anon-${i}`, user: `user-${i}` }))
    const sent: Array<string> = []
    await Promise.all(
      pairs.map(async ({ anon, user }) => {
        const view = event("$pageview", anon, { $set: { seen: true } })
        const identify = event("$identify", user, { $anon_distinct_id: anon, $set: { email: `${user}@example.com` } })
        sent.push(view.uuid, identify.uuid)
        await Promise.all([
          a.runPromise(ingest([{ projectId: 1, events: [view] }])),
          b.runPromise(ingest([{ projectId: 1, events: [identify] }]))
        ])
      })
    )
    const persons = (
      await a.runPromise(Effect.flatMap(PersonStore, (s) => s.list(1, { properties: [], limit: 1000, offset: 0 })))
    ).results
    expect(persons).toHaveLength(pairs.length)
    for (const { anon, user } of pairs) {
      const person = persons.find((p) => p.distinct_ids.includes(user))!
      expect([...person.distinct_ids].sort()).toEqual([anon, user])
      expect(person).toMatchObject({ is_identified: true, properties: { seen: true, email: `${user}@example.com` } })
    }
    const events = await a.runPromise(Effect.flatMap(EventStore, (s) => s.list(1, { limit: 1000, offset: 0 })))
    expect(events.map((e) => e.uuid).sort()).toEqual(sent.sort())
    for (const e of events) expect(persons.some((p) => p.uuid === e.person_id)).toBe(true)
  })
})
