import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { normalizeEvent, type NormalizeContext, sentAtOf } from "../src/ingest/normalize.js"
import { parseShape, plausibleToken } from "../src/ingest/shapes.js"
import { eventTimestamp, parseTimestamp } from "../src/ingest/timestamp.js"
import { isUuid, uuidv5, uuidv7 } from "../src/ingest/uuid.js"
import { personUuid } from "../src/persons/model.js"

const now = new Date("2026-03-01T12:00:00.000Z")
const context: NormalizeContext = {
  now,
  sentAt: undefined,
  ip: "203.0.113.9",
  historical: false,
  anonymizeIps: false,
  defaultEvent: undefined
}

const accepted = (raw: unknown, ctx: Partial<NormalizeContext> = {}) => {
  const result = normalizeEvent(raw, { ...context, ...ctx })
  if (result._tag !== "Event") throw new Error(`expected an event, got ${JSON.stringify(result)}`)
  return result.event
}
const rejected = (raw: unknown) => {
  const result = normalizeEvent(raw, context)
  if (result._tag !== "Rejected") throw new Error(`expected a rejection, got ${result._tag}`)
  return result
}

describe("uuids", () => {
  it("v5 matches the RFC 9562 example and PostHog's person ids are v5 of project:distinct_id", () => {
    // RFC 9562 appendix A.4: namespace DNS, name "www.example.com"
    expect(uuidv5("6ba7b810-9dad-11d1-80b4-00c04fd430c8", "www.example.com")).toBe(
      "2ed6657d-e927-568b-95e1-2665a8aea6a2"
    )
    expect(personUuid(2, "user@x.io")).toBe(uuidv5("932979b4-65c3-4424-8467-0b66ec27bc22", "2:user@x.io"))
  })

  it("v7 carries the time, version and variant, and is unique", () => {
    const ids = Array.from({ length: 1000 }, () => uuidv7(now.getTime()))
    expect(new Set(ids).size).toBe(1000)
    for (const id of ids.slice(0, 10)) {
      expect(isUuid(id)).toBe(true)
      expect(id[14]).toBe("7")
      expect("89ab").toContain(id[19])
      expect(parseInt(id.replace(/-/g, "").slice(0, 12), 16)).toBe(now.getTime())
    }
  })
})

describe("timestamps", () => {
  it("parse ISO strings, short offsets, dates and epoch numbers", () => {
    expect(parseTimestamp("2026-02-01T10:00:00.123Z")?.toISOString()).toBe("2026-02-01T10:00:00.123Z")
    expect(parseTimestamp("2026-02-01T10:00:00+03")?.toISOString()).toBe("2026-02-01T07:00:00.000Z")
    expect(parseTimestamp("2026-02-01")?.toISOString()).toBe("2026-02-01T00:00:00.000Z")
    expect(parseTimestamp(1767225600)?.toISOString()).toBe("2026-01-01T00:00:00.000Z")
    expect(parseTimestamp(1767225600000)?.toISOString()).toBe("2026-01-01T00:00:00.000Z")
    expect(parseTimestamp("1767225600000")?.toISOString()).toBe("2026-01-01T00:00:00.000Z")
    expect(parseTimestamp("yesterday")).toBeUndefined()
  })

  const base = {
    offset: undefined,
    clockSkew: undefined,
    sentAt: undefined,
    ignoreSentAt: false,
    now,
    historical: false
  }

  it("correct the sender's clock by sent_at", () => {
    // The device clock runs 1 h fast: it says the event happened 10 s before it sent the batch.
    const sentAt = new Date("2026-03-01T13:00:00.000Z")
    expect(eventTimestamp({ ...base, timestamp: "2026-03-01T12:59:50.000Z", sentAt }).toISOString()).toBe(
      "2026-03-01T11:59:50.000Z"
    )
    expect(
      eventTimestamp({ ...base, timestamp: "2026-03-01T12:59:50.000Z", sentAt, ignoreSentAt: true }).toISOString()
    ).toBe("2026-03-01T12:59:50.000Z")
  })

  it("take offset over timestamp, clamp the future to now, and keep historical imports as given", () => {
    expect(eventTimestamp({ ...base, timestamp: "2020-01-01T00:00:00Z", offset: 5000 }).toISOString()).toBe(
      "2026-03-01T11:59:55.000Z"
    )
    expect(eventTimestamp({ ...base, timestamp: "2026-03-02T12:00:01Z" })).toEqual(now)
    expect(eventTimestamp({ ...base, timestamp: "2026-03-02T10:00:00Z" }).toISOString()).toBe(
      "2026-03-02T10:00:00.000Z"
    )
    const old = {
      ...base,
      timestamp: "2019-05-05T05:05:05.005Z",
      sentAt: new Date("2026-03-01T00:00:00Z"),
      historical: true
    }
    expect(eventTimestamp(old).toISOString()).toBe("2019-05-05T05:05:05.005Z")
    expect(eventTimestamp({ ...base, timestamp: "not a date" })).toEqual(now)
  })

  it("never land outside years 0–9999 or more than 23 h ahead", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double(),
          fc.string(),
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString())
        ),
        fc.option(fc.integer()),
        (timestamp, offset) => {
          const ts = eventTimestamp({ ...base, timestamp, offset: offset ?? undefined })
          expect(Number.isNaN(ts.getTime())).toBe(false)
          expect(ts.getTime()).toBeLessThanOrEqual(now.getTime() + 23 * 3600 * 1000)
          expect(ts.getUTCFullYear()).toBeGreaterThanOrEqual(0)
          expect(ts.getUTCFullYear()).toBeLessThanOrEqual(9999)
        }
      )
    )
  })

  it("prefer the body's sent_at over the query's", () => {
    expect(sentAtOf("2026-03-01T11:00:00Z", now.getTime())?.toISOString()).toBe("2026-03-01T11:00:00.000Z")
    expect(sentAtOf("garbage", now.getTime())).toEqual(now)
    expect(sentAtOf(undefined, undefined)).toBeUndefined()
  })
})

describe("event normalization", () => {
  it("keeps the SDK's uuid (lower-cased) and assigns a v7 when there is none", () => {
    expect(accepted({ event: "a", distinct_id: "d", uuid: "0196A3E1-0000-7000-8000-00000000000A" }).uuid).toBe(
      "0196a3e1-0000-7000-8000-00000000000a"
    )
    expect(accepted({ event: "a", distinct_id: "d", uuid: "" }).uuid).toMatch(/^[0-9a-f-]{14}7/)
    expect(rejected({ event: "a", distinct_id: "d", uuid: "not-a-uuid" }).detail).toMatch(/uuid is not a valid UUID/)
  })

  it("finds the distinct id top-level, as $distinct_id or in properties, stringifying and capping it", () => {
    expect(accepted({ event: "a", distinct_id: "top", properties: { distinct_id: "inner" } }).distinct_id).toBe("top")
    expect(accepted({ event: "a", $distinct_id: "dollar" }).distinct_id).toBe("dollar")
    expect(accepted({ event: "a", properties: { distinct_id: "inner" } }).distinct_id).toBe("inner")
    expect(accepted({ event: "a", distinct_id: 42 }).distinct_id).toBe("42")
    expect(accepted({ event: "a", distinct_id: { id: 1 } }).distinct_id).toBe('{"id":1}')
    expect(accepted({ event: "a", distinct_id: "x".repeat(300) }).distinct_id).toHaveLength(200)
    expect(accepted({ event: "a", distinct_id: "nul\u0000byte" }).distinct_id).toBe("nul\uFFFDbyte")
    for (const missing of [{}, { distinct_id: null }, { distinct_id: "" }]) {
      expect(rejected({ event: "a", ...missing }).detail).toBe("distinct_id is missing")
    }
  })

  it("requires an event name, stringifies odd ones, caps them, and lets /engage/ default to $identify", () => {
    expect(rejected({ distinct_id: "d" }).detail).toBe("event name is missing")
    expect(accepted({ event: 7, distinct_id: "d" }).event).toBe("7")
    expect(accepted({ event: "e".repeat(250), distinct_id: "d" }).event).toHaveLength(200)
    expect(accepted({ distinct_id: "d" }, { defaultEvent: "$identify" }).event).toBe("$identify")
  })

  it("merges top-level $set/$set_once/$unset into properties, top-level winning", () => {
    const event = accepted({
      event: "a",
      distinct_id: "d",
      $set: { plan: "pro" },
      $set_once: { first: 1 },
      $unset: ["old"],
      properties: { $set: { plan: "free", seats: 3 }, $unset: ["older"] }
    })
    expect(event.properties["$set"]).toEqual({ plan: "pro", seats: 3 })
    expect(event.properties["$set_once"]).toEqual({ first: 1 })
    expect(event.properties["$unset"]).toEqual(["older", "old"])
  })

  it("copies initial properties into $set and $set_once as $initial_*, explicit $set winning", () => {
    const event = accepted({
      event: "$pageview",
      distinct_id: "d",
      properties: { $browser: "Firefox", utm_source: "news", $set: { $browser: "Chosen" } }
    })
    expect(event.properties["$set"]).toEqual({ $browser: "Chosen", utm_source: "news" })
    expect(event.properties["$set_once"]).toEqual({ $initial_browser: "Firefox", $initial_utm_source: "news" })
  })

  it("adds $ip unless given or anonymized, and $sent_at", () => {
    expect(accepted({ event: "a", distinct_id: "d" }).properties["$ip"]).toBe("203.0.113.9")
    expect(accepted({ event: "a", distinct_id: "d", properties: { $ip: "198.51.100.1" } }).properties["$ip"]).toBe(
      "198.51.100.1"
    )
    expect(accepted({ event: "a", distinct_id: "d" }, { anonymizeIps: true }).properties).not.toHaveProperty("$ip")
    expect(accepted({ event: "a", distinct_id: "d" }, { sentAt: now }).properties["$sent_at"]).toBe(now.toISOString())
  })

  it("handles $process_person_profile=false: person events dropped, person updates stripped", () => {
    const personless = { $process_person_profile: false, $set: { a: 1 }, $set_once: { b: 2 }, $unset: ["c"] }
    const event = accepted({ event: "page", distinct_id: "d", properties: personless })
    expect(event.processPerson).toBe(false)
    expect(event.properties).toEqual({ $process_person_profile: false, $ip: "203.0.113.9" })
    for (const name of ["$identify", "$create_alias", "$merge_dangerously", "$groupidentify"]) {
      expect(normalizeEvent({ event: name, distinct_id: "d", properties: personless }, context)._tag).toBe("Dropped")
    }
    const personful = accepted({ event: "page", distinct_id: "d", properties: { $process_person_profile: "yes" } })
    expect(personful.processPerson).toBe(true)
    expect(personful.properties).not.toHaveProperty("$process_person_profile")
  })

  it("refuses non-object properties, too-deep nesting and oversized events", () => {
    expect(rejected({ event: "a", distinct_id: "d", properties: [1] }).detail).toBe("properties must be a JSON object")
    let deep: unknown = 1
    for (let i = 0; i < 100; i++) deep = { deep }
    expect(rejected({ event: "a", distinct_id: "d", properties: { deep } }).detail).toBe(
      "properties are nested too deeply"
    )
    const big = rejected({ event: "a", distinct_id: "d", properties: { blob: "x".repeat(1024 * 1024) } })
    expect(big.problem).toBe("payload_too_large")
  })

  it("makes every string storable: NUL and lone surrogates become U+FFFD", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ unit: "binary" }), fc.string({ unit: "binary" })), (properties) => {
        const result = normalizeEvent({ event: "a", distinct_id: "d", properties }, context)
        if (result._tag !== "Event") return
        const text = JSON.stringify(result.event.properties)
        expect(text.includes("\\u0000")).toBe(false)
        expect(text.isWellFormed()).toBe(true)
      })
    )
  })
})

describe("body shapes", () => {
  it("reads arrays, batch objects and single events, with their tokens", () => {
    expect(parseShape([{ event: "a", properties: { token: "phc_1" } }])).toMatchObject({
      batch: { token: "phc_1", events: [{ event: "a" }] }
    })
    expect(
      parseShape({
        api_key: "phc_2",
        batch: [{ event: "a", token: "phc_other" }],
        historical_migration: true,
        sent_at: "x"
      })
    ).toMatchObject({ batch: { token: "phc_2", historical: true, sentAt: "x" } })
    expect(parseShape({ event: "a", $token: "phc_3" })).toMatchObject({
      batch: { token: "phc_3", events: [{ event: "a" }] }
    })
  })

  it("refuses empty batches, inconsistent tokens and non-objects", () => {
    expect(parseShape({ api_key: "phc", batch: [] })).toMatchObject({
      _tag: "Invalid",
      problem: "invalid_payload",
      detail: "request holds no event"
    })
    expect(parseShape([])).toMatchObject({ problem: "invalid_payload" })
    expect(parseShape([{ token: "phc_a" }, { token: "phc_b" }])).toMatchObject({
      problem: "invalid_api_key",
      detail: "batch submitted with inconsistent api_key values"
    })
    expect(parseShape({ batch: "nope" })).toMatchObject({ problem: "invalid_payload" })
    expect(parseShape("text")).toMatchObject({ problem: "invalid_payload" })
  })

  it("knows a project API key from a personal one or junk", () => {
    expect(plausibleToken("phc_abc")).toBe(true)
    expect(plausibleToken("phx_abc")).toBe(false)
    expect(plausibleToken("")).toBe(false)
    expect(plausibleToken("has space")).toBe(false)
    expect(plausibleToken("x".repeat(300))).toBe(false)
  })
})
