import { readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { EventStore, GroupStore, type StoredEvent } from "@zed/core/storage"
import { pgliteStorage } from "@zed/postgres"
import { Effect } from "effect"
import { PostHog } from "posthog-node"
import { PostHog as PostHogV4 } from "posthog-node-v4"

// Feature flags through the published posthog-node SDKs, the current one (remote evaluation on
// /flags?v=2, definitions from /flags/definitions) and 4.x (/decide?v=3, /api/feature_flag/local_evaluation),
// against a real Zed on PGlite: what the SDKs answer must be what Zed answers, locally evaluated
// values must agree with the server's, and the $feature_flag_called events they send must be stored.

const PROJECT_KEY = "phc_sdk_flags_compat_project_0001"
const PERSONAL_KEY = "phx_sdk_flags_compat_personal_0001"
const versionOf = (pkg: string): string =>
  JSON.parse(readFileSync(new URL(`../../../node_modules/${pkg}/package.json`, import.meta.url), "utf8")).version
const V5_VERSION = versionOf("posthog-node")
const V4_VERSION = versionOf("posthog-node-v4")

interface Logged {
  readonly method: string
  readonly path: string
  readonly search: string
  readonly status: number
  readonly ifNoneMatch: string | undefined
  /** Made by this test rather than by an SDK. */
  readonly direct: boolean
}

type Value = boolean | string | undefined
type Props = Record<string, unknown>
interface Options {
  readonly personProperties?: Props
  readonly groups?: Record<string, string>
  readonly groupProperties?: Record<string, Props>
}

let zed: Zed
let server: Server
let host: string
const seen: Array<Logged> = []

const KEYS = [
  "beta-feature",
  "checkout-experiment",
  "pro-plan",
  "acme-email",
  "override-flag",
  "company-flag",
  "dep-flag",
  "cohort-flag",
  "static-cohort-flag",
  "inactive-flag"
] as const

const IDS = Array.from({ length: 50 }, (_, i) => `user-${i}`)
const COMPANIES = ["initech", "acme-inc", "small-co", "unknown-co"]

/** Person properties stored for user-i (by capture); every fifth user has none. */
const storedOf = (i: number): Props | undefined =>
  [
    { plan: "pro", email: `user-${i}@acme.com` },
    { plan: "free", email: `User-${i}@Example.com` },
    { plan: "Enterprise", email: `user-${i}@other.org` },
    { email: `user-${i}@ACME.com` },
    undefined
  ][i % 5]

/** Two requests per id: as is, and with request properties and a group (with its properties every other id). */
const optionSets = (i: number): ReadonlyArray<Options> => [
  {},
  {
    personProperties: { plan: i % 2 ? "pro" : "enterprise", email: i % 3 ? `p${i}@Example.com` : `p${i}@acme.com` },
    groups: { company: COMPANIES[i % 4]! },
    ...(i % 2 ? { groupProperties: { company: { seats: i } } } : {})
  }
]

const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${host}${path}`, {
    method,
    headers: { authorization: `Bearer ${PERSONAL_KEY}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const json = await res.json()
  expect(res.status, JSON.stringify(json)).toBeLessThan(300)
  return json
}

/** The body each SDK sends: group properties carry `$group_key`; 4.x adds `distinct_id` to the person's. */
const requestBody = (sdk: "v4" | "v5", id: string, options: Options) => ({
  token: PROJECT_KEY,
  distinct_id: id,
  groups: options.groups ?? {},
  person_properties: sdk === "v4" ? { distinct_id: id, ...options.personProperties } : { ...options.personProperties },
  group_properties: Object.fromEntries(
    Object.entries(options.groups ?? {}).map(([type, key]) => [
      type,
      { $group_key: key, ...options.groupProperties?.[type] }
    ])
  ),
  ...(sdk === "v5" ? { evaluation_runtime: "server" } : {})
})

const post = async (path: string, body: unknown) => {
  const res = await fetch(`${host}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-test-direct": "1" },
    body: JSON.stringify(body)
  })
  expect(res.status).toBe(200)
  return res.json()
}

const parse = (payload: unknown): unknown => {
  if (typeof payload !== "string") return payload
  try {
    return JSON.parse(payload)
  } catch {
    return payload
  }
}

interface Answer {
  readonly values: Record<string, Value>
  /** Parsed payloads of the enabled flags that have one. */
  readonly payloads: Record<string, unknown>
}

/** Zed's own answer, over HTTP, in the shape the SDK reads: /flags?v=2 for v5, /decide?v=3 for 4.x. */
const zedAnswer = async (sdk: "v4" | "v5", id: string, options: Options): Promise<Answer> => {
  if (sdk === "v4") {
    const body = await post("/decide/?v=3", requestBody(sdk, id, options))
    expect(body.errorsWhileComputingFlags).toBe(false)
    return {
      values: body.featureFlags,
      payloads: Object.fromEntries(Object.entries(body.featureFlagPayloads).map(([k, v]) => [k, parse(v)]))
    }
  }
  const body = await post("/flags/?v=2", requestBody(sdk, id, options))
  expect(body.errorsWhileComputingFlags).toBe(false)
  const flags = Object.values(
    body.flags as Record<
      string,
      { key: string; enabled: boolean; variant: string | null; metadata: { payload: unknown } }
    >
  )
  return {
    values: Object.fromEntries(flags.map((f) => [f.key, f.enabled ? (f.variant ?? true) : false])),
    payloads: Object.fromEntries(
      flags.filter((f) => f.enabled && f.metadata.payload !== null).map((f) => [f.key, parse(f.metadata.payload)])
    )
  }
}

const withoutUndefined = (record: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined))

/** Runs `fn` over `items`, `size` at a time. */
const inBatches = async <A>(items: ReadonlyArray<A>, size: number, fn: (item: A, index: number) => Promise<void>) => {
  for (let at = 0; at < items.length; at += size)
    await Promise.all(items.slice(at, at + size).map((item, i) => fn(item, at + i)))
}

const flagEvents = async (): Promise<Array<StoredEvent>> => {
  const all: Array<StoredEvent> = []
  for (let offset = 0; ; offset += 1000) {
    const page = await zed.run(
      Effect.flatMap(EventStore, (s) => s.list(1, { event: "$feature_flag_called", limit: 1000, offset }))
    )
    all.push(...page)
    if (page.length < 1000) return all
  }
}

const ids: Record<string, number> = {}
let dynamicCohort: number
let staticCohort: number

beforeAll(async () => {
  zed = await createZed({
    storage: pgliteStorage(),
    bootstrap: { projectApiKey: PROJECT_KEY, personalApiKey: PERSONAL_KEY }
  })
  server = createServer((req, res) => {
    res.on("finish", () => {
      const url = new URL(req.url ?? "/", "http://x")
      seen.push({
        method: req.method ?? "",
        path: url.pathname,
        search: url.search,
        status: res.statusCode,
        ifNoneMatch: req.headers["if-none-match"],
        direct: req.headers["x-test-direct"] === "1"
      })
    })
    void zed.nodeHandler(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  // Persons with stored properties and the company groups, through the SDK itself. "company" is the
  // first group type, so its index is 0.
  const ph = new PostHog(PROJECT_KEY, { host, flushAt: 500, flushInterval: 60_000 })
  ph.groupIdentify({ groupType: "company", groupKey: "initech", properties: { seats: 25 } })
  ph.groupIdentify({ groupType: "company", groupKey: "acme-inc", properties: { seats: 50 } })
  ph.groupIdentify({ groupType: "company", groupKey: "small-co", properties: { seats: 5 } })
  IDS.forEach((id, i) => {
    const stored = storedOf(i)
    if (stored !== undefined) ph.identify({ distinctId: id, properties: { $set: stored } })
  })
  await ph.shutdown()
  expect((await zed.run(Effect.flatMap(GroupStore, (s) => s.types(1)))).get("company")).toBe(0)

  dynamicCohort = (
    await api("POST", "/api/projects/1/cohorts/", {
      name: "Paying",
      filters: {
        properties: {
          type: "OR",
          values: [
            { type: "AND", values: [{ key: "plan", type: "person", operator: "exact", value: ["pro", "enterprise"] }] }
          ]
        }
      }
    })
  ).id
  staticCohort = (await api("POST", "/api/projects/1/cohorts/", { name: "Hand-picked", is_static: true })).id
  const members = await Promise.all(
    ["user-3", "user-7"].map(
      async (id) => (await api("GET", `/api/projects/1/persons/?distinct_id=${id}`)).results[0].uuid
    )
  )
  expect(
    await api("PATCH", `/api/projects/1/cohorts/${staticCohort}/add_persons_to_static_cohort/`, { person_ids: members })
  ).toEqual({ success: true, added: 2 })

  const define = async (key: string, filters: unknown, extra: Props = {}) => {
    ids[key] = (await api("POST", "/api/projects/1/feature_flags/", { key, filters, ...extra })).id
  }
  const person = (key: string, operator: string, value: unknown) => ({ key, type: "person", operator, value })
  await define("beta-feature", { groups: [{ properties: [], rollout_percentage: 50 }] })
  await define("checkout-experiment", {
    groups: [{ properties: [], rollout_percentage: 100 }],
    multivariate: {
      variants: [
        { key: "control", rollout_percentage: 50 },
        { key: "test", rollout_percentage: 50 }
      ]
    },
    payloads: { control: '{"color":"blue"}', test: '{"color":"green"}' }
  })
  await define("pro-plan", {
    groups: [{ properties: [person("plan", "exact", "pro")], rollout_percentage: 100 }],
    payloads: { true: '{"tier":"pro"}' }
  })
  await define("acme-email", {
    groups: [{ properties: [person("email", "icontains", "@acme.com")], rollout_percentage: 50 }]
  })
  // The override condition comes first: 4.x sorts variant overrides first, the server keeps array order.
  await define("override-flag", {
    groups: [
      { properties: [person("email", "icontains", "@example.com")], rollout_percentage: 100, variant: "test" },
      { properties: [], rollout_percentage: 100 }
    ],
    multivariate: {
      variants: [
        { key: "control", rollout_percentage: 100 },
        { key: "test", rollout_percentage: 0 }
      ]
    },
    payloads: { test: '"overridden"' }
  })
  await define("company-flag", {
    aggregation_group_type_index: 0,
    groups: [
      {
        properties: [{ key: "seats", type: "group", group_type_index: 0, operator: "gte", value: 10 }],
        rollout_percentage: 50
      }
    ]
  })
  await define("dep-flag", {
    groups: [
      {
        properties: [{ key: String(ids["beta-feature"]), type: "flag", operator: "flag_evaluates_to", value: true }],
        rollout_percentage: 100
      }
    ]
  })
  await define("cohort-flag", {
    groups: [
      { properties: [{ key: "id", type: "cohort", operator: "in", value: dynamicCohort }], rollout_percentage: 100 }
    ]
  })
  await define("static-cohort-flag", {
    groups: [
      { properties: [{ key: "id", type: "cohort", operator: "in", value: staticCohort }], rollout_percentage: 100 }
    ]
  })
  await define("inactive-flag", { groups: [{ properties: [], rollout_percentage: 100 }] }, { active: false })
})

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve))
  await zed?.close()
})

/** What each SDK reported in $feature_flag_called events: "id|key|response". */
const reported = { v4: new Set<string>(), v5: new Set<string>() }
const report = (sdk: "v4" | "v5", id: string, key: string, value: Value) =>
  reported[sdk].add(`${id}|${key}|${JSON.stringify(value)}`)

interface FlagCall extends Options {
  readonly onlyEvaluateLocally?: boolean
  readonly sendFeatureFlagEvents?: boolean
}

/** What these tests call on either SDK. (4.x types properties as strings; both send any JSON value.) */
interface FlagClient {
  getAllFlags(id: string, options?: FlagCall): Promise<Record<string, Value>>
  getAllFlagsAndPayloads(
    id: string,
    options?: FlagCall
  ): Promise<{ featureFlags?: Record<string, Value>; featureFlagPayloads?: Record<string, unknown> }>
  getFeatureFlag(key: string, id: string, options?: FlagCall): Promise<Value>
  isFeatureEnabled(key: string, id: string, options?: FlagCall): Promise<boolean | undefined>
  getFeatureFlagPayload(key: string, id: string, matchValue: undefined, options?: FlagCall): Promise<unknown>
  reloadFeatureFlags(): Promise<void>
  shutdown(): Promise<void>
}

const client = (sdk: "v4" | "v5", options: { personalApiKey?: string } = {}): FlagClient => {
  const common = { host, flushAt: 1000, flushInterval: 60_000, featureFlagsPollingInterval: 600_000, ...options }
  return sdk === "v5" ? new PostHog(PROJECT_KEY, common) : new PostHogV4(PROJECT_KEY, common)
}

describe("posthog-node feature flags against Zed", () => {
  describe.each(["v5", "v4"] as const)("remote evaluation, %s", (sdk) => {
    it("gives what Zed answers, for every flag, id and option set, on the endpoint of its version", async () => {
      const ph = client(sdk)
      const before = seen.length
      let compared = 0
      await inBatches(IDS, 10, async (id, i) => {
        for (const options of optionSets(i)) {
          const zedSays = await zedAnswer(sdk, id, options)
          const all = await ph.getAllFlags(id, options)
          expect(all, `${id} ${JSON.stringify(options)}`).toEqual(zedSays.values)
          const both = await ph.getAllFlagsAndPayloads(id, options)
          expect(both.featureFlags).toEqual(zedSays.values)
          expect(withoutUndefined(both.featureFlagPayloads ?? {})).toEqual(zedSays.payloads)
          for (const key of KEYS) {
            const expected = zedSays.values[key]
            const flag = await ph.getFeatureFlag(key, id, options)
            const enabled = await ph.isFeatureEnabled(key, id, options)
            const payload = await ph.getFeatureFlagPayload(key, id, undefined, {
              ...options,
              sendFeatureFlagEvents: false
            })
            if (sdk === "v5") {
              // Inactive flags are not in /flags answers: no value at all.
              expect([key, flag]).toEqual([key, expected])
              expect([key, enabled]).toEqual([key, expected === undefined ? undefined : expected !== false])
              expect([key, payload]).toEqual([
                key,
                expected === undefined ? undefined : (zedSays.payloads[key] ?? null)
              ])
            } else {
              // 4.x reads a flag missing from /decide as false, and a missing payload as null.
              expect([key, flag]).toEqual([key, expected ?? false])
              expect([key, enabled]).toEqual([key, (expected ?? false) !== false])
              expect([key, payload]).toEqual([key, zedSays.payloads[key] ?? null])
            }
            report(sdk, id, key, flag)
            compared++
          }
        }
      })
      expect(compared).toBe(IDS.length * 2 * KEYS.length)
      await ph.shutdown()

      // Every evaluation went to the endpoint this SDK version uses.
      const calls = seen.slice(before).filter((r) => !r.direct && r.path !== "/batch/")
      expect(calls.length).toBeGreaterThanOrEqual(IDS.length * 2 * (KEYS.length * 3 + 2))
      expect(new Set(calls.map((r) => `${r.method} ${r.path}${r.search} ${r.status}`))).toEqual(
        new Set([sdk === "v5" ? "POST /flags/?v=2 200" : "POST /decide/?v=3 200"])
      )
    })

    it("matches the known answers of PostHog's hashing and matching", async () => {
      const ph = client(sdk)
      const flag = (key: string, id: string, options: Options = {}) =>
        ph.getFeatureFlag(key, id, { ...options, sendFeatureFlagEvents: false })
      const payload = (key: string, id: string, options: Options = {}) =>
        ph.getFeatureFlagPayload(key, id, undefined, { ...options, sendFeatureFlagEvents: false })
      // 50% rollout (spec part 7 #1–3), and a flag depending on it (#13).
      expect(await Promise.all(["user-0", "user-1", "user-4"].map((id) => flag("beta-feature", id)))).toEqual([
        true,
        false,
        true
      ])
      expect(await Promise.all(["user-0", "user-1"].map((id) => flag("dep-flag", id)))).toEqual([true, false])
      // Multivariate with payloads (#5–7).
      expect(await flag("checkout-experiment", "user-1")).toBe("control")
      expect(await payload("checkout-experiment", "user-1")).toEqual({ color: "blue" })
      expect(await flag("checkout-experiment", "user-42")).toBe("test")
      expect(await payload("checkout-experiment", "user-42")).toEqual({ color: "green" })
      expect(await flag("checkout-experiment", "distinct_id_0")).toBe("test")
      // Person properties, stored (user-0: pro, user-1: free) or sent with the request.
      expect(await flag("pro-plan", "user-0")).toBe(true)
      expect(await payload("pro-plan", "user-0")).toEqual({ tier: "pro" })
      expect(await flag("pro-plan", "user-1")).toBe(false)
      expect(await flag("pro-plan", "user-1", { personProperties: { plan: "pro" } })).toBe(true)
      // A condition's variant override beats a 0% variant (#11).
      expect(await flag("override-flag", "u1", { personProperties: { email: "Jane@Example.com" } })).toBe("test")
      expect(await payload("override-flag", "u1", { personProperties: { email: "Jane@Example.com" } })).toBe(
        "overridden"
      )
      expect(await flag("override-flag", "u1", { personProperties: { email: "jane@other.org" } })).toBe("control")
      // Group flag (#10): stored seats 25 for initech, overridden to 5; acme-inc is out of the rollout.
      expect(await flag("company-flag", "user-9", { groups: { company: "initech" } })).toBe(true)
      expect(
        await flag("company-flag", "user-9", {
          groups: { company: "initech" },
          groupProperties: { company: { seats: 5 } }
        })
      ).toBe(false)
      expect(await flag("company-flag", "user-9", { groups: { company: "acme-inc" } })).toBe(false)
      expect(await flag("company-flag", "user-9")).toBe(false)
      // Cohorts (#14): dynamic (case-insensitive exact), and static (user-3 and user-7 are members).
      expect(await flag("cohort-flag", "u-cohort", { personProperties: { plan: "Enterprise" } })).toBe(true)
      expect(await flag("cohort-flag", "u-cohort", { personProperties: { plan: "free" } })).toBe(false)
      expect(await Promise.all(["user-3", "user-7", "user-4"].map((id) => flag("static-cohort-flag", id)))).toEqual([
        true,
        true,
        false
      ])
      // Inactive: absent from the answer; 4.x calls an unknown flag false.
      expect(await flag("inactive-flag", "user-0")).toBe(sdk === "v5" ? undefined : false)
      await ph.shutdown()
    })
  })

  it("v5 evaluateFlags: one /flags request per snapshot, and capture({ flags }) stores the values on the event", async () => {
    const ph = new PostHog(PROJECT_KEY, { host, flushAt: 1000, flushInterval: 60_000 })
    const before = seen.length
    const sample = IDS.slice(0, 10)
    for (const [i, id] of sample.entries()) {
      const options = optionSets(i)[i % 2]!
      const zedSays = await zedAnswer("v5", id, options)
      const flags = await ph.evaluateFlags(id, options)
      expect(flags.keys.sort()).toEqual(Object.keys(zedSays.values).sort())
      for (const key of KEYS) {
        expect([key, flags.getFlag(key, { sendFeatureFlagEvents: false })]).toEqual([key, zedSays.values[key]])
        // /flags sends `payload: null` for flags without one, as PostHog does; the snapshot keeps the null.
        const present = Object.hasOwn(zedSays.values, key)
        expect([key, flags.getFlagPayload(key)]).toEqual([key, present ? (zedSays.payloads[key] ?? null) : undefined])
      }
      ph.capture({ distinctId: id, event: "evaluated", properties: { sample: i }, flags })
    }
    await ph.shutdown()
    expect(seen.slice(before).filter((r) => !r.direct && r.path === "/flags/").length).toBe(sample.length)

    const events = await zed.run(
      Effect.flatMap(EventStore, (s) => s.list(1, { event: "evaluated", limit: 100, offset: 0 }))
    )
    expect(events).toHaveLength(sample.length)
    for (const event of events) {
      const i = event.properties["sample"] as number
      const zedSays = await zedAnswer("v5", sample[i]!, optionSets(i)[i % 2]!)
      for (const [key, value] of Object.entries(zedSays.values))
        expect([key, event.properties[`$feature/${key}`]]).toEqual([key, value])
      expect([...(event.properties["$active_feature_flags"] as Array<string>)].sort()).toEqual(
        Object.keys(zedSays.values)
          .filter((k) => zedSays.values[k] !== false)
          .sort()
      )
    }
  })

  describe.each(["v5", "v4"] as const)("local evaluation, %s", (sdk) => {
    it("downloads the definitions (304 when unchanged) and computes what the server does wherever it can", async () => {
      const before = seen.length
      const ph = client(sdk, { personalApiKey: PERSONAL_KEY })
      await ph.reloadFeatureFlags()
      await ph.reloadFeatureFlags()
      const path = sdk === "v5" ? "/flags/definitions" : "/api/feature_flag/local_evaluation"
      // The SDK may poll once more on its own at start; every poll asks for the cohorts too.
      const polls = seen.slice(before).filter((r) => r.path === path)
      expect(polls.length).toBeGreaterThanOrEqual(2)
      for (const poll of polls)
        expect([poll.method, poll.search]).toEqual(["GET", `?token=${PROJECT_KEY}&send_cohorts`])
      expect(polls[0]!.status).toBe(200)
      if (sdk === "v5") {
        // The current SDK revalidates with the ETag it was given: unchanged definitions cost a 304.
        for (const poll of polls.slice(1))
          expect([poll.status, poll.ifNoneMatch]).toEqual([304, expect.stringMatching(/^W\/".+"$/)])
      } else {
        // 4.x sends no If-None-Match, so it gets the full document each time.
        for (const poll of polls) expect([poll.status, poll.ifNoneMatch]).toEqual([200, undefined])
      }
      const remoteCalls = () =>
        seen.slice(before).filter((r) => !r.direct && (r.path === "/flags/" || r.path === "/decide/")).length

      // Per flag: how many (id, options) pairs the SDK could decide alone.
      const conclusive: Record<string, number> = Object.fromEntries(KEYS.map((k) => [k, 0]))
      await inBatches(IDS, 10, async (id, i) => {
        // The SDK knows only the properties it is given: give it the stored ones, or the request's.
        const sets: ReadonlyArray<Options> = [{ personProperties: storedOf(i) ?? {} }, ...optionSets(i).slice(1)]
        for (const options of sets) {
          const server = await zedAnswer("v5", id, options)
          for (const key of KEYS) {
            const local = await ph.getFeatureFlag(key, id, {
              ...options,
              onlyEvaluateLocally: true,
              sendFeatureFlagEvents: false
            })
            if (local === undefined) continue
            conclusive[key]!++
            // The server leaves inactive flags out; the SDK has their definitions and calls them false.
            expect([key, id, options, local]).toEqual([key, id, options, server.values[key] ?? false])
          }
          const locally = await ph.getAllFlagsAndPayloads(id, { ...options, onlyEvaluateLocally: true })
          for (const [key, value] of Object.entries(locally.featureFlags ?? {})) {
            expect([key, id, value]).toEqual([key, id, server.values[key] ?? false])
            if (value !== false)
              expect([key, id, locally.featureFlagPayloads?.[key]]).toEqual([key, id, server.payloads[key]])
          }
        }
      })
      // Nothing fell back to the server, and the SDK decided every flag it has what it needs for.
      expect(remoteCalls()).toBe(0)
      expect(conclusive["static-cohort-flag"]).toBe(0)
      for (const key of [
        "beta-feature",
        "checkout-experiment",
        "pro-plan",
        "acme-email",
        "override-flag",
        "company-flag",
        "cohort-flag",
        "inactive-flag"
      ]) {
        expect([key, conclusive[key]! > 0]).toEqual([key, true])
      }
      // Only the current SDK evaluates flag dependencies locally (4.x reads them as unknown person properties).
      expect(conclusive["dep-flag"]! > 0).toBe(sdk === "v5")
      await ph.shutdown()
    })
  })

  it("serves definitions as PostHog does: dependencies by key with their chain, dynamic cohorts only, ETag revalidation", async () => {
    for (const path of ["/flags/definitions", "/api/feature_flag/local_evaluation"]) {
      const url = `${host}${path}?token=${PROJECT_KEY}&send_cohorts`
      const first = await fetch(url, { headers: { authorization: `Bearer ${PERSONAL_KEY}` } })
      expect(first.status).toBe(200)
      const etag = first.headers.get("etag")
      expect(etag).toMatch(/^W\/".+"$/)
      const body = await first.json()
      expect(body.group_type_mapping).toEqual({ "0": "company" })
      expect(Object.keys(body.cohorts)).toEqual([String(dynamicCohort)])
      const dependent = body.flags.find((f: { key: string }) => f.key === "dep-flag")
      expect(dependent.filters.groups[0].properties[0]).toMatchObject({
        key: "beta-feature",
        type: "flag",
        dependency_chain: ["beta-feature"]
      })
      expect(body.flags.find((f: { key: string }) => f.key === "inactive-flag")).toMatchObject({ active: false })
      const again = await fetch(url, { headers: { authorization: `Bearer ${PERSONAL_KEY}`, "if-none-match": etag! } })
      expect(again.status).toBe(304)
      expect(await again.text()).toBe("")
      // Without the personal API key: refused.
      expect((await fetch(url)).status).toBe(401)
    }
  })

  it("stores the $feature_flag_called events the SDKs sent, with the values they returned", async () => {
    const events = await flagEvents()
    for (const [sdk, version] of [
      ["v5", V5_VERSION],
      ["v4", V4_VERSION]
    ] as const) {
      const mine = events.filter((e) => e.properties["$lib_version"] === version)
      const stored = new Set(
        mine.map(
          (e) =>
            `${e.distinct_id}|${e.properties["$feature_flag"]}|${JSON.stringify(e.properties["$feature_flag_response"])}`
        )
      )
      expect(reported[sdk].size).toBeGreaterThan(IDS.length * KEYS.length)
      expect([...stored].sort()).toEqual([...reported[sdk]].sort())
      for (const event of mine) {
        const key = event.properties["$feature_flag"] as string
        expect(event.properties[`$feature/${key}`]).toEqual(event.properties["$feature_flag_response"])
        // The current SDK also reports the flag's id and version from /flags metadata (none for a flag not in the answer).
        if (sdk === "v5" && key !== "inactive-flag")
          expect([key, event.properties["$feature_flag_id"], event.properties["$feature_flag_version"]]).toEqual([
            key,
            ids[key],
            1
          ])
      }
    }
  })
})
