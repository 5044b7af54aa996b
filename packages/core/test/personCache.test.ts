import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { makePersonCache, PERSON_CACHE_BOUNDS } from "../src/ingest/personCache.js"
import type { Person } from "../src/persons/model.js"

// The person cache of a sole writer keeps what it wrote, within its bounds in entries and bytes:
// persons with heavy properties push out the ones remembered longest ago, which are read again.

const person = (id: number, properties: Record<string, unknown>): Person => ({
  id,
  uuid: `00000000-0000-0000-0000-${String(id).padStart(12, "0")}`,
  properties,
  is_identified: false,
  created_at: new Date(0),
  version: 0,
  distinct_ids: [`user-${id}`]
})

describe("person cache", () => {
  it("keeps heavy persons within its bytes, forgetting those remembered longest ago", () => {
    const cache = makePersonCache(true)
    const heavy = (id: number) => person(id, { blob: "x".repeat(1024 * 1024) })
    const count = Math.ceil(PERSON_CACHE_BOUNDS.bytes / (1024 * 1024)) + 10
    for (let id = 0; id < count; id++) cache.remember(1, [heavy(id)])
    const { found, missing } = cache.lookup(
      1,
      Array.from({ length: count }, (_, id) => `user-${id}`)
    )
    expect(found.length).toBeLessThan(PERSON_CACHE_BOUNDS.bytes / (1024 * 1024))
    expect(missing[0]).toBe("user-0")
    expect(found.map((p) => p.id)).toContain(count - 1)
    expect(cache.properties(1, `user-${count - 1}`)).toMatchObject({ blob: expect.any(String) })
  })

  it("answers what it was last told of every id it still keeps", () => {
    fc.assert(
      fc.property(fc.array(fc.record({ id: fc.nat(50), size: fc.nat(2000) }), { maxLength: 100 }), (writes) => {
        const cache = makePersonCache(true)
        const last = new Map<number, number>()
        for (const { id, size } of writes) {
          cache.remember(1, [person(id, { text: "y".repeat(size) })])
          last.set(id, size)
        }
        for (const [id, size] of last) {
          const properties = cache.properties(1, `user-${id}`)
          // Small persons are far from the bounds: every one is kept, as last written.
          expect((properties as { text: string }).text.length).toBe(size)
        }
      })
    )
  })
})
