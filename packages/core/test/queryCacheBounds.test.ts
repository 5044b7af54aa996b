import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import fc from "fast-check"
import { makeJournal } from "../src/services/memory/journal.js"
import { makeMemoryQueryCache } from "../src/services/memory/queries.js"

// The in-process query cache (PGlite's, and in-memory storage's) keeps results within its bounds in
// entries and JSON bytes: whatever is put, the oldest go first and the newest is kept.

const entry = (key: string, size: number) => ({
  key,
  response: { results: "r".repeat(size) },
  lastRefresh: new Date(0),
  expiresAt: new Date(8.64e15)
})

describe("in-process query cache", () => {
  it("keeps at most its entries and bytes of results, the oldest going first", () => {
    fc.assert(
      fc.property(fc.array(fc.record({ key: fc.nat(40), size: fc.nat(3000) }), { maxLength: 60 }), (puts) => {
        const bounds = { entries: 10, bytes: 8000 }
        const cache = makeMemoryQueryCache(makeJournal(), bounds)
        const sizes = new Map<string, number>()
        for (const { key, size } of puts) {
          Effect.runSync(cache.put(1, entry(`k${key}`, size)))
          sizes.set(`k${key}`, size)
          const kept = [...sizes.keys()].flatMap((k) => Option.toArray(Effect.runSync(cache.get(1, k))))
          expect(kept.length).toBeLessThanOrEqual(bounds.entries)
          expect(kept.reduce((sum, e) => sum + JSON.stringify(e.response).length, 0)).toBeLessThanOrEqual(bounds.bytes)
          const newest = Effect.runSync(cache.get(1, `k${key}`))
          // A result alone over the bound is not kept; any other newest one is.
          expect(Option.isSome(newest)).toBe(JSON.stringify(entry("", size).response).length <= bounds.bytes)
        }
      })
    )
  })
})
