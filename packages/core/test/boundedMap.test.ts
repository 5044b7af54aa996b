import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { approximateBytes, makeBoundedMap } from "../src/cache/bounded.js"

// The map behind Zed's caches: whatever is set, read or deleted, it never holds more entries or
// more weight than its bounds, its weight is that of what it holds, and what was just set is kept
// unless it alone outweighs the bound.

type Op =
  | { readonly op: "set"; readonly key: number; readonly weight: number }
  | { readonly op: "get"; readonly key: number }
  | { readonly op: "delete"; readonly key: number }

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant("set" as const), key: fc.nat(30), weight: fc.nat(400) }),
  fc.record({ op: fc.constant("get" as const), key: fc.nat(30) }),
  fc.record({ op: fc.constant("delete" as const), key: fc.nat(30) })
)

describe("bounded map", () => {
  it("stays within its entries and weight, whatever is done to it", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.array(op, { maxLength: 200 }),
        (maxEntries, maxWeight, ops) => {
          const map = makeBoundedMap<number, number>({ maxEntries, maxWeight, weigh: (weight) => weight })
          for (const step of ops) {
            if (step.op === "set") {
              map.set(step.key, step.weight)
              expect(map.peek(step.key)).toBe(step.weight <= maxWeight ? step.weight : undefined)
            } else if (step.op === "get") map.get(step.key)
            else map.delete(step.key)
            expect(map.size()).toBeLessThanOrEqual(maxEntries)
            expect(map.weight()).toBeLessThanOrEqual(maxWeight)
            expect(map.weight()).toBe([...map.keys()].reduce((sum, key) => sum + map.peek(key)!, 0))
          }
        }
      )
    )
  })

  it("lets the least recently used go first", () => {
    const map = makeBoundedMap<string, number>({ maxEntries: 2 })
    map.set("a", 1)
    map.set("b", 2)
    map.get("a")
    map.set("c", 3)
    expect([...map.keys()]).toEqual(["a", "c"])
  })

  it("weighs values by what they hold", () => {
    expect(approximateBytes({ name: "a".repeat(10_000) }) - approximateBytes({ name: "" })).toBe(10_000)
    expect(approximateBytes(new Map([["k", ["x".repeat(1000)]]]))).toBeGreaterThan(1000)
    // Past its budget of nodes it stops counting rather than walk a huge value.
    expect(
      approximateBytes(
        Array.from({ length: 1000 }, () => "x"),
        10
      )
    ).toBeLessThan(1000)
  })
})
