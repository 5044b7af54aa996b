import { gunzipSync, gzipSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import LZString from "lz-string"
import { type Zed } from "../src/index.js"
import { EventStore, type StoredEvent } from "../src/storage.js"
import { memoryZed, PROJECT_KEY } from "./support.js"

// Property tests of the capture endpoints through the Fetch API handler: malformed input of every
// kind is refused with a 4xx error body and stores nothing, the server keeps serving afterwards,
// and valid events in every encoding SDKs use are stored exactly as sent, once.

const PATHS = ["/i/v0/e", "/e", "/capture", "/track", "/engage", "/batch"].flatMap((p) => [p, `${p}/`])
const RUNS = 150

// ---------------------------------------------------------------------------------------------
// Requests

interface Wire {
  readonly method: "GET" | "POST" | "OPTIONS"
  readonly query: Record<string, string>
  readonly headers: Record<string, string>
  readonly body?: Uint8Array | undefined
}

const utf8 = (text: string) => new Uint8Array(Buffer.from(text, "utf8"))
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64")
const json = (value: unknown) => utf8(JSON.stringify(value))

const send = async (zed: Zed, path: string, wire: Wire) => {
  const query = new URLSearchParams(wire.query).toString()
  const response = await zed.handler(
    new Request(`http://zed.test${path}${query === "" ? "" : `?${query}`}`, {
      method: wire.method,
      headers: wire.headers,
      // A copy, typed as backed by a plain ArrayBuffer, as BodyInit wants.
      body: wire.body === undefined ? null : new Uint8Array(wire.body)
    })
  )
  const text = await response.text()
  return { status: response.status, headers: response.headers, text }
}

/** Ways to carry arbitrary bytes to a capture endpoint; the bytes reach the decoder unchanged. */
const carriers: Record<string, (payload: Uint8Array) => Wire> = {
  json: (body) => ({ method: "POST", query: {}, headers: { "content-type": "application/json" }, body }),
  bare: (body) => ({ method: "POST", query: {}, headers: {}, body }),
  gzipHeader: (body) => ({
    method: "POST",
    query: {},
    headers: { "content-type": "application/json", "content-encoding": "gzip" },
    body
  }),
  gzipJs: (body) => ({
    method: "POST",
    query: { compression: "gzip-js" },
    headers: { "content-type": "text/plain" },
    body
  }),
  base64: (p) => ({ method: "POST", query: {}, headers: { "content-type": "text/plain" }, body: utf8(b64(p)) }),
  form: (p) => ({
    method: "POST",
    query: {},
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: utf8(`data=${encodeURIComponent(b64(p))}`)
  }),
  get: (p) => ({ method: "GET", query: { data: b64(p) }, headers: {} })
}

/** Carriers plus compressing the payload on the way, as posthog-js and the server SDKs do. */
const encodings: Record<string, (payload: Uint8Array) => Wire> = {
  ...carriers,
  gzip: (p) => carriers["gzipHeader"]!(gzipSync(p)),
  gzipText: (p) => carriers["gzipJs"]!(gzipSync(p)),
  gzipBase64: (p) => carriers["base64"]!(gzipSync(p))
}

const carrier = fc.constantFrom(...Object.values(carriers))
const encoding = fc.constantFrom(...Object.values(encodings))
const path = fc.constantFrom(...PATHS)

// ---------------------------------------------------------------------------------------------
// Events

const EXCLUDED_KEYS = new Set([
  "token",
  "distinct_id",
  "$browser",
  "$app_build",
  "$app_name",
  "$app_namespace",
  "$app_version",
  "$browser_version",
  "$device_type",
  "$current_url",
  "$pathname",
  "$os",
  "$os_version",
  "$referring_domain",
  "$referrer",
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "utm_content",
  "utm_name",
  "utm_term",
  "gclid",
  "gad_source",
  "gbraid",
  "wbraid",
  "fbclid",
  "msclkid"
])

// `$`-keys steer normalization ($set, $process_person_profile, $groups...), the initial-property keys
// are copied into $set/$set_once, `token` is read as the project key and `distinct_id` stands in for a
// missing one: all of them would change what is stored, so the generated properties leave them out. `__proto__` is a known bug (below).
const plainKey = (key: string) => !key.startsWith("$") && !EXCLUDED_KEYS.has(key) && key !== "__proto__"

const hasProtoKey = (value: unknown): boolean =>
  typeof value === "object" &&
  value !== null &&
  (Object.hasOwn(value, "__proto__") || Object.values(value).some(hasProtoKey))

const properties = fc
  .dictionary(fc.string({ maxLength: 12 }).filter(plainKey), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 })
  .filter((p) => !hasProtoKey(p))

const eventName = fc.oneof(
  { weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !s.startsWith("$")) },
  // Non-string names are stored as their JSON text, as PostHog does.
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.integer(),
      fc.boolean(),
      fc.array(fc.integer(), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }).filter((d) => !hasProtoKey(d))
    )
  }
)

const distinctId = fc.oneof(
  { weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 60 }) },
  { weight: 1, arbitrary: fc.integer() }
)

const timestamp = fc
  .date({ min: new Date("2001-01-01T00:00:00Z"), max: new Date("2024-12-31T00:00:00Z"), noInvalidDate: true })
  .map((d) => d.toISOString())

interface SentEvent {
  readonly event: unknown
  readonly distinct_id: unknown
  readonly properties?: Record<string, unknown>
  readonly uuid?: string
  readonly timestamp?: string
}

const validEvent: fc.Arbitrary<SentEvent> = fc.record(
  {
    event: eventName,
    distinct_id: distinctId,
    properties,
    uuid: fc.uuid().chain((u) => fc.constantFrom(u, u.toUpperCase())),
    timestamp
  },
  { requiredKeys: ["event", "distinct_id"] }
)

type Shape = "single" | "array" | "arrayQuery" | "batch" | "batchToken"

/** Puts events into one of the body shapes SDKs send, carrying the project key `token`. */
const shaped = (shape: Shape, events: ReadonlyArray<unknown>, token: string = PROJECT_KEY) => {
  const withToken = (e: unknown) => (typeof e === "object" && e !== null && !Array.isArray(e) ? { ...e, token } : e)
  switch (shape) {
    case "single":
      return { body: events.length === 1 ? withToken(events[0]) : { api_key: token, batch: events }, query: {} }
    case "array":
      return { body: events.map(withToken), query: {} }
    case "arrayQuery":
      return { body: events, query: { token } }
    case "batch":
      return { body: { api_key: token, batch: events }, query: {} }
    case "batchToken":
      return { body: { token, batch: events }, query: {} }
  }
}

const shape = fc.constantFrom<Shape>("single", "array", "arrayQuery", "batch", "batchToken")

const withQuery = (wire: Wire, query: Record<string, string>): Wire => ({ ...wire, query: { ...wire.query, ...query } })

// ---------------------------------------------------------------------------------------------
// Reading the store

const storedEvents = (zed: Zed): Promise<ReadonlyArray<StoredEvent>> =>
  zed.run(Effect.flatMap(EventStore, (store) => store.list(1, { limit: 1_000_000, offset: 0 })))

const stringsIn = (value: unknown): Array<string> =>
  typeof value === "string"
    ? [value]
    : typeof value === "object" && value !== null
      ? Object.entries(value).flatMap(([k, v]) => [k, ...stringsIn(v)])
      : []

/** JSON text with keys sorted, to compare events whatever their key order. */
const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(",")}]`
    : typeof value === "object" && value !== null
      ? `{${Object.keys(value)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
          .join(",")}}`
      : JSON.stringify(value)

// What sanitize.ts promises: well-formed strings without NUL.
const clean = (s: string) => s.toWellFormed().replaceAll("\u0000", "\uFFFD")
const cleanDeep = (value: unknown): unknown =>
  typeof value === "string"
    ? clean(value)
    : Array.isArray(value)
      ? value.map(cleanDeep)
      : typeof value === "object" && value !== null
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [clean(k), cleanDeep(v)]))
        : value

const asText = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value))

// ---------------------------------------------------------------------------------------------
// Refusals

let zed: Zed
beforeAll(async () => {
  zed = await memoryZed()
})
afterAll(() => zed.close())

let serial = 0

/** A valid event on the same path still gets 200 and is stored: the refusal left nothing broken. */
const expectServing = async (target: string) => {
  const before = (await storedEvents(zed)).length
  const uuid = `00000000-0000-4000-8000-${(++serial).toString(16).padStart(12, "0")}`
  const res = await send(
    zed,
    target,
    carriers["json"]!(json({ api_key: PROJECT_KEY, event: "alive", distinct_id: "fuzz", uuid }))
  )
  expect(res.status).toBe(200)
  const after = await storedEvents(zed)
  expect(after.length).toBe(before + 1)
  expect(after.some((e) => e.uuid === uuid)).toBe(true)
}

/** The request is refused with a 4xx error body, CORS headers and nothing stored. */
const expectRefused = async (target: string, wire: Wire, status?: number, detail?: string | RegExp) => {
  const before = (await storedEvents(zed)).length
  const res = await send(zed, target, wire)
  expect(res.status, res.text).toBeGreaterThanOrEqual(400)
  expect(res.status, res.text).toBeLessThan(500)
  if (status !== undefined) expect(res.status, res.text).toBe(status)
  const body = JSON.parse(res.text)
  expect(Object.keys(body).sort()).toEqual(["attr", "code", "detail", "type"])
  expect(body.attr).toBeNull()
  expect(typeof body.detail).toBe("string")
  if (detail !== undefined) expect(body.detail).toMatch(detail)
  expect(res.headers.get("access-control-allow-origin")).toBe("*")
  expect((await storedEvents(zed)).length).toBe(before)
  await expectServing(target)
}

const property = <T>(arb: fc.Arbitrary<T>, check: (value: T) => Promise<void>, numRuns = RUNS) =>
  fc.assert(fc.asyncProperty(arb, check), { numRuns })

const validBatch = fc
  .array(validEvent, { minLength: 1, maxLength: 4 })
  .map((events) => json({ api_key: PROJECT_KEY, batch: events }))

describe("capture refuses malformed gzip", () => {
  it("truncated gzip: 400", () =>
    property(
      fc.record({ path, carrier, payload: validBatch, cut: fc.nat() }),
      async ({ carrier, cut, path, payload }) => {
        const gz = gzipSync(payload)
        const truncated = gz.subarray(0, 3 + (cut % (gz.length - 3)))
        await expectRefused(path, carrier(truncated), 400)
      }
    ))

  it("corrupted gzip bytes: 400", () =>
    property(
      fc.record({
        path,
        carrier,
        payload: validBatch,
        flips: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 })
      }),
      async ({ carrier, flips, path, payload }) => {
        const gz = Buffer.from(gzipSync(payload))
        // Past the magic bytes, so the body still reads as gzip.
        for (const [at, mask] of flips) gz[3 + (at % (gz.length - 3))]! ^= mask
        let inflates = true
        try {
          gunzipSync(gz)
        } catch {
          inflates = false
        }
        // A flip in a padding bit or the header's mtime leaves a valid stream; only broken ones are the point.
        fc.pre(!inflates)
        await expectRefused(path, carrier(gz), 400)
      }
    ))
})

describe("capture refuses invalid events, all or nothing", () => {
  const nonObject = fc.oneof(
    fc.constant(null),
    fc.integer(),
    fc.string(),
    fc.boolean(),
    fc.array(fc.integer(), { maxLength: 3 })
  )
  const notUuid = fc.oneof(
    fc
      .string({ minLength: 1, maxLength: 40 })
      .filter((s) => !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s)),
    fc.uuid().map((u) => `${u}\n`),
    fc.uuid().map((u) => `{${u}}`),
    fc.uuid().map((u) => u.replaceAll("-", "")),
    fc.integer(),
    fc.boolean(),
    fc.constant({}),
    fc.constant([])
  )
  const nested = (depth: number, leaf: unknown, object: boolean): unknown => {
    let value = leaf
    for (let i = 0; i < depth; i++) value = object ? { a: value } : [value]
    return value
  }

  // Each builds an invalid event from a valid one; `engage` because /engage/ names nameless events $identify.
  type Breaker = (event: SentEvent, engage: boolean) => unknown
  const breaker: fc.Arbitrary<Breaker> = fc.oneof(
    nonObject.map(
      (value): Breaker =>
        () =>
          value
    ),
    fc.constantFrom(undefined, null, "").map(
      (name): Breaker =>
        (e, engage) => ({ ...e, event: engage ? "" : name })
    ),
    fc.constantFrom(undefined, null, "").map(
      (id): Breaker =>
        (e) => ({ ...e, distinct_id: id })
    ),
    fc
      .oneof(
        fc.string(),
        fc.array(fc.jsonValue(), { maxLength: 3 }),
        fc.integer(),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.boolean()
      )
      .map(
        (p): Breaker =>
          (e) => ({ ...e, properties: p })
      ),
    notUuid.map(
      (uuid): Breaker =>
        (e) => ({ ...e, uuid })
    ),
    // Properties nest at most 64 levels (sanitize.ts MAX_DEPTH); far deeper is the next property.
    fc.tuple(fc.integer({ min: 65, max: 1_000 }), fc.boolean()).map(
      ([depth, object]): Breaker =>
        (e) => ({
          ...e,
          properties: { deep: nested(depth - 1, 1, object) }
        })
    )
  )

  it("one invalid event among valid ones: 400, none stored", () =>
    property(
      fc.record({
        path,
        encoding,
        shape,
        events: fc.array(validEvent, { maxLength: 4 }),
        breaker,
        at: fc.nat(),
        victim: validEvent
      }),
      async ({ at, breaker, encoding, events, path, shape, victim }) => {
        const broken = breaker(victim, path.startsWith("/engage"))
        const all: Array<unknown> = [...events]
        all.splice(at % (events.length + 1), 0, broken)
        // Shapes whose token rides on the events need an event object to carry it.
        const isObject = typeof broken === "object" && broken !== null && !Array.isArray(broken)
        const { body, query } = shaped(isObject || (events.length > 0 && shape !== "single") ? shape : "batch", all)
        await expectRefused(path, withQuery(encoding(json(body)), query), 400)
      }
    ))

  it("properties nested up to 100 000 deep: 400, no stack overflow", () =>
    property(
      fc.record({ path, encoding, depth: fc.integer({ min: 65, max: 100_000 }), object: fc.boolean() }),
      ({ depth, encoding, object, path }) => {
        // Built as text: JSON.stringify itself would overflow the stack on such values.
        const [open, close] = object ? ['{"a":', "}"] : ["[", "]"]
        const text = `{"api_key":"${PROJECT_KEY}","event":"deep","distinct_id":"d","properties":{"deep":${open.repeat(depth - 1)}1${close.repeat(depth - 1)}}}`
        return expectRefused(path, encoding(utf8(text)), 400, "properties are nested too deeply")
      },
      40
    ))

  it("properties nest up to 64 levels", () =>
    property(
      fc.record({ levels: fc.integer({ min: 2, max: 80 }), object: fc.boolean() }),
      async ({ levels, object }) => {
        // Levels count `properties` itself and the innermost object.
        const event = {
          api_key: PROJECT_KEY,
          event: "nested",
          distinct_id: "d",
          properties: { deep: nested(levels - 2, { leaf: 1 }, object) }
        }
        if (levels > 64)
          return expectRefused("/batch/", carriers["json"]!(json(event)), 400, "properties are nested too deeply")
        const res = await send(zed, "/batch/", carriers["json"]!(json(event)))
        expect(res.status).toBe(200)
      },
      80
    ))
})

describe("capture refuses malformed bodies", () => {
  it("batch that is not an array: 400", () =>
    property(
      fc.record({
        path,
        encoding,
        batch: fc.jsonValue().filter((v) => !Array.isArray(v)),
        key: fc.constantFrom("api_key", "token")
      }),
      ({ batch, encoding, key, path }) =>
        expectRefused(path, encoding(json({ [key]: PROJECT_KEY, batch })), 400, "batch must be an array of events")
    ))

  it("no event at all: 400", () =>
    property(
      fc.record({
        path,
        encoding,
        body: fc.constantFrom([], { api_key: PROJECT_KEY, batch: [] }, { token: PROJECT_KEY, batch: [] })
      }),
      ({ body, encoding, path }) =>
        expectRefused(path, withQuery(encoding(json(body)), { token: PROJECT_KEY }), 400, "request holds no event")
    ))

  it("a body that is no event, array or batch: 400", () =>
    property(
      fc.record({ path, encoding, body: fc.oneof(fc.string(), fc.double(), fc.boolean(), fc.constant(null)) }),
      ({ body, encoding, path }) => expectRefused(path, encoding(json(body)), 400)
    ))

  // Invalid UTF-8 is refused (decode.ts decodes with fatal: true), not turned into U+FFFD.
  const badUtf8 = fc.constantFrom(
    [0xff],
    [0xfe],
    [0xc3, 0x28],
    [0xc0, 0xaf],
    [0xed, 0xa0, 0x80],
    [0xe2, 0x82],
    [0xf8, 0x88, 0x80, 0x80, 0x80],
    [0x80]
  )

  it("invalid UTF-8, raw or inside gzip, base64 or a form: 400", () =>
    property(
      fc.record({
        path,
        encoding,
        event: validEvent,
        bad: badUtf8,
        field: fc.constantFrom("event", "distinct_id", "key", "value"),
        at: fc.nat()
      }),
      async ({ at, bad, encoding, event, field, path }) => {
        const marker = "\u0001MARK\u0001"
        const body =
          field === "event"
            ? { ...event, event: marker }
            : field === "distinct_id"
              ? { ...event, distinct_id: marker }
              : { ...event, properties: field === "key" ? { [marker]: 1 } : { k: marker } }
        const text = JSON.stringify({ api_key: PROJECT_KEY, batch: [body] })
        const [before, after] = text.split(JSON.stringify(marker).slice(1, -1)) as [string, string]
        // Any prefix of these sequences is invalid too.
        const bytes = new Uint8Array([...utf8(before), ...bad.slice(0, 1 + (at % bad.length)), ...utf8(after)])
        await expectRefused(path, encoding(bytes), 400)
      }
    ))

  it("invalid UTF-8 percent-encoded in a form's data field: 400", () =>
    property(fc.record({ path, bad: badUtf8 }), ({ bad, path }) => {
      const text = JSON.stringify({ api_key: PROJECT_KEY, event: "X", distinct_id: "d" })
      const escaped = bad.map((b) => `%${b.toString(16).padStart(2, "0").toUpperCase()}`).join("")
      const body = `data=${encodeURIComponent(text).replace("X", escaped)}`
      return expectRefused(
        path,
        {
          method: "POST",
          query: {},
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: utf8(body)
        },
        400,
        "invalid UTF-8"
      )
    }))

  it("random bytes under any content type and compression hint: 4xx", () =>
    property(
      fc.record({
        path,
        method: fc.constantFrom("GET" as const, "POST" as const),
        bytes: fc.oneof(
          fc.uint8Array({ maxLength: 600 }),
          fc.uint8Array({ maxLength: 300 }).map((b) => new Uint8Array([0x1f, 0x8b, 0x08, ...b])),
          fc.string({ unit: "binary-ascii", maxLength: 300 }).map(utf8),
          fc.base64String({ maxLength: 300 }).map(utf8),
          fc.jsonValue().map(json)
        ),
        contentType: fc.constantFrom(
          undefined,
          "application/json",
          "text/plain",
          "application/x-www-form-urlencoded",
          "application/octet-stream",
          "application/json; charset=utf-8"
        ),
        contentEncoding: fc.constantFrom(undefined, "gzip", "x-gzip", "deflate", "br", "identity", "gzip, deflate"),
        compression: fc.constantFrom(undefined, "gzip-js", "gzip", "lz64", "lz-string", "base64", "b64", "bogus"),
        underscore: fc.option(fc.oneof(fc.string(), fc.nat().map(String)), { nil: undefined }),
        asForm: fc.boolean()
      }),
      ({ asForm, bytes, compression, contentEncoding, contentType, method, path, underscore }) => {
        const headers: Record<string, string> = {}
        if (contentType !== undefined) headers["content-type"] = contentType
        if (contentEncoding !== undefined) headers["content-encoding"] = contentEncoding
        const query: Record<string, string> = {}
        if (compression !== undefined) query["compression"] = compression
        if (underscore !== undefined) query["_"] = underscore
        const raw = asForm ? utf8(`data=${Buffer.from(bytes).toString("latin1")}`) : bytes
        const wire: Wire =
          method === "GET"
            ? { method, headers, query: { ...query, data: Buffer.from(bytes).toString("latin1") } }
            : { method, headers, query, body: raw }
        return expectRefused(path, wire)
      },
      300
    ))

  it("OPTIONS answers the preflight whatever the body, storing nothing", () =>
    property(
      fc.record({ path, bytes: fc.uint8Array({ maxLength: 200 }), origin: fc.option(fc.webUrl(), { nil: undefined }) }),
      async ({ bytes, origin, path }) => {
        const before = (await storedEvents(zed)).length
        const res = await send(zed, path, {
          method: "OPTIONS",
          query: {},
          headers: origin === undefined ? {} : { origin },
          body: bytes
        })
        expect(res.status).toBe(200)
        expect(JSON.parse(res.text)).toEqual({ status: "Ok" })
        expect(res.headers.get("access-control-allow-origin")).toBe(origin ?? "*")
        expect((await storedEvents(zed)).length).toBe(before)
      }
    ))
})

describe("capture refuses bad project keys: 401", () => {
  const unknownKey = fc
    .stringMatching(/^[A-Za-z0-9_]{20,40}$/)
    .map((s) => `phc_${s}`)
    .filter((k) => k !== PROJECT_KEY)
  const personalKey = fc.stringMatching(/^[A-Za-z0-9]{20,40}$/).map((s) => `phx_${s}`)
  const events = fc.array(validEvent, { minLength: 1, maxLength: 4 })

  it("missing token", () =>
    property(fc.record({ path, encoding, events, single: fc.boolean() }), ({ encoding, events, path, single }) =>
      expectRefused(path, encoding(json(single ? events[0] : events)), 401, "event submitted without an api_key")
    ))

  it("personal key, unknown project key, or a token no project key looks like", () =>
    property(
      fc.record({
        path,
        encoding,
        shape,
        events,
        token: fc.oneof(
          personalKey,
          unknownKey,
          fc.constantFrom(" ", "phc_with space", "phc_\u0000", "x".repeat(300), "phc_é")
        )
      }),
      ({ encoding, events, path, shape, token }) => {
        const { body, query } = shaped(shape, events, token)
        return expectRefused(path, withQuery(encoding(json(body)), query), 401)
      }
    ))

  it("events carrying different tokens", () =>
    property(
      fc.record({
        path,
        encoding,
        events: fc.array(validEvent, { minLength: 2, maxLength: 5 }),
        other: fc.oneof(unknownKey, personalKey),
        at: fc.nat(),
        batch: fc.boolean()
      }),
      ({ at, batch, encoding, events, other, path }) => {
        const tokens = events.map((e, i) => ({ ...e, token: i === at % events.length ? other : PROJECT_KEY }))
        return expectRefused(path, encoding(json(batch ? { batch: tokens } : tokens)), 401, "inconsistent api_key")
      }
    ))
})

describe("capture size limits", () => {
  const MB = 1024 * 1024
  const event = (size: number) => ({
    api_key: PROJECT_KEY,
    event: "big",
    distinct_id: "d",
    properties: { s: "a".repeat(size) }
  })
  // Whitespace after the JSON pads the body to an exact size without changing the event.
  const padded = (value: unknown, size: number) => {
    const text = JSON.stringify(value)
    return utf8(text + " ".repeat(size - Buffer.byteLength(text)))
  }

  it("a 3 MB body on /e/ is too large; on /batch/ the event itself is", async () => {
    await expectRefused("/e/", carriers["json"]!(json(event(3 * MB))), 413, "body is larger than 2097152 bytes")
    await expectRefused("/batch/", carriers["json"]!(json(event(3 * MB))), 413, "larger than 1048576 bytes")
  })

  it("body limits are inclusive: 2 MB on /e/, 20 MB on /batch/", async () => {
    const small = { api_key: PROJECT_KEY, event: "padded", distinct_id: "d" }
    expect((await send(zed, "/e/", carriers["json"]!(padded(small, 2 * MB)))).status).toBe(200)
    await expectRefused("/e/", carriers["json"]!(padded(small, 2 * MB + 1)), 413)
    expect((await send(zed, "/batch/", carriers["json"]!(padded(small, 20 * MB)))).status).toBe(200)
    await expectRefused("/batch/", carriers["json"]!(padded(small, 20 * MB + 1)), 413)
  })

  it("an event's properties may take 1 MB of JSON, not a byte more", async () => {
    // {"s":"…"} is 8 bytes around the string.
    expect((await send(zed, "/batch/", carriers["json"]!(json(event(MB - 8))))).status).toBe(200)
    await expectRefused("/batch/", carriers["json"]!(json(event(MB - 7))), 413, "big is larger than 1048576 bytes")
    // Several events just under the limit fill a /batch/ body past what /e/ would take.
    const many = {
      api_key: PROJECT_KEY,
      batch: Array.from({ length: 3 }, () => ({ ...event(MB - 100), api_key: undefined }))
    }
    const before = (await storedEvents(zed)).length
    expect((await send(zed, "/batch/", carriers["json"]!(json(many)))).status).toBe(200)
    expect((await storedEvents(zed)).length).toBe(before + 3)
  })

  it("a gzip bomb is stopped at the decoded limit", async () => {
    const bomb = gzipSync(json(event(21 * MB)))
    expect(bomb.length).toBeLessThan(2 * MB)
    await expectRefused("/e/", carriers["gzipHeader"]!(bomb), 413, "decoded payload exceeds 20971520 bytes")
    await expectRefused("/capture", carriers["base64"]!(bomb), 413)
  })
})

// ---------------------------------------------------------------------------------------------
// Acceptance

describe("capture stores valid events exactly as sent", () => {
  const expected = (e: SentEvent) => ({
    event: clean(asText(e.event)),
    distinct_id: clean(asText(e.distinct_id)),
    properties: cleanDeep(JSON.parse(JSON.stringify(e.properties ?? {})))
  })
  const actual = (e: StoredEvent) => ({ event: e.event, distinct_id: e.distinct_id, properties: e.properties })
  const sorted = <T>(items: ReadonlyArray<T>) => [...items].sort((a, b) => (canonical(a) < canonical(b) ? -1 : 1))

  const lz64 = (payload: Uint8Array): Wire => ({
    method: "POST",
    query: { compression: "lz64" },
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: utf8(`data=${encodeURIComponent(LZString.compressToBase64(Buffer.from(payload).toString("utf8")))}`)
  })

  it("in any encoding, on any path, once however often it is sent", () =>
    property(
      fc.record({
        path,
        encode: fc.constantFrom(
          encodings["json"]!,
          encodings["bare"]!,
          encodings["gzip"]!,
          encodings["gzipText"]!,
          encodings["base64"]!,
          encodings["form"]!,
          encodings["get"]!,
          encodings["gzipBase64"]!,
          lz64
        ),
        shape,
        events: fc.uniqueArray(validEvent, {
          minLength: 1,
          maxLength: 5,
          selector: (e) => e.uuid?.toLowerCase() ?? Symbol()
        })
      }),
      async ({ encode, events, path, shape }) => {
        // A fresh Zed per run, so the store holds exactly what this run sent.
        const own = await memoryZed()
        try {
          const { body, query } = shaped(shape, events)
          const wire = withQuery(encode(json(body)), query)
          const res = await send(own, path, wire)
          expect(res.status, res.text).toBe(200)
          expect(JSON.parse(res.text)).toEqual({ status: "Ok" })
          expect(res.headers.get("access-control-allow-origin")).toBe("*")
          const stored = await storedEvents(own)
          expect(sorted(stored.map(actual))).toEqual(sorted(events.map(expected)))
          for (const e of events) {
            if (e.uuid === undefined) continue
            const match = stored.find((s) => s.uuid === e.uuid!.toLowerCase())
            expect(match && actual(match)).toEqual(expected(e))
            if (e.timestamp !== undefined) expect(match!.timestamp.toISOString()).toBe(e.timestamp)
          }
          // Resent (an SDK retrying), events with a uuid are not stored again; those without get a new one.
          expect((await send(own, path, wire)).status).toBe(200)
          expect((await storedEvents(own)).length).toBe(
            events.length + events.filter((e) => e.uuid === undefined).length
          )
        } finally {
          await own.close()
        }
      }
    ))

  // Code units, NUL and lone surrogates included: JSON escapes them all, and PostgreSQL can store neither.
  const units = (maxLength: number, minLength = 0) =>
    fc
      .array(
        fc.oneof(fc.constantFrom(0, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xfffd), fc.integer({ min: 0, max: 0xffff })),
        { minLength, maxLength }
      )
      .map((codes) => String.fromCharCode(...codes))
  const nasty = fc.record({
    event: units(30, 1).filter((s) => !s.startsWith("$")),
    distinct_id: units(30, 1),
    properties: fc.dictionary(
      units(8).filter((k) => plainKey(clean(k)) && plainKey(k)),
      fc.oneof(units(20), fc.array(units(10), { maxLength: 3 }), fc.dictionary(units(5), units(5), { maxKeys: 2 })),
      { maxKeys: 5 }
    )
  })

  it("NUL and lone surrogates are stored as U+FFFD, not refused", () =>
    property(fc.record({ path, event: nasty, gzip: fc.boolean() }), async ({ event, gzip, path }) => {
      fc.pre(!hasProtoKey(event.properties))
      const own = await memoryZed()
      try {
        const res = await send(
          own,
          path,
          (gzip ? encodings["gzip"]! : encodings["json"]!)(json({ ...event, api_key: PROJECT_KEY }))
        )
        expect(res.status, res.text).toBe(200)
        const [stored] = await storedEvents(own)
        expect(stored && actual(stored)).toEqual(cleanDeep(event))
        for (const s of [stored!.event, stored!.distinct_id, ...stringsIn(stored!.properties)]) {
          expect(s.isWellFormed()).toBe(true)
          expect(s).not.toContain("\u0000")
        }
      } finally {
        await own.close()
      }
    }))
})

// ---------------------------------------------------------------------------------------------
// Bugs the properties above found once, kept as regressions.

describe("regressions found by fuzzing", () => {
  const deep = (n: number) => "[".repeat(n) + "1" + "]".repeat(n)
  const raw = (text: string) => carriers["json"]!(utf8(text))

  // Top-level $set/$set_once were copied outside the depth guard.
  it("top-level $set nested past 64 levels is a 400, not a 500", () =>
    expectRefused(
      "/e/",
      raw(`{"api_key":"${PROJECT_KEY}","event":"x","distinct_id":"d","$set":{"a":${deep(100)}}}`),
      400
    ))

  // Printing a deeply nested distinct_id overflowed the stack.
  it("a distinct_id nested 10 000 deep is refused or stringified, never a 500", async () => {
    const res = await send(zed, "/e/", raw(`{"api_key":"${PROJECT_KEY}","event":"x","distinct_id":${deep(10_000)}}`))
    expect(res.status).not.toBe(500)
  })

  // Top-level $unset was stored unsanitized (PostgreSQL refused it: 503 on every retry).
  it("$unset strings are sanitized like properties", async () => {
    const own = await memoryZed()
    try {
      const res = await send(
        own,
        "/e/",
        raw(`{"api_key":"${PROJECT_KEY}","event":"x","distinct_id":"d","$unset":["a\\u0000b","\\ud800"]}`)
      )
      expect(res.status).toBe(200)
      const [stored] = await storedEvents(own)
      for (const s of stringsIn(stored!.properties)) expect(s.isWellFormed() && !s.includes("\u0000")).toBe(true)
    } finally {
      await own.close()
    }
  })

  // Cutting names at 200 characters could leave half a surrogate pair.
  it("names cut at 200 characters stay well-formed", async () => {
    const own = await memoryZed()
    try {
      const long = "a".repeat(199) + "\u{1F600}"
      expect(
        (await send(own, "/e/", carriers["json"]!(json({ api_key: PROJECT_KEY, event: long, distinct_id: long }))))
          .status
      ).toBe(200)
      const [stored] = await storedEvents(own)
      expect(stored!.event.isWellFormed()).toBe(true)
      expect(stored!.distinct_id.isWellFormed()).toBe(true)
    } finally {
      await own.close()
    }
  })

  // Copying a property named __proto__ set the copy's prototype instead.
  it("a property named __proto__ is kept", async () => {
    const own = await memoryZed()
    try {
      const res = await send(
        own,
        "/e/",
        raw(`{"api_key":"${PROJECT_KEY}","event":"x","distinct_id":"d","properties":{"__proto__":{"a":1},"b":2}}`)
      )
      expect(res.status).toBe(200)
      const [stored] = await storedEvents(own)
      expect(Object.hasOwn(stored!.properties, "__proto__")).toBe(true)
    } finally {
      await own.close()
    }
  })
})
