import { gunzipSync } from "node:zlib"
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { toChunks } from "../src/recordings/chunks.js"
import { parseSnapshots, type SnapshotBatch } from "../src/recordings/payload.js"
import type { RrwebEvent } from "../src/recordings/rrweb.js"
import { summarize } from "../src/recordings/summary.js"

// The recording domain without I/O: what `/s/` accepts, what a chunk adds to a recording's
// metadata, and how a request's rrweb events are cut into stored chunks.

const T0 = Date.UTC(2026, 0, 5, 10)
const rr = (type: number, at: number, data: unknown = {}): RrwebEvent => ({ type, timestamp: T0 + at, data })
const snapshot = (data: unknown, properties: Record<string, unknown> = {}) => ({
  uuid: "0190e1c2-0000-7000-8000-000000000001",
  event: "$snapshot",
  properties: {
    token: "phc_x",
    distinct_id: "user-1",
    $session_id: "s-1",
    $window_id: "w-1",
    $snapshot_data: data,
    $lib: "web",
    ...properties
  }
})

describe("parseSnapshots", () => {
  it("takes $snapshot_data arrays and single objects, with each item's window", () => {
    const parsed = parseSnapshots([
      snapshot([rr(4, 0, { href: "https://a.test/" }), { ...rr(2, 1), $window_id: "w-2" }]),
      snapshot(rr(3, 2, { source: 1 }), { $window_id: undefined })
    ])
    expect(parsed).toEqual({
      _tag: "Snapshots",
      batch: {
        sessionId: "s-1",
        distinctId: "user-1",
        source: "web",
        library: "web",
        items: [
          { windowId: "w-1", event: rr(4, 0, { href: "https://a.test/" }) },
          { windowId: "w-2", event: { ...rr(2, 1), $window_id: "w-2" } },
          { windowId: "s-1", event: rr(3, 2, { source: 1 }) }
        ]
      }
    })
  })

  it("takes mobile $snapshot_items and the sender's $snapshot_source", () => {
    const parsed = parseSnapshots([
      {
        event: "$snapshot_items",
        properties: { distinct_id: 7, $session_id: "m", $snapshot_items: [rr(2, 0)], $snapshot_source: "mobile" }
      }
    ])
    expect(parsed).toMatchObject({
      _tag: "Snapshots",
      batch: { distinctId: "7", source: "mobile", library: null, items: [{ windowId: "m" }] }
    })
  })

  it.each([
    ["no session id", [snapshot([rr(2, 0)], { $session_id: undefined })], "$session_id is required"],
    ["a session id over 100 characters", [snapshot([rr(2, 0)], { $session_id: "s".repeat(101) })], "longer than 100"],
    [
      "two sessions in one request",
      [snapshot([rr(2, 0)]), snapshot([rr(2, 1)], { $session_id: "s-2" })],
      "same $session_id"
    ],
    ["no distinct id", [snapshot([rr(2, 0)], { distinct_id: undefined })], "distinct_id is required"],
    [
      "an analytics event",
      [snapshot([rr(2, 0)]), { ...snapshot([rr(2, 0)]), event: "$pageview" }],
      "only $snapshot events"
    ],
    ["no snapshot data", [snapshot(undefined)], "$snapshot_data must hold rrweb events"],
    ["an item without a timestamp", [snapshot([{ type: 2 }])], "$snapshot_data[0] is not an rrweb event"],
    [
      "an item with a text type",
      [snapshot([rr(2, 0), { type: "2", timestamp: T0 }])],
      "$snapshot_data[1] is not an rrweb event"
    ],
    ["no item at all", [snapshot([])], "no rrweb event"]
  ])("refuses %s", (_, events, detail) => {
    const parsed = parseSnapshots(events)
    expect(parsed._tag).toBe("Invalid")
    expect(parsed._tag === "Invalid" && parsed.detail).toContain(detail)
  })
})

describe("summarize", () => {
  it("counts clicks, key presses, mouse activity and console levels; takes the first URL", () => {
    const summary = summarize(
      [
        rr(4, 0, { href: "https://a.test/start" }),
        rr(2, 10),
        rr(3, 100, { source: 1, positions: [] }),
        rr(3, 200, { source: 2, type: 2 }), // click
        rr(3, 300, { source: 2, type: 4 }), // double click
        rr(3, 400, { source: 2, type: 1 }), // mouse down: activity, not a click
        rr(3, 500, { source: 5, text: "a" }),
        rr(3, 600, { source: 0, adds: [] }), // mutation: no interaction
        rr(6, 700, { plugin: "rrweb/console@1", payload: { level: "log" } }),
        rr(6, 800, { plugin: "rrweb/console@1", payload: { level: "warn" } }),
        rr(6, 900, { plugin: "rrweb/console@1", payload: { level: "error" } }),
        rr(6, 950, { plugin: "rrweb/network@1", payload: { level: "error" } }),
        rr(4, 1000, { href: "https://a.test/next" })
      ],
      1234
    )
    expect(summary).toEqual({
      firstTimestamp: new Date(T0),
      lastTimestamp: new Date(T0 + 1000),
      eventCount: 13,
      bytes: 1234,
      clickCount: 2,
      keypressCount: 1,
      mouseActivityCount: 4,
      consoleLogCount: 1,
      consoleWarnCount: 1,
      consoleErrorCount: 1,
      activeMs: 400,
      firstActive: new Date(T0 + 100),
      lastActive: new Date(T0 + 500),
      firstUrl: { url: "https://a.test/start", at: new Date(T0) }
    })
  })

  it("counts as active only the gaps between interactions shorter than five seconds", () => {
    const summary = summarize(
      [
        rr(3, 0, { source: 3 }),
        rr(3, 4_000, { source: 3 }),
        rr(3, 20_000, { source: 1 }),
        rr(3, 24_999, { source: 5 }),
        rr(3, 30_000, { source: 4 })
      ],
      1
    )
    expect(summary.activeMs).toBe(4_000 + 4_999)
  })
})

const batchOf = (events: ReadonlyArray<RrwebEvent>): SnapshotBatch => ({
  sessionId: "s-1",
  distinctId: "u",
  source: "web",
  library: "web",
  items: events.map((event, i) => ({ windowId: `w-${i % 2}`, event }))
})

const lines = (data: Uint8Array) =>
  gunzipSync(data)
    .toString("utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l))

describe("toChunks", () => {
  const arbitraryEvents = fc.array(
    fc.record({
      type: fc.integer({ min: 0, max: 6 }),
      timestamp: fc.integer({ min: T0, max: T0 + 3_600_000 }),
      data: fc.record({ source: fc.integer({ min: 0, max: 12 }), text: fc.string({ maxLength: 300, unit: "binary" }) })
    }),
    { minLength: 1, maxLength: 200 }
  )

  it("keeps every event, once, in timestamp order (ties as sent), in chunks of bounded size", () => {
    fc.assert(
      fc.property(arbitraryEvents, fc.integer({ min: 200, max: 5_000 }), (events, bound) => {
        const chunks = toChunks(batchOf(events), bound)
        const stored = chunks.flatMap((c) => lines(c.data))
        const expected = batchOf(events)
          .items.map((item, i) => ({ item, i }))
          .sort((a, b) => a.item.event.timestamp - b.item.event.timestamp || a.i - b.i)
          .map(({ item }) => [item.windowId, item.event])
        expect(stored).toEqual(expected)
        for (const chunk of chunks) {
          const raw = gunzipSync(chunk.data)
          // Past the bound only when one line alone is bigger.
          expect(raw.length <= bound || lines(chunk.data).length === 1).toBe(true)
          expect(chunk.summary.bytes).toBe(raw.length)
          expect(chunk.summary.eventCount).toBe(lines(chunk.data).length)
        }
        expect(chunks.reduce((n, c) => n + c.summary.eventCount, 0)).toBe(events.length)
      })
    )
  })

  it("names chunks by their content: the same request makes the same keys, another request others", () => {
    const events = [
      rr(4, 0, { href: "https://a.test/" }),
      rr(2, 5, { node: { id: 1 } }),
      rr(3, 9, { source: 2, type: 2 })
    ]
    const keys = (e: ReadonlyArray<RrwebEvent>) => toChunks(batchOf(e), 60).map((c) => c.key)
    expect(keys(events)).toHaveLength(3)
    expect(keys(events)).toEqual(keys(events))
    expect(new Set(keys(events)).size).toBe(3)
    expect(keys([...events.slice(0, 2), rr(3, 9, { source: 2, type: 4 })])[2]).not.toBe(keys(events)[2])
  })
})
