import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { memoryStorage } from "../src/index.js"
import { EventStore, PersonStore, ProjectStore, Transactor } from "../src/storage.js"

// The in-memory store stands in for SQL in domain tests, so its transactions must roll back too.
describe("memory storage transactions", () => {
  it.effect("undo every write of a transaction that fails, and keep those of one that succeeds", () =>
    Effect.gen(function* () {
      const transactor = yield* Transactor
      const projects = yield* ProjectStore
      const events = yield* EventStore
      const project = yield* projects.create({
        organization: "org",
        name: "Kept",
        timezone: "UTC",
        api_token: "phc_memory_rollback_0001"
      })
      const event = (uuid: string) => ({
        uuid,
        event: "e",
        distinct_id: "d",
        person_id: "p",
        properties: {},
        timestamp: new Date(),
        created_at: new Date(),
        groups: []
      })
      const failed = yield* Effect.either(
        transactor.transaction(
          Effect.gen(function* () {
            yield* projects.update(project.id, { name: "Renamed" })
            yield* events.insert(project.id, [event("0196a3e1-0000-7000-8000-000000000001")])
            yield* (yield* PersonStore).save(project.id, {
              created: [],
              updated: [],
              claimed: [],
              moved: [],
              deleted: [],
              repoint: []
            })
            return yield* Effect.fail("boom")
          })
        )
      )
      expect(failed._tag).toBe("Left")
      expect(Option.getOrThrow(yield* projects.get(project.id)).name).toBe("Kept")
      expect(yield* events.list(project.id, { limit: 10, offset: 0 })).toEqual([])

      yield* transactor.transaction(events.insert(project.id, [event("0196a3e1-0000-7000-8000-000000000002")]))
      expect((yield* events.list(project.id, { limit: 10, offset: 0 })).map((e) => e.uuid)).toEqual([
        "0196a3e1-0000-7000-8000-000000000002"
      ])
    }).pipe(Effect.provide(memoryStorage()))
  )
})
