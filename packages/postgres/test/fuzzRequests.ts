import { gzipSync } from "node:zlib"
import { type Zed } from "@zed/core"
import { type Route } from "@zed/core/adapter"
import { uuidv7 } from "@zed/core/storage"
import { Arbitrary, FastCheck as fc, Schema, SchemaAST } from "effect"
import { ADMIN_KEY, PROJECT_KEY, snapshotPayload } from "../../core/test/support.js"

// Malformed requests for every route, generated from the route table: path parameters, query
// parameters and bodies as a careless or hostile client sends them (NUL bytes, numbers past 32 and
// 64 bits, 1e20, negative offsets, dates JavaScript or PostgreSQL cannot hold, lone surrogates,
// invalid UTF-8, deep JSON, wrong types), alongside well-formed values that reach the handlers.
// fast-check is effect's own, so that bodies can be drawn from the routes' schemas.

export { fc }

/** One HTTP request, printable as fast-check's counterexample. */
export interface WireRequest {
  readonly method: string
  /** Path and query, percent-encoded as sent. */
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string | Uint8Array | undefined
  /** What a compressed or encoded body holds, for reading a counterexample. */
  readonly payload?: unknown
}

/** Values the fuzzed project has, by the name its path parameter is known under. */
export interface Known {
  readonly projectKey: string
  readonly adminKey: string
  /** Path parameter values that name something, by `<resource>/:param` (e.g. `insights/:id`). */
  readonly params: Readonly<Record<string, string>>
  /** A valid body by method and path (`POST /api/environments/:project_id/insights`), with a name never used before. */
  readonly bodies: Readonly<Record<string, (name: string) => unknown>>
}

// ---------------------------------------------------------------------------------------------
// Wild values

const NUMBERS = [
  "2147483647",
  "2147483648",
  "-2147483649",
  "4294967296",
  "9007199254740993",
  "9223372036854775807",
  "9223372036854775808",
  "99999999999999999999",
  "1e20",
  "1e308",
  "-1",
  "0",
  "-0",
  "1.5",
  "NaN",
  "Infinity",
  "0x10",
  " 7",
  "7 ",
  "+7",
  "１２"
]
const DATES = [
  "-271821-04-20",
  "-271821-04-20T00:00:00Z",
  "+275760-09-13T00:00:00Z",
  "275760-09-14",
  "0000-01-01",
  "-000001-01-01",
  "9999-12-31T23:59:59Z",
  "+010000-01-01T00:00:00Z",
  "2024-02-30",
  "2024-13-01",
  "1970-01-01T00:00:00+99:99",
  "-7d",
  "-99999999999d",
  "-1e20h",
  "mStart",
  "all"
]
const TEXTS = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\uFFFD",
  "\u{1F600}",
  "\u202E",
  "' OR 1=1 --",
  "%",
  "../../etc",
  "@current",
  "null",
  "true",
  "[]",
  "{}",
  "x".repeat(3000)
]
const JSON_TEXTS = [
  "{",
  "[".repeat(3000),
  `${'{"a":'.repeat(400)}1${"}".repeat(400)}`,
  '[{"key":"a","value":"\\u0000","type":"person"}]',
  '[{"key":"a","value":1e400,"operator":"gt","type":"event"}]',
  '{"type":"AND","values":[{"type":"OR","values":[]}]}',
  '{"kind":"EventsQuery","select":["*"]}',
  '[{"id":"$pageview","type":"events"}]'
]
/** ZedQL that parses but asks the database for what it cannot hold or do. */
const ZEDQL = [
  "SELECT toDateTime('0000-01-01')",
  "SELECT toDateTime('-271821-04-20')",
  "SELECT 9223372036854775808",
  "SELECT 1e400",
  "SELECT -9223372036854775808 - 1",
  "SELECT 2147483647 * 2147483647 * 2147483647",
  "SELECT 1 / 0",
  "SELECT intDiv(1, 0)",
  "SELECT 'a\\0b'",
  "SELECT toInt('99999999999999999999')",
  "SELECT now() - toIntervalDay(99999999999)",
  "SELECT * FROM events LIMIT 9223372036854775807",
  "SELECT * FROM events LIMIT 10 OFFSET 99999999999999999999",
  "SELECT arrayJoin(range(100000000))",
  "SELECT repeat('x', 2147483647)",
  "SELECT toDate('2024-02-30')",
  "SELECT properties.a FROM events WHERE timestamp > '10000-01-01'",
  "SELECT {filters}"
]

/** Percent-encodings no well-formed text gives: NUL, overlong and lone-surrogate UTF-8, bare bytes, broken escapes. */
const RAW_ENCODED = ["%00", "a%00b", "%ED%A0%80", "%C0%80", "%FF", "%FE%FF", "%", "%zz", "%E2%82"]

const anyText = fc.string({ unit: "binary", maxLength: 24 })

/** A text as query and path parameters carry it, before encoding. */
const wildText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NUMBERS) },
  { weight: 2, arbitrary: fc.constantFrom(...DATES) },
  { weight: 2, arbitrary: fc.constantFrom(...TEXTS) },
  { weight: 1, arbitrary: fc.constantFrom(...JSON_TEXTS) },
  { weight: 1, arbitrary: fc.constantFrom(...ZEDQL) },
  { weight: 2, arbitrary: anyText },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.double().map(String) }
)

/** Well-formed text percent-encoded, or a raw escape sequence that decodes to nothing valid. */
const encodedValue = fc.oneof(
  { weight: 5, arbitrary: wildText.map((t) => encodeURIComponent(t.toWellFormed())) },
  { weight: 1, arbitrary: fc.constantFrom(...RAW_ENCODED) }
)

/** Numbers past a column, a JavaScript date (as milliseconds), a safe integer, or plain odd. */
const wildNumber: fc.Arbitrary<number> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      2147483648,
      -2147483649,
      9007199254740993,
      1e20,
      -1e20,
      1e308,
      1e15,
      -1e15,
      8.64e15 + 1,
      -1,
      0,
      0.5,
      -0,
      Number.MAX_SAFE_INTEGER
    )
  },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) }
)

/** A JSON value meant to break whatever field it lands in. */
const wildJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: wildNumber },
  { weight: 3, arbitrary: wildText },
  { weight: 1, arbitrary: fc.constantFrom("\ud800", "a\udc00b", "\u0000") },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(null, true, false, {}, [], [null], { "": 1 }, JSON.parse('{"__proto__":1}'))
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 1500 }).map((depth) => nested(depth)) },
  { weight: 1, arbitrary: fc.constantFrom(Array.from({ length: 5000 }, (_, i) => i)) }
)

const nested = (depth: number): unknown => {
  let value: unknown = 1
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value }
  return value
}

/** Where each leaf of a JSON value is (the value itself when it has none). */
const leaves = (value: unknown, path: ReadonlyArray<string | number> = []): Array<ReadonlyArray<string | number>> => {
  if (value === null || typeof value !== "object") return [path]
  const children: Array<[string | number, unknown]> = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : Object.entries(value)
  return children.length === 0 ? [path] : children.flatMap(([key, child]) => leaves(child, [...path, key]))
}

const replaced = (value: unknown, path: ReadonlyArray<string | number>, replacement: unknown): unknown => {
  if (path.length === 0) return replacement
  const [key, ...rest] = path as [string | number, ...Array<string | number>]
  if (Array.isArray(value)) return value.map((item, i) => (i === key ? replaced(item, rest, replacement) : item))
  return { ...(value as object), [key]: replaced((value as Record<string, unknown>)[key], rest, replacement) }
}

/** Texts that stand for what a store cannot hold: dates out of range, numbers past a column, NUL. */
const hostileText = fc.constantFrom(...DATES, ...NUMBERS, "\u0000", "a\u0000b", "\ud800")

/**
 * `valid` with one leaf, chosen evenly, broken: mostly by a hostile value of its own kind (a number
 * past its range, a date no store holds, a text with NUL), so the rest of the request still passes
 * and the break is what the server meets.
 */
const mutated = (valid: fc.Arbitrary<unknown>) =>
  valid.chain((value) => {
    const paths = leaves(value)
    const text = fc.oneof({ weight: 3, arbitrary: hostileText }, { weight: 1, arbitrary: wildText })
    return fc
      .tuple(fc.nat(paths.length - 1), fc.boolean(), wildNumber, text, wildJson)
      .map(([i, sameKind, number, text, any]) => {
        const path = paths[i]!
        const leaf = path.reduce<unknown>((at, key) => (at as Record<string | number, unknown>)[key], value)
        return replaced(
          value,
          path,
          !sameKind ? any : typeof leaf === "number" ? number : typeof leaf === "string" ? text : any
        )
      })
  })

// ---------------------------------------------------------------------------------------------
// Bodies

const CONTENT_TYPES = [
  "application/json",
  "text/plain",
  "application/x-www-form-urlencoded",
  "application/json; charset=latin1",
  "multipart/form-data",
  "x/y"
]

const utf8 = (text: string) => new Uint8Array(Buffer.from(text, "utf8"))

/** Bytes no JSON reader should choke on: invalid UTF-8, truncated and lying encodings. */
const rawBody: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 64 }),
  fc.constantFrom(
    utf8('{"name":"a'),
    new Uint8Array([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
    new Uint8Array([0x1f, 0x8b, 0x08, 0x00]),
    utf8("data=%%%"),
    utf8("\u0000")
  )
)

/**
 * A JSON body: shaped like the schema (its wire side, refinements aside) or like a known valid body,
 * with one part broken or not, or anything at all. Drawing from the schema's refined side instead
 * could spin for ever on a refinement random values seldom meet.
 */
const jsonBody = (
  schema: Schema.Schema.AnyNoContext | undefined,
  example: ((name: string) => unknown) | undefined
): fc.Arbitrary<unknown> => {
  const shaped = schema === undefined ? fc.jsonValue({ maxDepth: 3 }) : Arbitrary.make(Schema.encodedSchema(schema))
  // Names are unique for some kinds (flag keys, survey names): a fresh one keeps the body valid.
  const base =
    example === undefined
      ? shaped
      : fc.oneof(
          shaped,
          fc.uuid().map((u) => example(`fuzz-${u}`))
        )
  return fc.oneof(
    { weight: 2, arbitrary: base },
    { weight: 4, arbitrary: mutated(base) },
    { weight: 1, arbitrary: wildJson }
  )
}

interface Body {
  readonly headers: Record<string, string>
  readonly body: string | Uint8Array
}

const asJson = (value: unknown): string => JSON.stringify(value) ?? "null"

const bodyOf = (json: fc.Arbitrary<unknown>): fc.Arbitrary<Body> =>
  fc.oneof(
    {
      weight: 8,
      arbitrary: json.map((value): Body => ({ headers: { "content-type": "application/json" }, body: asJson(value) }))
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(json, fc.constantFrom(...CONTENT_TYPES))
        .map(([value, type]): Body => ({ headers: { "content-type": type }, body: asJson(value) }))
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(rawBody, fc.constantFrom(...CONTENT_TYPES))
        .map(([body, type]): Body => ({ headers: { "content-type": type }, body }))
    }
  )

// ---------------------------------------------------------------------------------------------
// SDK endpoints (capture, recordings, flags): their bodies have no schema in the route table

/** A sent time as SDKs put it in `timestamp`, `sent_at` or rrweb events, or nothing like it. */
const wildTime: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    1e15,
    -1e15,
    8.64e15,
    8.64e15 + 1,
    1e20,
    -1e20,
    1e11,
    0,
    -1,
    1.5,
    "1e20",
    "-271821-04-20",
    "+275760-09-13T00:00:00Z",
    "10000-01-01",
    "0000-01-01T00:00:00Z",
    "2024-02-30T00:00:00Z",
    ""
  ),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  wildJson
)

const maybe = <A>(arbitrary: fc.Arbitrary<A>) => fc.option(arbitrary, { nil: undefined })

const wildProperties = fc.dictionary(
  fc.oneof(
    anyText,
    fc.constantFrom(
      "$set",
      "$set_once",
      "$unset",
      "$groups",
      "$session_id",
      "$process_person_profile",
      "a\u0000b",
      "\ud800",
      "__proto__"
    )
  ),
  wildJson,
  { maxKeys: 5 }
)

const wildEvent = (token: string) =>
  fc.record(
    {
      event: fc.oneof(
        fc.constantFrom("$pageview", "$identify", "$groupidentify", "$create_alias", "$snapshot"),
        wildJson
      ),
      distinct_id: fc.oneof(fc.constantFrom("user-1", "a\u0000b", "\ud800", ""), wildJson),
      properties: fc.oneof(wildProperties, wildJson),
      timestamp: wildTime,
      offset: wildJson,
      uuid: fc.oneof(fc.uuid(), wildJson),
      $set: wildJson,
      token: fc.oneof({ weight: 5, arbitrary: fc.constant<unknown>(token) }, { weight: 1, arbitrary: wildJson })
    },
    { requiredKeys: ["event", "token"] }
  )

const captureJson = (token: string): fc.Arbitrary<unknown> =>
  fc.oneof(
    wildEvent(token),
    fc.array(wildEvent(token), { maxLength: 4 }),
    fc.record({
      api_key: fc.constant(token),
      batch: fc.oneof(fc.array(wildEvent(token), { maxLength: 4 }), wildJson),
      sent_at: maybe(wildTime),
      historical_migration: maybe(wildJson)
    }),
    {
      weight: 4,
      arbitrary: mutated(
        fc.constant({
          api_key: token,
          sent_at: "2026-01-01T00:00:00Z",
          batch: [
            { event: "e", distinct_id: "d", timestamp: "2026-01-01T00:00:00Z", properties: { a: 1, $set: { b: 2 } } }
          ]
        })
      )
    },
    wildJson
  )

const rrweb = fc.record(
  {
    type: fc.oneof(fc.integer({ min: 0, max: 6 }), wildJson),
    timestamp: wildTime,
    data: fc.oneof(fc.constant({}), wildJson)
  },
  { requiredKeys: ["type", "timestamp"] }
)

const recordingJson = (token: string): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.array(
      fc.record({
        event: fc.constantFrom<unknown>("$snapshot", "$snapshot_items"),
        properties: fc.record({
          token: fc.constant(token),
          distinct_id: fc.oneof(fc.constant<unknown>("user-1"), wildJson),
          $session_id: fc.oneof(fc.constant<unknown>("fuzz-session"), wildJson),
          $window_id: maybe(wildJson),
          $snapshot_data: fc.oneof(fc.array(rrweb, { minLength: 1, maxLength: 3 }), wildJson)
        })
      }),
      { minLength: 1, maxLength: 3 }
    ),
    {
      weight: 4,
      arbitrary: mutated(
        fc.constant([
          {
            event: "$snapshot",
            properties: {
              token,
              distinct_id: "u",
              $session_id: "s",
              $window_id: "w",
              $snapshot_data: [{ type: 2, timestamp: 1700000000000, data: { href: "https://example.com/" } }]
            }
          }
        ])
      )
    },
    wildJson
  )

const flagsJson = (token: string): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.record(
      {
        token: fc.oneof({ weight: 5, arbitrary: fc.constant<unknown>(token) }, { weight: 1, arbitrary: wildJson }),
        distinct_id: fc.oneof(fc.constantFrom<unknown>("user-1", "a\u0000b", "\ud800", "x".repeat(500)), wildJson),
        groups: maybe(fc.oneof(fc.dictionary(anyText, wildJson, { maxKeys: 3 }), wildJson)),
        person_properties: maybe(fc.oneof(wildProperties, wildJson)),
        group_properties: maybe(wildJson),
        $anon_distinct_id: maybe(wildJson),
        $device_id: maybe(wildJson),
        flag_keys_to_evaluate: maybe(wildJson)
      },
      { requiredKeys: ["token"] }
    ),
    {
      weight: 4,
      arbitrary: mutated(
        fc.constant({
          token,
          distinct_id: "user-1",
          groups: { company: "c" },
          person_properties: { email: "a@b.c" },
          $anon_distinct_id: "anon"
        })
      )
    },
    wildJson
  )

/** A capture-style body in one of the encodings the SDKs use, with the query parameters it needs. */
const sdkBody = (json: fc.Arbitrary<unknown>) =>
  fc.tuple(json, fc.constantFrom("json", "gzip", "base64", "form", "get")).map(([payload, encoding]) => {
    const text = asJson(payload)
    const base64 = Buffer.from(text).toString("base64")
    switch (encoding) {
      case "json":
        return { query: "", headers: { "content-type": "application/json" }, body: text }
      case "gzip":
        return {
          query: "compression=gzip-js",
          headers: { "content-type": "text/plain" },
          body: new Uint8Array(gzipSync(text)),
          payload
        }
      case "base64":
        return { query: "", headers: { "content-type": "text/plain" }, body: base64, payload }
      case "form":
        return {
          query: "",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: `data=${encodeURIComponent(base64)}`,
          payload
        }
      default:
        return { query: `data=${encodeURIComponent(base64)}`, headers: {}, body: undefined, payload }
    }
  })

// ---------------------------------------------------------------------------------------------
// Requests

/** Names a schema reads from its input object (the wire side), for query parameters. */
const fieldNames = (schema: Schema.Schema.AnyNoContext | undefined): ReadonlyArray<string> => {
  if (schema === undefined) return []
  try {
    return SchemaAST.getPropertySignatures(Schema.encodedSchema(schema).ast).map((p) => String(p.name))
  } catch {
    return []
  }
}

/** Query parameters the SDK endpoints read. */
const SDK_QUERY = [
  "data",
  "compression",
  "ver",
  "_",
  "sent_at",
  "token",
  "v",
  "version",
  "config",
  "beacon",
  "ip",
  "only_use_override_person_properties"
]

const query = (names: ReadonlyArray<string>) =>
  fc
    .array(
      fc.tuple(
        names.length === 0
          ? anyText
          : fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: anyText }),
        encodedValue
      ),
      { maxLength: 4 }
    )
    .map((pairs) => pairs.map(([name, value]) => `${encodeURIComponent(name.toWellFormed())}=${value}`).join("&"))

/** `path` with its parameters filled in: mostly values that name something, else wild ones. */
const pathOf = (template: string, known: Known) => {
  const parts = template.split("/")
  return fc
    .tuple(
      ...parts.map((part, i) => {
        if (!part.startsWith(":")) return fc.constant(part)
        const good = part === ":project_id" ? ["1", "@current"] : [known.params[`${parts[i - 1]}/${part}`] ?? "1"]
        return fc.oneof({ weight: 1, arbitrary: fc.constantFrom(...good) }, { weight: 2, arbitrary: encodedValue })
      }),
      fc.boolean()
    )
    .map(([...segments]) => {
      const slash = segments.pop() as boolean
      return `${segments.join("/")}${slash ? "/" : ""}`
    })
}

const credentials = (known: Known) =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constant<Record<string, string>>({ authorization: `Bearer ${known.adminKey}` }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Record<string, string>>(
        {},
        { authorization: "Bearer phx_wrong" },
        { authorization: "Bearer \u00ff" }
      )
    }
  )

const join = (path: string, ...queries: ReadonlyArray<string>) => {
  const q = queries.filter((s) => s !== "").join("&")
  return q === "" ? path : `${path}?${q}`
}

const SDK_BODIES: Record<string, (token: string) => fc.Arbitrary<unknown>> = {
  "/i/v0/e": captureJson,
  "/batch": captureJson,
  "/engage": captureJson,
  "/s": recordingJson,
  "/decide": flagsJson,
  "/flags": flagsJson
}

/** Malformed (and some well-formed) requests for one route. */
const requestsFor = (route: Route<any>, known: Known): fc.Arbitrary<WireRequest> => {
  const path = fc.constantFrom(...route.paths).chain((template) => pathOf(template, known))
  const sdk = SDK_BODIES[route.paths[0]!]
  const headers = route.access._tag === "Public" ? fc.constant({}) : credentials(known)
  if (sdk !== undefined) {
    return fc.tuple(path, query(SDK_QUERY), sdkBody(sdk(known.projectKey))).map(([p, q, b]) => ({
      method: route.method,
      url: join(p, b.query, q),
      headers: b.headers,
      body: route.method === "GET" ? undefined : b.body,
      payload: b.payload
    }))
  }
  const names = fieldNames(route.schemas.query)
  const example = known.bodies[`${route.method} ${route.paths[0]}`]
  const body =
    route.method === "GET" || route.method === "DELETE"
      ? fc.constant(undefined)
      : maybe(bodyOf(jsonBody(route.schemas.body, example)))
  return fc.tuple(path, query(names), headers, body).map(([p, q, h, b]) => ({
    method: route.method,
    url: join(p, q),
    headers: { ...h, ...b?.headers },
    body: b?.body
  }))
}

/**
 * Malformed requests for every route; those SDKs POST (capture, recordings, flags) four times as
 * often, as they face anyone on the internet.
 */
export const badRequests = (routes: ReadonlyArray<Route<any>>, known: Known): fc.Arbitrary<WireRequest> =>
  fc.oneof(
    ...routes.map((route) => ({
      weight: route.method === "POST" && SDK_BODIES[route.paths[0]!] !== undefined ? 4 : 1,
      arbitrary: requestsFor(route, known)
    }))
  )

// ---------------------------------------------------------------------------------------------
// Sending

export const send = async (zed: Zed, { body, headers, method, url }: WireRequest) => {
  const response = await zed.handler(
    new Request(`http://zed.test${url}`, {
      method,
      headers,
      body: body === undefined ? null : typeof body === "string" ? body : new Uint8Array(body)
    })
  )
  return { status: response.status, type: response.headers.get("content-type") ?? "", text: await response.text() }
}

export const json = (method: string, url: string, key: string, body?: unknown): WireRequest => ({
  method,
  url,
  headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
  body: body === undefined ? undefined : JSON.stringify(body)
})

export const call = async (zed: Zed, request: WireRequest) => {
  const res = await send(zed, request)
  if (res.status >= 300) throw new Error(`${request.method} ${request.url} answered ${res.status}: ${res.text}`)
  return res.text === "" ? undefined : JSON.parse(res.text)
}

const TRENDS = {
  kind: "TrendsQuery",
  series: [{ kind: "EventsNode", event: "$pageview", math: "dau" }],
  dateRange: { date_from: "-7d" }
}
const FLAG = {
  key: "fuzzed",
  filters: {
    groups: [
      { properties: [{ key: "email", value: "a", operator: "icontains", type: "person" }], rollout_percentage: 50 }
    ]
  }
}
const INSIGHT = { name: "fuzzed", query: { kind: "InsightVizNode", source: TRENDS } }
const PERSON_FILTER = { key: "email", value: "a@b.c", operator: "exact", type: "person" }
const SURVEY = {
  name: "fuzzed",
  type: "popover",
  questions: [
    { type: "rating", question: "How likely?", scale: 10 },
    { type: "single_choice", question: "Role?", choices: ["a", "b"] }
  ]
}

/** Something of every kind in project 1, for path parameters that name what exists, and valid bodies to break. */
export const seedFuzzed = async (zed: Zed): Promise<Known> => {
  const api = (method: string, path: string, body?: unknown) =>
    call(zed, json(method, `/api/projects/1${path}`, ADMIN_KEY, body))
  const flag = await api("POST", "/feature_flags/", FLAG)
  const insight = await api("POST", "/insights/", INSIGHT)
  const sharing = await api("PATCH", `/insights/${insight.id}/sharing/`, { enabled: true })
  const dashboard = await api("POST", "/dashboards/", { name: "fuzzed" })
  const cohort = await api("POST", "/cohorts/", { name: "fuzzed", is_static: true })
  // Flags that make every evaluation read stored data: a static cohort's members, continuity's hash keys.
  await api("POST", "/feature_flags/", {
    key: "in-cohort",
    ensure_experience_continuity: true,
    filters: { groups: [{ properties: [{ key: "id", value: cohort.id, type: "cohort" }], rollout_percentage: 100 }] }
  })
  const playlist = await api("POST", "/session_recording_playlists/", { name: "fuzzed", type: "collection" })
  const fn = await api("POST", "/zed_functions/", { type: "transformation", name: "fuzzed", code: "return event" })
  const survey = await api("POST", "/surveys/", { ...SURVEY, linked_flag_id: flag.id })
  const feature = await api("POST", "/early_access_feature/", { name: "early", stage: "beta" })
  const uuid = uuidv7()
  await call(zed, {
    method: "POST",
    url: "/batch/",
    headers: {},
    body: JSON.stringify({
      api_key: PROJECT_KEY,
      batch: [{ event: "$pageview", distinct_id: "user-1", uuid, properties: { $set: { email: "a@b.c" } } }]
    })
  })
  await call(zed, {
    method: "POST",
    url: "/s/",
    headers: {},
    body: JSON.stringify(
      snapshotPayload("fuzz-session", "user-1", { w: [{ type: 2, timestamp: Date.now(), data: {} }] })
    )
  })
  const person = (await api("GET", "/persons/?distinct_id=user-1")).results[0]
  // Accounts: a key to roll and revoke (not the admin's, which the fuzzer needs), an invitation, and
  // a member who joined through another.
  const root = (method: string, path: string, body?: unknown) => call(zed, json(method, path, ADMIN_KEY, body))
  const key = await root("POST", "/api/personal_api_keys/", { label: "fuzzed", scopes: ["insight:read"] })
  const invite = await root("POST", "/api/organizations/@current/invites/", { target_email: "invited@fuzz.test" })
  const joining = await root("POST", "/api/organizations/@current/invites/", { target_email: "member@fuzz.test" })
  const member = await call(
    zed,
    json("POST", `/api/signup/${joining.id}/`, "", { first_name: "M", password: "fuzzed password" })
  )
  let invites = 0
  const env = (method: string, path: string) => `${method} /api/environments/:project_id${path}`
  return {
    projectKey: PROJECT_KEY,
    adminKey: ADMIN_KEY,
    params: {
      "feature_flags/:id": String(flag.id),
      "insights/:id": String(insight.id),
      "dashboards/:id": String(dashboard.id),
      "cohorts/:id": String(cohort.id),
      "session_recording_playlists/:short_id": playlist.short_id,
      "recordings/:session_id": "fuzz-session",
      "session_recordings/:id": "fuzz-session",
      "zed_functions/:id": fn.id,
      "surveys/:id": survey.id,
      "early_access_feature/:id": feature.id,
      "static/:name": "array.js",
      "persons/:id": String(person.id),
      "events/:id": uuid,
      "organizations/:id": "@current",
      "organizations/:organization_id": "@current",
      "personal_api_keys/:id": key.id,
      "invites/:id": invite.id,
      "signup/:invite_id": invite.id,
      "members/:user_uuid": member.uuid,
      "shared/:access_token": sharing.access_token,
      "array/:token": PROJECT_KEY
    },
    bodies: {
      "PATCH /api/organizations/:id": (name) => ({ name, flag_evaluation_quota: 1_000_000 }),
      "POST /api/personal_api_keys": (name) => ({
        label: name.slice(0, 40),
        scopes: ["insight:read"],
        scoped_teams: [1]
      }),
      "PATCH /api/personal_api_keys/:id": (name) => ({ label: name.slice(0, 40), scopes: ["query:read"] }),
      "POST /api/organizations/:organization_id/invites": () => ({
        target_email: `invite${invites++}@fuzz.test`,
        level: 1
      }),
      "PATCH /api/organizations/:organization_id/members/:user_uuid": () => ({ level: 8 }),
      "PATCH /api/users/@me": (name) => ({ first_name: name.slice(0, 150), set_current_team: 1 }),
      "POST /api/login": () => ({ email: "member@fuzz.test", password: "fuzzed password" }),
      "POST /api/signup/:invite_id": (name) => ({ first_name: name.slice(0, 150), password: "fuzzed password" }),
      "POST /api/projects": (name) => ({ name, timezone: "Europe/Berlin" }),
      [env("PATCH", "")]: (name) => ({ name, timezone: "UTC", anonymize_ips: false }),
      [env("POST", "/query")]: () => ({
        query: {
          kind: "ZedQLQuery",
          query: "SELECT event, count() FROM events WHERE timestamp > now() - INTERVAL 7 DAY GROUP BY event"
        }
      }),
      [env("POST", "/insights")]: (name) => ({ ...INSIGHT, name, dashboards: [dashboard.id], order: 1 }),
      [env("PATCH", "/insights/:id")]: (name) => ({
        name,
        query: { kind: "InsightVizNode", source: { ...TRENDS, properties: [PERSON_FILTER] } },
        dashboards: [dashboard.id]
      }),
      [env("PATCH", "/insights/:id/sharing")]: () => ({ enabled: true }),
      [env("POST", "/dashboards")]: (name) => ({ name, filters: { date_from: "-30d", date_to: null } }),
      [env("POST", "/session_recording_playlists")]: (name) => ({
        name,
        type: "filters",
        filters: {
          date_from: "-7d",
          duration: [{ key: "duration", value: 1, operator: "gt", type: "recording" }],
          properties: [PERSON_FILTER]
        }
      }),
      [env("PATCH", "/session_recording_playlists/:short_id")]: (name) => ({ name, pinned: true, description: "d" }),
      [env("POST", "/session_recording_playlists/:short_id/recordings/bulk_add")]: () => ({
        session_recording_ids: ["fuzz-session"]
      }),
      [env("POST", "/session_recording_playlists/:short_id/recordings/bulk_delete")]: () => ({
        session_recording_ids: ["fuzz-session"]
      }),
      [env("PATCH", "/zed_functions/rearrange")]: () => ({ orders: { [fn.id]: 1 } }),
      [env("POST", "/zed_functions")]: (name) => ({
        type: "destination",
        name,
        code: "fetch(inputs.url, {'body': event})",
        inputs: { url: { value: "https://example.com/" } },
        enabled: false
      }),
      [env("PATCH", "/zed_functions/:id")]: (name) => ({
        name,
        enabled: true,
        code: "event.properties.x := 1\nreturn event"
      }),
      [env("PATCH", "/plugin_configs/:id")]: () => ({ enabled: true, config: {} }),
      [env("POST", "/feature_flags")]: (name) => ({
        ...FLAG,
        key: name,
        filters: {
          ...FLAG.filters,
          multivariate: {
            variants: [
              { key: "a", rollout_percentage: 50 },
              { key: "b", rollout_percentage: 50 }
            ]
          }
        }
      }),
      [env("PATCH", "/feature_flags/:id")]: (name) => ({
        name,
        filters: {
          groups: [
            { properties: [{ key: "id", value: cohort.id, type: "cohort", operator: "in" }], rollout_percentage: 100 }
          ]
        }
      }),
      [env("POST", "/cohorts")]: (name) => ({
        name,
        filters: { properties: { type: "OR", values: [{ type: "AND", values: [PERSON_FILTER] }] } }
      }),
      [env("PATCH", "/cohorts/:id")]: (name) => ({ name, description: "d" }),
      [env("PATCH", "/cohorts/:id/add_persons_to_static_cohort")]: () => ({ person_ids: [person.uuid] }),
      [env("POST", "/surveys")]: (name) => ({
        ...SURVEY,
        name,
        linked_flag_id: flag.id,
        start_date: "2026-01-01T00:00:00Z",
        end_date: "2027-01-01T00:00:00Z",
        responses_limit: 10,
        targeting_flag_filters: { groups: [{ properties: [PERSON_FILTER], rollout_percentage: 50 }] }
      }),
      [env("PATCH", "/surveys/:id")]: (name) => ({
        name,
        start_date: "2026-01-01T00:00:00Z",
        conditions: { url: "/pricing", seenSurveyWaitPeriodInDays: 14 }
      }),
      [env("POST", "/early_access_feature")]: (name) => ({
        name,
        stage: "beta",
        feature_flag_id: flag.id,
        documentation_url: "https://docs.example/"
      }),
      [env("PATCH", "/early_access_feature/:id")]: (name) => ({ name, stage: "general-availability" })
    }
  }
}
