import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Option } from "effect"
import { makeReadThrough } from "../src/cache/readThrough.js"

// The cache in front of storage reads on the request path: answers without reading while a value
// is fresh, shares one lookup among concurrent readers, serves a stale value while refreshing, stays
// within its capacity, and never keeps what a lookup read before an invalidation.

const counting = <V>(values: (key: string) => V) => {
  const calls: Array<string> = []
  return { calls, lookup: (key: string) => Effect.sync(() => (calls.push(key), values(key))) }
}

describe("read-through cache", () => {
  it.scoped("answers a kept value without reading, and reads again once it expired", () =>
    Effect.gen(function* () {
      const { calls, lookup } = counting((key) => `value of ${key}`)
      const cache = yield* makeReadThrough({ capacity: 10, lookup, timeToLive: () => 50 })
      expect(cache.peek("a")).toBeUndefined()
      expect(yield* cache.get("a")).toBe("value of a")
      expect(cache.peek("a")).toBe("value of a")
      expect(yield* cache.get("a")).toBe("value of a")
      expect(calls).toEqual(["a"])
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 60)))
      expect(cache.peek("a")).toBeUndefined()
      yield* cache.get("a")
      expect(calls).toEqual(["a", "a"])
    })
  )

  it.scoped("shares one lookup among concurrent readers of a key", () =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<void>()
      let lookups = 0
      const cache = yield* makeReadThrough({
        capacity: 10,
        lookup: (key: string) =>
          Effect.as(
            Effect.zipRight(
              Effect.sync(() => lookups++),
              Deferred.await(gate)
            ),
            key.length
          ),
        timeToLive: () => 60_000
      })
      const readers = yield* Effect.forkAll(Array.from({ length: 5 }, () => cache.get("abc")))
      yield* Effect.yieldNow()
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(readers)).toEqual([3, 3, 3, 3, 3])
      expect(lookups).toBe(1)
    })
  )

  it.scoped("serves a stale value while one refresh reads it again", () =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<void>()
      let lookups = 0
      const cache = yield* makeReadThrough({
        capacity: 10,
        // The first lookup answers at once, the refresh waits for the gate.
        lookup: () =>
          Effect.suspend(() => (++lookups === 1 ? Effect.succeed(1) : Effect.as(Deferred.await(gate), lookups))),
        timeToLive: () => 20,
        staleFor: () => 60_000
      })
      expect(yield* cache.get("k")).toBe(1)
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 30)))
      // Past its time to live: still answered, and one refresh started however often it is asked.
      expect([cache.peek("k"), cache.peek("k"), yield* cache.get("k")]).toEqual([1, 1, 1])
      expect(lookups).toBe(2)
      yield* Deferred.succeed(gate, undefined)
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
      expect(cache.peek("k")).toBe(2)
    })
  )

  it.scoped("keeps at most its capacity, the oldest going first", () =>
    Effect.gen(function* () {
      const { calls, lookup } = counting((key) => key)
      const cache = yield* makeReadThrough({ capacity: 3, lookup, timeToLive: () => 60_000 })
      for (const key of ["a", "b", "c", "d"]) yield* cache.get(key)
      expect(["a", "b", "c", "d"].map(cache.peek)).toEqual([undefined, "b", "c", "d"])
      expect(calls).toEqual(["a", "b", "c", "d"])
    })
  )

  it.scoped("keeps at most its bytes, the oldest going first, and never a value heavier than all of them", () =>
    Effect.gen(function* () {
      const { calls, lookup } = counting((key) => "x".repeat(Number(key.slice(1))))
      const cache = yield* makeReadThrough({
        capacity: 100,
        weigh: (value) => value.length,
        maxBytes: 1000,
        lookup,
        timeToLive: () => 60_000
      })
      for (const key of ["a400", "b400", "c300"]) yield* cache.get(key)
      expect(["a400", "b400", "c300"].map((key) => cache.peek(key)?.length)).toEqual([undefined, 400, 300])
      expect((yield* cache.get("d2000")).length).toBe(2000)
      expect(cache.peek("d2000")).toBeUndefined()
      expect(cache.peek("c300")?.length).toBe(300)
      expect(calls).toEqual(["a400", "b400", "c300", "d2000"])
    })
  )

  it.scoped("does not keep what a lookup read before the key was invalidated", () =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<void>()
      const cache = yield* makeReadThrough({
        capacity: 10,
        lookup: () => Effect.as(Deferred.await(gate), Option.some("old")),
        timeToLive: () => 60_000
      })
      const reader = yield* Effect.fork(cache.get("k"))
      yield* Effect.yieldNow()
      cache.invalidate("k")
      yield* Deferred.succeed(gate, undefined)
      // The reader that started before gets what it read; nothing is kept for the next one.
      expect(yield* Fiber.join(reader)).toEqual(Option.some("old"))
      expect(cache.peek("k")).toBeUndefined()
    })
  )

  it.scoped("does not keep failures: the next reader looks up again", () =>
    Effect.gen(function* () {
      let attempts = 0
      const cache = yield* makeReadThrough({
        capacity: 10,
        lookup: () => Effect.suspend(() => (++attempts === 1 ? Effect.fail("down") : Effect.succeed("up"))),
        timeToLive: () => 60_000
      })
      expect(yield* Effect.flip(cache.get("k"))).toBe("down")
      expect(yield* cache.get("k")).toBe("up")
    })
  )
})
