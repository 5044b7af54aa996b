import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { type IncomingEvent, normalizeEvent } from "../src/ingest/normalize.js"
import {
  detectPropertyType,
  MAX_KEY_BYTES,
  MAX_WRITES_PER_EVENT,
  propertyDefinitionsOf
} from "../src/ingest/propertyTypes.js"
import type { PropertyDefinition } from "../src/services/PropertyDefinitions.js"

const now = new Date("2026-03-01T12:00:00.000Z")
const nowSeconds = now.getTime() / 1000
const SIX_MONTHS_S = 15_768_000

const event = (name: string, properties: Record<string, unknown>): IncomingEvent => ({
  uuid: "0196a3e1-0000-7000-8000-000000000001",
  event: name,
  distinct_id: "d",
  properties,
  timestamp: now,
  received_at: now,
  processPerson: true
})

const typeOf = (key: string, value: unknown) => detectPropertyType(key, value, now)
const byId = (definitions: ReadonlyArray<PropertyDefinition>) =>
  Object.fromEntries(definitions.map((d) => [`${d.owner}${d.groupTypeIndex ?? ""}.${d.key}`, d.propertyType]))

describe("detectPropertyType", () => {
  it("types JSON numbers and booleans as Numeric and Boolean; null, arrays and objects tell nothing", () => {
    expect(typeOf("price", 12.5)).toBe("Numeric")
    expect(typeOf("count", -3)).toBe("Numeric")
    expect(typeOf("ok", false)).toBe("Boolean")
    expect(typeOf("x", null)).toBeUndefined()
    expect(typeOf("x", [1])).toBeUndefined()
    expect(typeOf("x", { a: 1 })).toBeUndefined()
  })

  it("keeps numeric-looking strings String, and reads only exact true/false text as Boolean", () => {
    for (const text of ["123", "1.5", "-2", "1e5", "0x10", "", "yes", "True", "1"])
      expect(typeOf("v", text)).toBe("String")
    for (const text of ["true", "false", "TRUE", "FALSE", " true "]) expect(typeOf("v", text)).toBe("Boolean")
  })

  it("reads ISO-8601-like dates, RFC 3339 and RFC 2822 strings as DateTime, whatever the key", () => {
    for (const text of [
      "2026-02-01",
      "2026/02/01",
      "02-01-2026",
      "12/31/2025",
      "2026-02-01T10:00:00Z",
      "2026-02-01T10:00:00.123+02:00",
      "2026-02-01 10:00:00",
      "2026-02-01T10:00:00 whatever follows the seconds",
      "2026-02-01t10:00:00z",
      " 2026-02-01 ",
      "Sun, 01 Feb 2026 10:00:00 GMT",
      "1 Feb 2026 10:00 +0200",
      new Date("2026-02-01T10:00:00Z").toUTCString()
    ])
      expect([text, typeOf("value", text)]).toEqual([text, "DateTime"])
    for (const text of [
      "2026-02",
      "2026-02-01T10:00",
      "2026-13-45x",
      "20260201",
      "Sun Feb 01 2026 10:00:00 GMT+0000",
      "1767225600",
      "Feb 1, 2026",
      "yesterday"
    ])
      expect([text, typeOf("value", text)]).toEqual([text, "String"])
  })

  it("reads numbers under time-like keys as DateTime when they could be Unix times of the last six months or later", () => {
    const recent = Math.floor(nowSeconds) - 3600
    for (const key of [
      "time",
      "$time",
      "Timestamp",
      "signup_date",
      "created_at",
      "expires-at",
      "createdAt",
      "updatedAt"
    ]) {
      expect([key, typeOf(key, recent)]).toEqual([key, "DateTime"])
      expect([key, typeOf(key, recent * 1000)]).toEqual([key, "DateTime"])
    }
    expect(typeOf("time", Math.floor(nowSeconds) - SIX_MONTHS_S)).toBe("DateTime")
    expect(typeOf("time", Math.floor(nowSeconds) - SIX_MONTHS_S - 1)).toBe("Numeric")
    expect(typeOf("time", recent + 0.5)).toBe("Numeric")
    expect(typeOf("duration_ms", recent)).toBe("Numeric")
    expect(typeOf("at", recent)).toBe("Numeric")
    expect(typeOf("last_signup", recent)).toBe("Numeric")
  })

  it("keeps campaign parameters, flag values and survey answers String, whatever their first value", () => {
    for (const key of [
      "utm_source",
      "UTM_Campaign",
      "$initial_utm_term",
      "$feature/beta",
      "$feature_flag_response",
      "$survey_response",
      "$survey_response_2"
    ]) {
      for (const value of [1, true, "true", "2026-02-01"])
        expect([key, value, typeOf(key, value)]).toEqual([key, value, "String"])
    }
    expect(typeOf("$initial_referrer", 1)).toBe("Numeric")
    expect(typeOf("$feature_flag", true)).toBe("Boolean")
  })
})

describe("propertyDefinitionsOf", () => {
  it("records an event's top-level properties, skipping person updates and group columns", () => {
    const definitions = propertyDefinitionsOf(
      [
        event("$pageview", {
          $browser: "Chrome",
          price: 10,
          paid: true,
          nothing: null,
          tags: ["a"],
          $set: { email: "ada@example.com" },
          $set_once: { first_seen: "2026-01-01" },
          $unset: ["old"],
          $groups: { company: "acme" },
          $group_0: "acme",
          $group_4: "x"
        })
      ],
      new Map()
    )
    expect(byId(definitions)).toEqual({
      "event.$browser": "String",
      "event.price": "Numeric",
      "event.paid": "Boolean",
      "person.email": "String",
      "person.first_seen": "DateTime"
    })
  })

  it("takes the first value's type: event properties before $set before $set_once, and earlier events first", () => {
    const definitions = propertyDefinitionsOf(
      [
        event("e", { plan: "pro", $set: { plan: 1 }, $set_once: { plan: true, n: "x" } }),
        event("e", { plan: 2, $set: { n: 5 } }),
        event("e", { late: null }),
        event("e", { late: 3 })
      ],
      new Map()
    )
    expect(byId(definitions)).toEqual({
      "event.plan": "String",
      "person.plan": "Numeric",
      "person.n": "String",
      "event.late": "Numeric"
    })
    expect(definitions).toHaveLength(4)
  })

  it("records only group properties of $groupidentify, under the index ingestion gave the group type", () => {
    const types = new Map([
      ["company", 0],
      ["team", 3]
    ])
    const definitions = propertyDefinitionsOf(
      [
        event("$groupidentify", {
          $group_type: "team",
          $group_key: "core",
          $group_set: { size: 4, name: "Core" },
          $set: { p: 1 },
          other: 1
        }),
        event("$groupidentify", { $group_type: "company", $group_key: "acme", $group_set: { size: "big" } }),
        // Types without an index (over the limit) and malformed sets record nothing.
        event("$groupidentify", { $group_type: "t6", $group_key: "k", $group_set: { lost: 1 } }),
        event("$groupidentify", { $group_type: "company", $group_key: "acme", $group_set: ["x"] })
      ],
      types
    )
    expect(definitions).toEqual(
      expect.arrayContaining([
        { owner: "group", groupTypeIndex: 3, key: "size", propertyType: "Numeric" },
        { owner: "group", groupTypeIndex: 3, key: "name", propertyType: "String" },
        { owner: "group", groupTypeIndex: 0, key: "size", propertyType: "String" }
      ])
    )
    expect(definitions).toHaveLength(3)
  })

  it("leaves out keys longer than the limit in UTF-8, and what the caller already knows", () => {
    const long = "é".repeat(MAX_KEY_BYTES / 2)
    const definitions = propertyDefinitionsOf(
      [
        event("e", {
          [long]: 1,
          [`${long}x`]: 1,
          known: 1,
          $set: { known: 1 }
        })
      ],
      new Map(),
      (owner, _, key) => owner === "event" && key === "known"
    )
    expect(byId(definitions)).toEqual({ [`event.${long}`]: "Numeric", "person.known": "Numeric" })
  })

  it("records nothing for an event with more properties than PostHog would write definitions for", () => {
    const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))
    // One write for the event, two per event property.
    const fits = Math.floor((MAX_WRITES_PER_EVENT - 1) / 2)
    expect(propertyDefinitionsOf([event("e", many(fits))], new Map())).toHaveLength(fits)
    const definitions = propertyDefinitionsOf([event("e", many(fits + 1)), event("e", { k0: "x" })], new Map())
    expect(definitions).toEqual([{ owner: "event", groupTypeIndex: null, key: "k0", propertyType: "String" }])
  })

  it("sees what normalization adds: posthog-js's initial person properties and the request's $ip", () => {
    const normalized = normalizeEvent(
      {
        event: "$pageview",
        distinct_id: "d",
        properties: { $browser: "Firefox", $browser_version: 120, utm_source: 42 }
      },
      { now, sentAt: now, ip: "203.0.113.9", historical: false, anonymizeIps: false, defaultEvent: undefined }
    )
    if (normalized._tag !== "Event") throw new Error(normalized._tag)
    expect(byId(propertyDefinitionsOf([normalized.event], new Map()))).toMatchObject({
      "event.$browser_version": "Numeric",
      "event.$ip": "String",
      "event.$sent_at": "DateTime",
      "event.utm_source": "String",
      "person.$browser_version": "Numeric",
      "person.$initial_browser_version": "Numeric",
      "person.$initial_utm_source": "String"
    })
  })

  const json = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      fc.string(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer({ min: 0, max: 4_000_000_000_000 }),
      fc.boolean(),
      fc.constant(null),
      fc.constantFrom("true", "2026-02-01", "2026-02-01T10:00:00Z", "12"),
      fc.array(tie("value"), { maxLength: 2 }),
      fc.dictionary(fc.string(), tie("value"), { maxKeys: 2 })
    )
  })).value
  const key = fc.oneof(
    fc.string(),
    fc.constantFrom("$set", "$set_once", "$groups", "created_at", "utm_x", "$feature/f", "__proto__", "time")
  )
  const properties = fc.dictionary(key, json, { maxKeys: 8 })
  const anEvent = fc
    .record({
      name: fc.constantFrom("e", "$pageview", "$groupidentify"),
      properties: fc.record({
        top: properties,
        $set: fc.option(properties),
        $set_once: fc.option(properties),
        $group_type: fc.constantFrom("company", "team", "unmapped"),
        $group_set: fc.option(properties)
      })
    })
    .map(({ name, properties: { top, ...rest } }) =>
      event(name, { ...top, ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== null)) })
    )
  const types = new Map([
    ["company", 0],
    ["team", 1]
  ])

  it("is total and deterministic, with one type per key and owner, the type of the key's first typed value", () => {
    fc.assert(
      fc.property(fc.array(anEvent, { maxLength: 6 }), (events) => {
        const definitions = propertyDefinitionsOf(events, types)
        expect(propertyDefinitionsOf(events, types)).toEqual(definitions)
        const ids = definitions.map((d) => `${d.owner}:${d.groupTypeIndex}:${d.key}`)
        expect(new Set(ids).size).toBe(ids.length)
        for (const d of definitions) {
          expect(["String", "Numeric", "Boolean", "DateTime"]).toContain(d.propertyType)
          expect(d.groupTypeIndex === null).toBe(d.owner !== "group")
        }
        // Against a plain reading of the rules: each owner's properties, in order, first typed value wins.
        const expected = new Map<string, string>()
        const add = (owner: string, index: number | null, values: unknown) => {
          if (typeof values !== "object" || values === null || Array.isArray(values)) return
          for (const [k, v] of Object.entries(values)) {
            if (owner === "event" && ["$set", "$set_once", "$unset", "$groups"].includes(k)) continue
            const type = detectPropertyType(k, v, now)
            const id = `${owner}:${index}:${k}`
            if (type !== undefined && !expected.has(id)) expected.set(id, type)
          }
        }
        for (const e of events) {
          if (e.event === "$groupidentify") {
            add(
              "group",
              types.get(e.properties["$group_type"] as string) ?? null,
              types.has(e.properties["$group_type"] as string) ? e.properties["$group_set"] : null
            )
          } else {
            add("event", null, e.properties)
            add("person", null, e.properties["$set"])
            add("person", null, e.properties["$set_once"])
          }
        }
        expect(new Map(definitions.map((d) => [`${d.owner}:${d.groupTypeIndex}:${d.key}`, d.propertyType]))).toEqual(
          expected
        )
      })
    )
  })

  it("leaves out exactly what is known, and nothing else", () => {
    fc.assert(
      fc.property(fc.array(anEvent, { maxLength: 4 }), fc.func(fc.boolean()), (events, knownOf) => {
        const known = (owner: string, index: number | null, k: string) => knownOf(`${owner}:${index}:${k}`)
        const all = propertyDefinitionsOf(events, types)
        expect(propertyDefinitionsOf(events, types, known)).toEqual(
          all.filter((d) => !known(d.owner, d.groupTypeIndex, d.key))
        )
      })
    )
  })
})
