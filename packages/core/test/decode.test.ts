import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import LZString from "lz-string"
import { gzipSync } from "node:zlib"
import type { CaptureInput, DecodeResult } from "../src/ingest/decode.js"
import { decodeCapturePayload } from "../src/ingest/decode.js"

const MB = 1024 * 1024
const utf8 = (text: string) => new TextEncoder().encode(text)
const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64")
const gzip = (text: string) => new Uint8Array(gzipSync(text))

const input = (overrides: Partial<Omit<CaptureInput, "query">> & { readonly query?: string } = {}): CaptureInput => ({
  method: overrides.method ?? "POST",
  query: new URLSearchParams(overrides.query ?? ""),
  contentType: overrides.contentType,
  contentEncoding: overrides.contentEncoding,
  body: overrides.body ?? new Uint8Array(),
  maxDecodedBytes: overrides.maxDecodedBytes ?? 10 * MB
})

const decoded = (result: DecodeResult) => {
  expect(result._tag).toBe("Decoded")
  return result._tag === "Decoded" ? result.value : undefined
}

const event = {
  event: "$pageview",
  distinct_id: "u1",
  properties: { $current_url: "https://x.example/?a=b+c", n: 1.5, ok: true }
}
const batch = [event, { event: "clické 🎉", properties: { nested: [1, [2, { x: null }]] } }]
const json = JSON.stringify(batch)

// The way URLSearchParams serialises a form, except that `+` is left unescaped as careless clients do.
const sloppyForm = (fields: Record<string, string>) =>
  utf8(
    Object.entries(fields)
      .map(([k, v]) => `${k}=${encodeURIComponent(v).replace(/%2B/g, "+")}`)
      .join("&")
  )
const form = (fields: Record<string, string>) => utf8(new URLSearchParams(fields).toString())
const FORM = "application/x-www-form-urlencoded; charset=UTF-8"

describe("decodeCapturePayload", () => {
  it("decodes plain JSON objects and arrays, with any JSON-ish content type", () => {
    expect(
      decoded(decodeCapturePayload(input({ contentType: "application/json", body: utf8(JSON.stringify(event)) })))
    ).toEqual(event)
    expect(decoded(decodeCapturePayload(input({ contentType: "application/json", body: utf8(json) })))).toEqual(batch)
    expect(decoded(decodeCapturePayload(input({ contentType: "text/plain", body: utf8(json) })))).toEqual(batch)
    expect(decoded(decodeCapturePayload(input({ contentType: undefined, body: utf8("\uFEFF" + json) })))).toEqual(batch)
    expect(decoded(decodeCapturePayload(input({ body: utf8("[1]") })))).toEqual([1])
  })

  it("inflates gzip from posthog-node, current posthog-js (no hint) and old posthog-js (?compression=gzip-js)", () => {
    const body = gzip(json)
    expect(
      decoded(decodeCapturePayload(input({ contentType: "application/json", contentEncoding: "gzip", body })))
    ).toEqual(batch)
    expect(decoded(decodeCapturePayload(input({ contentType: "text/plain", body })))).toEqual(batch)
    expect(
      decoded(decodeCapturePayload(input({ contentType: "text/plain", query: "compression=gzip-js&ver=1.2.3", body })))
    ).toEqual(batch)
  })

  it("treats a gzip hint on data that is not gzip as plain data", () => {
    expect(decoded(decodeCapturePayload(input({ contentEncoding: "gzip", body: utf8(json) })))).toEqual(batch)
    expect(decoded(decodeCapturePayload(input({ query: "compression=gzip-js", body: utf8(b64(json)) })))).toEqual(batch)
  })

  it("decodes base64 bodies, but keeps short bare words that merely look like base64", () => {
    expect(decoded(decodeCapturePayload(input({ body: utf8(b64(json)) })))).toEqual(batch)
    expect(decoded(decodeCapturePayload(input({ body: utf8("WyJhIl0=") })))).toEqual(["a"])
    expect(decoded(decodeCapturePayload(input({ body: utf8("e30=") })))).toEqual({})
    expect(decoded(decodeCapturePayload(input({ body: utf8("W10") })))).toEqual([])
    expect(decoded(decodeCapturePayload(input({ body: utf8(Buffer.from(json).toString("base64url")) })))).toEqual(batch)
    expect(decoded(decodeCapturePayload(input({ body: utf8(b64(json).replace(/(.{76})/g, "$1\n")) })))).toEqual(batch)
    expect(decoded(decodeCapturePayload(input({ body: utf8("true") })))).toBe(true)
    expect(decoded(decodeCapturePayload(input({ body: utf8("1234") })))).toBe(1234)
    expect(decoded(decodeCapturePayload(input({ body: utf8('{"event":"x"}') })))).toEqual({ event: "x" })
    expect(decoded(decodeCapturePayload(input({ contentEncoding: "base64", body: utf8(b64("1234")) })))).toBe(1234)
  })

  it("decodes form bodies whose base64 data lost its + signs", () => {
    const data = b64(json)
    expect(data).toContain("+")
    const body = utf8(`data=${data}&ver=1.0&_=1700000000000`)
    expect(decoded(decodeCapturePayload(input({ contentType: FORM, body })))).toEqual(batch)
    expect(decoded(decodeCapturePayload(input({ contentType: FORM, body: form({ data }) })))).toEqual(batch)
    expect(decoded(decodeCapturePayload(input({ contentType: FORM, body: form({ data: json }) })))).toEqual(batch)
  })

  it("decodes form data that is base64 of gzip, and lz64 in a form or behind ?compression=lz64", () => {
    const data = b64(gzip(json))
    expect(
      decoded(decodeCapturePayload(input({ contentType: FORM, body: sloppyForm({ data, compression: "gzip-js" }) })))
    ).toEqual(batch)
    const lz = LZString.compressToBase64(json)
    expect(
      decoded(decodeCapturePayload(input({ contentType: FORM, body: sloppyForm({ data: lz, compression: "lz64" }) })))
    ).toEqual(batch)
    expect(
      decoded(decodeCapturePayload(input({ contentType: "text/plain", query: "compression=lz64", body: utf8(lz) })))
    ).toEqual(batch)
    expect(
      decoded(decodeCapturePayload(input({ query: `compression=lz-string&data=${encodeURIComponent(lz)}` })))
    ).toEqual(batch)
  })

  it("reads GET ?data= as base64 or URL-encoded JSON", () => {
    expect(decoded(decodeCapturePayload(input({ method: "GET", query: `data=${b64(json)}` })))).toEqual(batch)
    expect(
      decoded(decodeCapturePayload(input({ method: "GET", query: `data=${encodeURIComponent(b64(json))}` })))
    ).toEqual(batch)
    expect(
      decoded(decodeCapturePayload(input({ method: "GET", query: `data=${encodeURIComponent(json)}&ip=1` })))
    ).toEqual(batch)
  })

  it("decodes base64 text found inside gzip", () => {
    expect(decoded(decodeCapturePayload(input({ body: gzip(b64(json)) })))).toEqual(batch)
    expect(decoded(decodeCapturePayload(input({ body: gzip(b64(gzip(json))) })))).toEqual(batch)
  })

  it("takes sentAtMs from _ or sent_at only when it denotes a plausible year", () => {
    const sentAt = (query: string) => {
      const result = decodeCapturePayload(input({ query, body: utf8(json) }))
      return result._tag === "Decoded" ? result.sentAtMs : "not decoded"
    }
    expect(sentAt("_=1700000000000")).toBe(1700000000000)
    expect(sentAt("sent_at=1700000000000")).toBe(1700000000000)
    expect(sentAt("_=garbage&sent_at=1700000000001")).toBe(1700000000001)
    expect(sentAt("_=1600000000000")).toBeUndefined()
    expect(sentAt("_=1700000000")).toBeUndefined()
    expect(sentAt("_=99999999999999999")).toBeUndefined()
    expect(sentAt("_=17e11")).toBeUndefined()
    expect(sentAt("_=-1700000000000")).toBeUndefined()
    expect(sentAt("_=abc")).toBeUndefined()
    expect(sentAt("")).toBeUndefined()
  })

  it("refuses empty bodies, forms without data, broken gzip, invalid UTF-8 and malformed JSON", () => {
    expect(decodeCapturePayload(input())).toEqual({ _tag: "Invalid", detail: "empty request body" })
    expect(decodeCapturePayload(input({ query: "data=" }))._tag).toBe("Invalid")
    expect(
      decodeCapturePayload(input({ contentType: FORM, body: form({ ver: "1", compression: "gzip-js" }) }))._tag
    ).toBe("Invalid")
    const compressed = gzip(json)
    const truncated = decodeCapturePayload(
      input({ contentEncoding: "gzip", body: compressed.subarray(0, compressed.length / 2) })
    )
    expect(truncated._tag).toBe("Invalid")
    expect(decodeCapturePayload(input({ body: utf8(b64(compressed.subarray(0, 20))) }))._tag).toBe("Invalid")
    const badUtf8 = Uint8Array.from([...utf8('{"a":"'), 0xff, 0xfe, ...utf8('"}')])
    expect(decodeCapturePayload(input({ body: badUtf8 }))).toEqual({ _tag: "Invalid", detail: "invalid UTF-8" })
    expect(decodeCapturePayload(input({ body: new Uint8Array(gzipSync(badUtf8)) }))).toEqual({
      _tag: "Invalid",
      detail: "invalid UTF-8"
    })
    const malformed = decodeCapturePayload(input({ body: utf8('{"event": ') }))
    expect(malformed._tag === "Invalid" && malformed.detail.startsWith("failed to parse request")).toBe(true)
    const nested = decodeCapturePayload(input({ body: utf8("[".repeat(1_000_000)) }))
    expect(nested._tag).toBe("Invalid")
  })

  it("stops a gzip bomb at the limit without inflating it", () => {
    // 50 concatenated gzip members of 1 MB of zeros each: 50 MB inflated from about 50 KB.
    const member = gzipSync(Buffer.alloc(MB))
    const bomb = new Uint8Array(Buffer.concat(Array.from({ length: 50 }, () => member)))
    expect(bomb.length).toBeLessThan(100_000)
    const external = process.memoryUsage().arrayBuffers
    const start = performance.now()
    const result = decodeCapturePayload(input({ contentEncoding: "gzip", body: bomb, maxDecodedBytes: MB }))
    expect(result._tag).toBe("TooLarge")
    expect(performance.now() - start).toBeLessThan(1000)
    expect(process.memoryUsage().arrayBuffers - external).toBeLessThan(10 * MB)
    // The same limit applies to base64 and lz64 output and to the parsed text itself.
    expect(decodeCapturePayload(input({ body: utf8(b64(json)), maxDecodedBytes: 100 }))._tag).toBe("TooLarge")
    expect(
      decodeCapturePayload(
        input({ query: "compression=lz64", body: utf8(LZString.compressToBase64(json)), maxDecodedBytes: 100 })
      )._tag
    ).toBe("TooLarge")
    expect(decodeCapturePayload(input({ body: utf8(json), maxDecodedBytes: 100 }))._tag).toBe("TooLarge")
    expect(decodeCapturePayload(input({ body: utf8(b64(bomb)), maxDecodedBytes: MB }))._tag).toBe("TooLarge")
  })

  it("round-trips any JSON object or array through every encoding", () => {
    const container = fc
      .jsonValue({ maxDepth: 4, stringUnit: "grapheme" })
      .filter((v) => typeof v === "object" && v !== null)
    const encodings: ReadonlyArray<
      [string, (text: string) => Partial<Omit<CaptureInput, "query">> & { query?: string }]
    > = [
      ["plain", (text) => ({ contentType: "application/json", body: utf8(text) })],
      ["gzip with hint", (text) => ({ contentType: "application/json", contentEncoding: "gzip", body: gzip(text) })],
      ["gzip without hint", (text) => ({ contentType: "text/plain", body: gzip(text) })],
      ["gzip-js query", (text) => ({ query: "compression=gzip-js&_=1700000000000", body: gzip(text) })],
      ["base64", (text) => ({ body: utf8(b64(text)) })],
      ["form base64", (text) => ({ contentType: FORM, body: sloppyForm({ data: b64(text) }) })],
      ["form json", (text) => ({ contentType: FORM, body: form({ data: text }) })],
      [
        "form lz64",
        (text) => ({
          contentType: FORM,
          body: sloppyForm({ data: LZString.compressToBase64(text), compression: "lz64" })
        })
      ],
      ["query lz64", (text) => ({ query: "compression=lz64", body: utf8(LZString.compressToBase64(text)) })],
      [
        "gzip+base64",
        (text) => ({ contentType: FORM, body: sloppyForm({ data: b64(gzip(text)), compression: "gzip-js" }) })
      ],
      ["base64 in gzip", (text) => ({ body: gzip(b64(text)) })],
      ["GET data", (text) => ({ method: "GET", query: new URLSearchParams({ data: b64(text) }).toString() })]
    ]
    fc.assert(
      fc.property(container, fc.constantFrom(...encodings), (value, [, encode]) => {
        const text = JSON.stringify(value)
        // JSON.parse gives the canonical form: -0 becomes 0 and `__proto__` stays an own key.
        expect(decoded(decodeCapturePayload(input(encode(text))))).toEqual(JSON.parse(text))
      }),
      { numRuns: 500 }
    )
  })

  it("never throws on arbitrary bytes, content types, encodings and hints", () => {
    const maybe = <A>(arb: fc.Arbitrary<A>) => fc.option(arb, { nil: undefined })
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 4096 }),
      fc.uint8Array({ maxLength: 512 }).map((b) => Uint8Array.from([0x1f, 0x8b, 0x08, ...b])),
      fc.string().map(utf8),
      fc.string().map((s) => utf8(b64(s))),
      fc.uint8Array({ maxLength: 512 }).map((b) => utf8(`data=${b64(b)}&compression=gzip-js`))
    )
    const hint = fc.constantFrom("gzip", "gzip-js", "lz64", "lz-string", "base64", "b64", "br", "", "GZIP, identity")
    fc.assert(
      fc.property(
        bytes,
        maybe(fc.constantFrom("application/json", "text/plain", FORM, "application/x-www-form-urlencoded", "", ";;")),
        maybe(hint),
        maybe(hint),
        maybe(
          fc.oneof(
            fc.string(),
            fc.uint8Array({ maxLength: 64 }).map((b) => b64(b))
          )
        ),
        fc.integer({ min: 0, max: 10_000 }),
        (body, contentType, contentEncoding, compression, data, maxDecodedBytes) => {
          const query = new URLSearchParams()
          if (compression !== undefined) query.set("compression", compression)
          if (data !== undefined) query.set("data", data)
          const result = decodeCapturePayload({
            method: "POST",
            query,
            contentType,
            contentEncoding,
            body,
            maxDecodedBytes
          })
          expect(["Decoded", "Invalid", "TooLarge"]).toContain(result._tag)
        }
      ),
      { numRuns: 2000 }
    )
  })
})
