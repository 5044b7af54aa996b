import { gzipSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import {
  ADMIN_KEY,
  call,
  importEvents,
  postQuery,
  PROJECT_KEY,
  snapshotPayload as payload,
  zedqlRequest
} from "../../core/test/support.js"
import { backends } from "./backends.js"

// Session recordings through HTTP on real stores: what `/s/` stores, the list and its filters
// (interpreted as ZedQL over session_replay_events), replay through the snapshots API, delete.

const T0 = Date.UTC(2026, 2, 2, 12)
const SECOND = 1000
type Rr = { type: number; timestamp: number; data: unknown }
const rr = (type: number, at: number, data: unknown = {}): Rr => ({ type, timestamp: T0 + at, data })
const click = (at: number) => rr(3, at, { source: 2, type: 2, id: 1, x: 5, y: 5 })

const big = (i: number) =>
  rr(3, 60 * SECOND + i * 10, {
    source: 0,
    adds: [{ parentId: 1, node: { type: 3, textContent: `${i} ${"x".repeat(2_000)}` } }]
  })
const CAROL_FIRST = Array.from({ length: 700 }, (_, i) => big(i))
const CAROL_SECOND = [
  ...Array.from({ length: 300 }, (_, i) => big(700 + i)),
  rr(6, 75 * SECOND, { plugin: "rrweb/console@1", payload: { level: "error" } })
]

describe.each(["pglite", "postgres"])("%s session recordings", (name) => {
  let zed: Zed
  let cleanup: () => Promise<void>
  const send = (method: string, path: string, body?: unknown) =>
    call(zed, `/api/environments/1${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) })
  const capture = async (body: unknown, gzip = false) => {
    if (!gzip) return call(zed, "/s/", { method: "POST", key: null, body: JSON.stringify(body) })
    // posthog-js: gzip bytes as text/plain, with no header saying so.
    const res = await zed.handler(
      new Request("http://zed.test/s/", {
        method: "POST",
        body: gzipSync(JSON.stringify(body)),
        headers: { "content-type": "text/plain" }
      })
    )
    const text = await res.text()
    return { status: res.status, text, json: JSON.parse(text) }
  }
  const ids = async (query = "") => {
    const res = await send("GET", `/session_recordings/${query}`)
    expect(res.status, res.text).toBe(200)
    return (res.json.results as Array<{ id: string }>).map((r) => r.id)
  }
  const q = (filters: Record<string, unknown>) =>
    "?" +
    new URLSearchParams(
      Object.entries(filters).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)])
    ).toString()

  beforeAll(async () => {
    const backend = await backends("recordings-api")[name]!()
    cleanup = backend.cleanup
    zed = await createZed({
      storage: backend.storage,
      bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY }
    })
    await importEvents(zed, PROJECT_KEY, [
      {
        event: "$pageview",
        distinct_id: "alice",
        timestamp: new Date(T0).toISOString(),
        properties: { $session_id: "s-alice", $host: "shop.test", $set: { email: "alice@corp.test" } }
      },
      {
        event: "purchase",
        distinct_id: "alice",
        timestamp: new Date(T0 + 30 * SECOND).toISOString(),
        properties: { $session_id: "s-alice", $host: "shop.test", amount: 30 }
      },
      {
        event: "$pageview",
        distinct_id: "bob",
        timestamp: new Date(T0 + 60 * SECOND).toISOString(),
        properties: { $session_id: "s-bob", $host: "localhost:3000", $set: { email: "bob@home.test" } }
      }
    ])
    const alice = await capture(
      payload("s-alice", "alice", {
        "w-1": [
          rr(4, 0, { href: "https://shop.test/a", width: 800, height: 600 }),
          rr(2, 1, { node: { type: 0, childNodes: [] } }),
          click(1_000),
          click(2_000),
          click(3_000)
        ],
        "w-2": [
          rr(4, 100 * SECOND, { href: "https://shop.test/b" }),
          rr(3, 120 * SECOND, { source: 3, id: 1, x: 0, y: 10 })
        ]
      }),
      true
    )
    expect(alice.status, alice.text).toBe(200)
    expect(
      (
        await capture(
          payload("s-bob", "bob", {
            "w-1": [
              rr(4, 60 * SECOND, { href: "http://localhost:3000/" }),
              rr(3, 62 * SECOND, { source: 5, text: "h" }),
              rr(3, 70 * SECOND, { source: 5, text: "hi" })
            ]
          })
        )
      ).status
    ).toBe(200)
  })
  afterAll(async () => {
    await zed.close()
    await cleanup()
  })

  it("stores a recording sent in several requests, in bounded chunks, once however often a request is retried", async () => {
    const first = payload("s-carol", "carol", { "w-1": CAROL_FIRST })
    for (let i = 0; i < 2; i++) expect((await capture(first, true)).status).toBe(200)
    expect((await capture(payload("s-carol", "carol", { "w-1": CAROL_SECOND }), true)).status).toBe(200)
    expect((await capture(first)).status).toBe(200)
    const carol = (await send("GET", "/session_recordings/s-carol/")).json
    expect(carol).toMatchObject({
      id: "s-carol",
      distinct_id: "carol",
      event_count: 1001,
      console_error_count: 1,
      click_count: 0,
      recording_duration: 15,
      viewed: false
    })
    expect(carol.size).toBeGreaterThan(2_000_000)
    // Each request is cut into chunks of at most a megabyte.
    expect(carol.message_count).toBeGreaterThanOrEqual(3)
  })

  it("lists recordings newest first with their metadata and person, page by page", async () => {
    expect(await ids()).toEqual(["s-carol", "s-bob", "s-alice"])
    const page = (await send("GET", "/session_recordings/?limit=2&offset=1")).json
    expect(page).toMatchObject({ has_next: false, version: 4 })
    expect(page.results.map((r: { id: string }) => r.id)).toEqual(["s-bob", "s-alice"])
    expect((await send("GET", "/session_recordings/?limit=1")).json.has_next).toBe(true)
    const alice = (await send("GET", "/session_recordings/s-alice/")).json
    expect(alice).toMatchObject({
      id: "s-alice",
      distinct_id: "alice",
      start_time: new Date(T0).toISOString(),
      end_time: new Date(T0 + 120 * SECOND).toISOString(),
      recording_duration: 120,
      active_seconds: 2,
      inactive_seconds: 118,
      click_count: 3,
      keypress_count: 0,
      mouse_activity_count: 3,
      start_url: "https://shop.test/a",
      event_count: 7,
      snapshot_source: "web",
      person: { distinct_ids: ["alice"], properties: { email: "alice@corp.test" } }
    })
    expect((await send("GET", "/session_recordings/s-bob/")).json).toMatchObject({
      keypress_count: 2,
      person: { properties: { email: "bob@home.test" } }
    })
  })

  it("filters by date, duration, events performed, person properties and person", async () => {
    expect(await ids(q({ duration: [{ type: "recording", key: "duration", operator: "gt", value: 60 }] }))).toEqual([
      "s-alice"
    ])
    expect(await ids(q({ session_recording_duration: { key: "duration", operator: "lt", value: 20 } }))).toEqual([
      "s-carol",
      "s-bob"
    ])
    expect(await ids(q({ duration: [{ key: "active_seconds", operator: "gte", value: 2 }] }))).toEqual(["s-alice"])
    expect(
      await ids(
        q({ date_from: new Date(T0 + 30 * SECOND).toISOString(), date_to: new Date(T0 + 65 * SECOND).toISOString() })
      )
    ).toEqual(["s-carol", "s-bob"])
    expect(await ids(q({ events: [{ id: "purchase", type: "events" }] }))).toEqual(["s-alice"])
    expect(
      await ids(
        q({
          events: [
            {
              id: "$pageview",
              type: "events",
              properties: [{ key: "$host", value: "localhost", operator: "icontains", type: "event" }]
            }
          ]
        })
      )
    ).toEqual(["s-bob"])
    expect(await ids(q({ events: [{ id: null, type: "events" }] }))).toEqual(["s-bob", "s-alice"])
    expect(
      await ids(q({ properties: [{ key: "email", value: "corp.test", operator: "icontains", type: "person" }] }))
    ).toEqual(["s-alice"])
    const alice = (await send("GET", "/session_recordings/s-alice/")).json.person.uuid
    expect(await ids(q({ person_uuid: alice }))).toEqual(["s-alice"])
    expect(
      await ids(
        q({
          filter_group: {
            type: "OR",
            values: [
              { type: "AND", values: [{ type: "events", id: "purchase" }] },
              { type: "AND", values: [{ type: "recording", key: "duration", operator: "exact", value: 15 }] }
            ]
          }
        })
      )
    ).toEqual(["s-carol", "s-alice"])
    expect(await ids(q({ order: "click_count", order_direction: "DESC", limit: "1" }))).toEqual(["s-alice"])
  })

  it("leaves out test accounts as the project's test_account_filters say", async () => {
    expect(await ids(q({ filter_test_accounts: "true" }))).toEqual(["s-carol", "s-bob", "s-alice"])
    const patched = await call(zed, "/api/projects/1/", {
      method: "PATCH",
      body: JSON.stringify({
        test_account_filters: [
          { key: "$host", value: "^localhost", operator: "not_regex", type: "event" },
          { key: "email", value: "@home.test", operator: "not_icontains", type: "person" }
        ]
      })
    })
    expect(patched.status, patched.text).toBe(200)
    expect(patched.json.test_account_filters).toHaveLength(2)
    // Carol's session has no event to tell: only sessions with a matching event remain.
    expect(await ids(q({ filter_test_accounts: "true" }))).toEqual(["s-alice"])
    expect(await ids(q({ filter_test_accounts: "false" }))).toEqual(["s-carol", "s-bob", "s-alice"])
    expect(
      (
        await call(zed, "/api/projects/1/", {
          method: "PATCH",
          body: JSON.stringify({ test_account_filters: [{ key: "$host", operator: "near", type: "event" }] })
        })
      ).json
    ).toMatchObject({ type: "validation_error", attr: "test_account_filters__0__operator" })
  })

  it.each([
    ["bad JSON", "?duration=[{", "duration"],
    ["an unknown parameter", "?kind=RecordingsQuery", "kind"],
    [
      "an unknown operator",
      q({ properties: [{ key: "email", value: "x", operator: "near", type: "person" }] }),
      "properties__0__operator"
    ],
    ["an unknown duration key", q({ duration: [{ key: "length", operator: "gt", value: 1 }] }), "duration__0__key"],
    ["action filters", q({ actions: [{ id: 1 }] }), "actions"],
    [
      "a property filter of another type",
      q({ properties: [{ key: "$browser", value: "x", type: "session" }] }),
      "properties__0__type"
    ],
    [
      "an events filter's property of another type",
      q({ events: [{ id: "$pageview", type: "events", properties: [{ key: "id", value: 2, type: "cohort" }] }] }),
      "events__0__properties__0__type"
    ],
    ["a bad date", q({ date_from: "yesterday" }), "date_from"]
  ])("refuses %s with a 400 naming it", async (_, query, attr) => {
    const res = await send("GET", `/session_recordings/${query}`)
    expect(res.status).toBe(400)
    expect(res.json).toMatchObject({ type: "validation_error", attr })
  })

  it("refuses a payload without session, distinct id or rrweb events, storing nothing of it", async () => {
    for (const body of [
      payload("", "dave", { w: [rr(2, 0)] }),
      payload("s-dave", "", { w: [rr(2, 0)] }),
      [
        ...payload("s-dave", "dave", { w: [rr(2, 0)] }),
        ...payload("s-dave", "dave", { w: [{ type: 2 } as unknown as Rr] })
      ]
    ]) {
      const res = await capture(body)
      expect(res.status).toBe(400)
      expect(res.json).toMatchObject({ type: "validation_error", code: "invalid_payload", attr: null })
    }
    expect((await capture(payload("s-dave", "dave", { w: [rr(2, 0)] }, "phc_unknown_project"))).status).toBe(401)
    expect((await send("GET", "/session_recordings/s-dave/")).status).toBe(404)
  })

  it("replays: sources in order, each blob's rrweb events as sent, ranges; fetching marks it watched", async () => {
    const { sources } = (await send("GET", "/session_recordings/s-carol/snapshots/")).json
    expect(sources.length).toBeGreaterThanOrEqual(3)
    expect(sources[0]).toMatchObject({ source: "blob_v2", start_timestamp: new Date(T0 + 60 * SECOND).toISOString() })
    const blob = async (query: string) => {
      const res = await send("GET", `/session_recordings/s-carol/snapshots/?source=blob_v2&${query}`)
      expect(res.status, res.text).toBe(200)
      return res.text
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l))
    }
    const each = (await Promise.all(sources.map((s: { blob_key: string }) => blob(`blob_key=${s.blob_key}`)))).flat()
    const sent = [...CAROL_FIRST, ...CAROL_SECOND].map((e) => ["w-1", e])
    expect(each).toEqual(sent)
    expect(await blob(`start_blob_key=${sources[0].blob_key}&end_blob_key=${sources.at(-1).blob_key}`)).toEqual(sent)
    expect((await send("GET", "/session_recordings/s-carol/snapshots/?source=blob_v2&blob_key=999999")).status).toBe(
      404
    )
    expect(
      (
        await send(
          "GET",
          `/session_recordings/s-carol/snapshots/?source=blob_v2&start_blob_key=${sources.at(-1).blob_key}&end_blob_key=${sources[0].blob_key}`
        )
      ).json
    ).toMatchObject({ attr: "end_blob_key" })
    expect((await send("GET", "/session_recordings/s-carol/")).json.viewed).toBe(true)
    expect((await send("GET", "/session_recordings/s-bob/")).json.viewed).toBe(false)
  })

  it("links recordings to sessions in ZedQL", async () => {
    const res = await postQuery(
      zed,
      1,
      zedqlRequest(
        "SELECT session_id, recording.click_count, recording.first_url FROM sessions WHERE session_id IN ('s-alice', 's-bob') ORDER BY session_id"
      )
    )
    expect(res.json.results).toEqual([
      ["s-alice", 3, "https://shop.test/a"],
      ["s-bob", 0, "http://localhost:3000/"]
    ])
    const replay = await postQuery(
      zed,
      1,
      zedqlRequest(
        "SELECT session_id, session.$pageview_count, pdi.person.properties.email FROM session_replay_events ORDER BY session_id"
      )
    )
    expect(replay.json.results).toEqual([
      ["s-alice", 1, "alice@corp.test"],
      ["s-bob", 1, "bob@home.test"],
      ["s-carol", null, null]
    ])
  })

  it("deletes a recording: its metadata and snapshots are gone, its events stay", async () => {
    expect((await send("DELETE", "/session_recordings/s-bob/")).status).toBe(204)
    expect((await send("GET", "/session_recordings/s-bob/")).status).toBe(404)
    expect((await send("GET", "/session_recordings/s-bob/snapshots/")).status).toBe(404)
    expect((await send("DELETE", "/session_recordings/s-bob/")).status).toBe(404)
    expect(await ids()).toEqual(["s-carol", "s-alice"])
    expect(
      (await postQuery(zed, 1, zedqlRequest("SELECT count() FROM events WHERE $session_id = 's-bob'"))).json.results
    ).toEqual([[1]])
  })
})
