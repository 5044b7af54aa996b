import { createHash } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { cacheKey, type CacheKeyInput } from "../src/queries/cacheKey.js"

// Query cache keys (zedql.md 3 "Caching"): "cache_" + md5("query_" + canonical JSON of what the
// result depends on), equal for equal queries however their keys are ordered.

const input: CacheKeyInput = {
  queryRunner: "ZedQLQueryRunner",
  query: { kind: "ZedQLQuery", query: "select 1", filters: { dateRange: { date_from: "-7d" }, properties: [] } },
  teamId: 1,
  modifiers: { personsOnEventsMode: "disabled", debug: false },
  limitContext: "query",
  timezone: "UTC",
  weekStartDay: 0
}

/** The same value with every object's keys in reverse order. */
const reversed = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(reversed)
    : typeof value === "object" && value !== null
      ? Object.fromEntries(
          Object.entries(value)
            .reverse()
            .map(([k, v]) => [k, reversed(v)])
        )
      : value

describe("cache keys", () => {
  it("is the md5 of the canonical payload: sorted keys at every depth, compact, version 2", () => {
    const text =
      'query_{"limit_context":"query","modifiers":{"debug":false,"personsOnEventsMode":"disabled"},' +
      '"query":{"filters":{"dateRange":{"date_from":"-7d"},"properties":[]},"kind":"ZedQLQuery","query":"select 1"},' +
      '"query_runner":"ZedQLQueryRunner","team_id":1,"timezone":"UTC","version":2,"week_start_day":0}'
    expect(cacheKey(input)).toBe(`cache_${createHash("md5").update(text).digest("hex")}`)
    expect(cacheKey(input)).toMatch(/^cache_[0-9a-f]{32}$/)
  })

  it("hashes text as UTF-8", () => {
    const key = cacheKey({ ...input, query: { kind: "ZedQLQuery", query: "select 'ü€😀'" }, modifiers: {} })
    const text =
      'query_{"limit_context":"query","modifiers":{},"query":{"kind":"ZedQLQuery","query":"select \'ü€😀\'"},' +
      '"query_runner":"ZedQLQueryRunner","team_id":1,"timezone":"UTC","version":2,"week_start_day":0}'
    expect(key).toBe(`cache_${createHash("md5").update(Buffer.from(text, "utf8")).digest("hex")}`)
  })

  it("ignores the query's tags and members set to null", () => {
    expect(cacheKey({ ...input, query: { ...input.query, tags: { productKey: "x", scene: "y" } } })).toBe(
      cacheKey(input)
    )
    expect(
      cacheKey({
        ...input,
        query: { ...input.query, name: null, filters: { ...(input.query.filters as object), properties: [], x: null } }
      })
    ).toBe(cacheKey(input))
    // Nulls inside arrays are values, not unset members.
    expect(cacheKey({ ...input, query: { ...input.query, values: [null] } })).not.toBe(
      cacheKey({ ...input, query: { ...input.query, values: [] } })
    )
  })

  it("shares results between the query and query_async limit contexts only", () => {
    expect(cacheKey({ ...input, limitContext: "query_async" })).toBe(cacheKey(input))
    expect(cacheKey({ ...input, limitContext: "export" })).not.toBe(cacheKey(input))
  })

  it("changes with everything the result depends on", () => {
    const variants: Array<Partial<CacheKeyInput>> = [
      { queryRunner: "EventsQueryRunner" },
      { query: { ...input.query, query: "select 2" } },
      {
        query: {
          ...input.query,
          filters: { properties: [], dateRange: { date_from: "-7d" }, filterTestAccounts: true }
        }
      },
      { teamId: 2 },
      { modifiers: { personsOnEventsMode: "person_id_override_properties_on_events", debug: false } },
      { timezone: "Europe/Paris" },
      { weekStartDay: 1 }
    ]
    const keys = new Set([cacheKey(input), ...variants.map((v) => cacheKey({ ...input, ...v }))])
    expect(keys.size).toBe(variants.length + 1)
  })

  it("array order matters", () => {
    const a = cacheKey({ ...input, query: { ...input.query, values: [1, 2] } })
    expect(cacheKey({ ...input, query: { ...input.query, values: [2, 1] } })).not.toBe(a)
  })

  it("equal queries written in any key order share a key; different ones do not", () => {
    const query = fc.dictionary(fc.string(), fc.jsonValue())
    fc.assert(
      fc.property(query, fc.jsonValue(), (q, modifiers) => {
        const original = cacheKey({ ...input, query: q, modifiers })
        const reordered = cacheKey({
          ...input,
          query: reversed(q) as Record<string, unknown>,
          modifiers: reversed(modifiers)
        })
        expect(reordered).toBe(original)
      })
    )
    fc.assert(
      fc.property(query, query, (a, b) => {
        const same = JSON.stringify(cacheKeyText(a)) === JSON.stringify(cacheKeyText(b))
        expect(cacheKey({ ...input, query: a }) === cacheKey({ ...input, query: b })).toBe(same)
      })
    )
  })
})

/** What the key should depend on of a query: its members other than tags and nulls, in sorted order. */
const cacheKeyText = (value: unknown, top = true): unknown => {
  if (Array.isArray(value)) return value.map((v) => cacheKeyText(v, false))
  if (typeof value !== "object" || value === null) return value
  return Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== null && !(top && k === "tags"))
    .sort()
    .map((k) => [k, cacheKeyText((value as Record<string, unknown>)[k], false)])
}
