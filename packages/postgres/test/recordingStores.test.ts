import { describe, expect, it } from "@effect/vitest"
import {
  type ChunkSummary,
  type NewChunk,
  type NewPlaylist,
  PlaylistStore,
  RecordingStore,
  Transactor
} from "@zed/core/storage"
import { Effect, Option } from "effect"
import { backends as storageBackends, suiteStorage } from "./backends.js"

// The recording store (chunks folded into per-session metadata, views) and the playlist store,
// alike on every backend.

const backends = storageBackends("recordings")

const at = (ms: number) => new Date(Date.UTC(2024, 0, 1) + ms)
const bytes = (key: string) => new Uint8Array([0x1f, 0x8b, 0, 255, 128, ...new TextEncoder().encode(key)])

const chunk = (
  sessionId: string,
  key: string,
  summary: Partial<ChunkSummary> = {},
  fields: Partial<NewChunk> = {}
): NewChunk => ({
  sessionId,
  key,
  distinctId: "user-1",
  source: "web",
  library: "web",
  data: bytes(key),
  summary: {
    firstTimestamp: at(0),
    lastTimestamp: at(1_000),
    eventCount: 1,
    bytes: 10,
    clickCount: 0,
    keypressCount: 0,
    mouseActivityCount: 0,
    consoleLogCount: 0,
    consoleWarnCount: 0,
    consoleErrorCount: 0,
    activeMs: 0,
    firstActive: null,
    lastActive: null,
    firstUrl: null,
    ...summary
  },
  ...fields
})

const playlist = (short_id: string, fields: Partial<NewPlaylist> = {}): NewPlaylist => ({
  short_id,
  name: `Playlist ${short_id}`,
  derived_name: null,
  description: "",
  pinned: false,
  deleted: false,
  filters: null,
  type: "collection",
  created_by: 1,
  ...fields
})

const tick = () => new Promise((r) => setTimeout(r, 5))

describe.each(Object.keys(backends))("%s", (name) => {
  const suite = suiteStorage(backends[name]!)
  const { run } = suite
  const recordings = () => run(RecordingStore)
  const playlists = () => run(PlaylistStore)

  it("append folds each chunk into the session's metadata, once per key, whatever the order of arrival", async () => {
    const s = await recordings()
    const appended = await run(
      Effect.forEach(
        [
          chunk(
            "fold",
            "a",
            {
              firstTimestamp: at(10_000),
              lastTimestamp: at(20_000),
              eventCount: 5,
              bytes: 100,
              clickCount: 2,
              keypressCount: 1,
              mouseActivityCount: 3,
              consoleLogCount: 1,
              consoleWarnCount: 2,
              consoleErrorCount: 0,
              activeMs: 4_000,
              firstActive: at(11_000),
              lastActive: at(19_000),
              firstUrl: { url: "https://x.test/b", at: at(10_500) }
            },
            { distinctId: "first" }
          ),
          // 3 s after the last interaction: the gap is active time.
          chunk(
            "fold",
            "b",
            {
              firstTimestamp: at(21_000),
              lastTimestamp: at(30_000),
              eventCount: 7,
              bytes: 200,
              clickCount: 1,
              consoleErrorCount: 4,
              activeMs: 3_000,
              firstActive: at(22_000),
              lastActive: at(29_000),
              firstUrl: { url: "https://x.test/c", at: at(21_000) }
            },
            { distinctId: "second", source: "mobile", library: null }
          ),
          // Late, and earlier than everything: widens the start and takes the first URL, but joins no activity.
          chunk("fold", "c", {
            firstTimestamp: at(1_000),
            lastTimestamp: at(9_000),
            eventCount: 2,
            bytes: 50,
            keypressCount: 6,
            activeMs: 2_000,
            firstActive: at(2_000),
            lastActive: at(8_000),
            firstUrl: { url: "https://x.test/a", at: at(1_500) }
          }),
          // Exactly the threshold after the last interaction: not joined.
          chunk("fold", "d", {
            firstTimestamp: at(40_000),
            lastTimestamp: at(50_000),
            bytes: 30,
            activeMs: 1_000,
            firstActive: at(34_000),
            lastActive: at(45_000)
          }),
          // No interaction: the last one stays.
          chunk("fold", "e", {
            firstTimestamp: at(40_000),
            lastTimestamp: at(41_000),
            bytes: 5,
            mouseActivityCount: 9
          }),
          // Just under the threshold: joined.
          chunk("fold", "f", {
            firstTimestamp: at(48_000),
            lastTimestamp: at(52_000),
            bytes: 1,
            activeMs: 500,
            firstActive: at(49_999),
            lastActive: at(50_500)
          })
        ],
        (c) => s.append(1, c)
      )
    )
    expect(appended).toEqual([true, true, true, true, true, true])

    const meta = Option.getOrThrow(await run(s.get(1, "fold")))
    expect(meta).toMatchObject({
      session_id: "fold",
      distinct_id: "first",
      start_time: at(1_000),
      end_time: at(52_000),
      active_ms: 4_000 + (3_000 + 3_000) + 2_000 + 1_000 + (500 + 4_999),
      last_active: at(50_500),
      first_url: "https://x.test/a",
      first_url_at: at(1_500),
      click_count: 3,
      keypress_count: 7,
      mouse_activity_count: 12,
      console_log_count: 1,
      console_warn_count: 2,
      console_error_count: 4,
      size: 386,
      message_count: 6,
      event_count: 17,
      snapshot_source: "web",
      snapshot_library: "web"
    })
    expect(meta.created_at).toBeInstanceOf(Date)
    expect(typeof meta.active_ms).toBe("number")
    expect(typeof meta.size).toBe("number")

    // A retry, even with a different summary, changes nothing.
    expect(await run(s.append(1, chunk("fold", "b", { bytes: 9_999, clickCount: 50, firstTimestamp: at(0) })))).toBe(
      false
    )
    expect(Option.getOrThrow(await run(s.get(1, "fold")))).toEqual(meta)

    // Replay order: first timestamp, then seq (d and e start together).
    const chunks = await run(s.chunks(1, "fold"))
    const seq = (index: number) => chunks[index]!.seq
    expect(chunks.map((c) => c.firstTimestamp)).toEqual([
      at(1_000),
      at(10_000),
      at(21_000),
      at(40_000),
      at(40_000),
      at(48_000)
    ])
    expect(chunks.map((c) => [c.eventCount, c.bytes])).toEqual([
      [2, 50],
      [5, 100],
      [7, 200],
      [1, 30],
      [1, 5],
      [1, 1]
    ])
    expect(chunks[0]!.lastTimestamp).toEqual(at(9_000))
    expect(seq(3)).toBeLessThan(seq(4))
    // Seqs grow in order of arrival: c came after a and b.
    expect(seq(1)).toBeLessThan(seq(2))
    expect(seq(2)).toBeLessThan(seq(0))
    expect(chunks.every((c) => typeof c.seq === "number")).toBe(true)

    const data = await run(s.chunkData(1, "fold", [seq(5), 999_999_999, seq(1)]))
    expect(data.map((d) => d.seq)).toEqual([seq(5), seq(1)])
    expect(data[0]!.data).toBeInstanceOf(Uint8Array)
    expect(Array.from(data[0]!.data)).toEqual(Array.from(bytes("f")))
    expect(Array.from(data[1]!.data)).toEqual(Array.from(bytes("a")))
    expect(await run(s.chunkData(1, "other-session", [seq(1)]))).toEqual([])
    expect(await run(s.chunkData(suite.other, "fold", [seq(1)]))).toEqual([])
    expect(await run(s.chunkData(1, "fold", []))).toEqual([])
  })

  it("an append in a failed transaction leaves nothing behind", async () => {
    const s = await recordings()
    const failed = await suite.runExit(
      Effect.flatMap(Transactor, (t) =>
        t.transaction(Effect.zipRight(s.append(1, chunk("rolled", "k")), Effect.fail("boom")))
      )
    )
    expect(failed._tag).toBe("Failure")
    expect(Option.isNone(await run(s.get(1, "rolled")))).toBe(true)
    expect(await run(s.chunks(1, "rolled"))).toEqual([])
    expect(await run(s.append(1, chunk("rolled", "k")))).toBe(true)
    expect(Option.getOrThrow(await run(s.get(1, "rolled"))).message_count).toBe(1)
  })

  it("playlists: create, get, list with every filter, order and page", async () => {
    const p = await playlists()
    const a = await run(p.create(1, playlist("AAAAAAAA", { name: "Favourites", pinned: true })))
    await tick()
    const b = await run(
      p.create(
        1,
        playlist("BBBBBBBB", {
          name: null,
          derived_name: "Chrome users",
          type: "filters",
          filters: { date_from: "-7d" },
          created_by: null
        })
      )
    )
    await tick()
    const c = await run(p.create(1, playlist("CCCCCCCC", { name: "browse", description: "mine" })))
    await tick()
    const e = await run(
      p.create(
        1,
        playlist("EEEEEEEE", { name: "Favourites", type: "filters", filters: { events: [] }, created_by: null })
      )
    )
    await run(p.create(1, playlist("DDDDDDDD", { deleted: true })))
    const elsewhere = await run(p.create(suite.other, playlist("AAAAAAAA")))
    expect(a).toMatchObject({
      short_id: "AAAAAAAA",
      name: "Favourites",
      pinned: true,
      filters: null,
      type: "collection",
      created_by: 1,
      last_modified_by: 1,
      filters_count: null,
      filters_counted_at: null
    })
    expect(b).toMatchObject({
      name: null,
      derived_name: "Chrome users",
      filters: { date_from: "-7d" },
      created_by: null,
      last_modified_by: null
    })
    expect(c.description).toBe("mine")
    expect(Option.getOrThrow(await run(p.get(1, "AAAAAAAA")))).toEqual(a)
    expect(Option.getOrThrow(await run(p.get(suite.other, "AAAAAAAA"))).id).toBe(elsewhere.id)
    expect(Option.isNone(await run(p.get(suite.other, "BBBBBBBB")))).toBe(true)
    expect(Option.isNone(await run(p.get(1, "DDDDDDDD")))).toBe(true)
    expect(Option.getOrThrow(await run(p.get(1, "DDDDDDDD", true))).deleted).toBe(true)

    await run(p.addItem(a.id, "rec-1"))
    await run(p.addItem(c.id, "rec-1"))
    await run(p.removeItem(c.id, "rec-1"))

    const ids = async (query: Partial<Parameters<typeof p.list>[1]>) =>
      (await run(p.list(1, { order: "-last_modified_at", limit: 100, offset: 0, ...query }))).results.map((x) => x.id)
    expect(await ids({})).toEqual([e.id, c.id, b.id, a.id])
    expect(await ids({ created_by: 1 })).toEqual([c.id, a.id])
    expect(await ids({ short_id: "BBBBBBBB" })).toEqual([b.id])
    expect(await ids({ type: "filters" })).toEqual([e.id, b.id])
    expect(await ids({ type: "collection" })).toEqual([c.id, a.id])
    expect(await ids({ pinned: true })).toEqual([a.id])
    expect(await ids({ pinned: false })).toEqual([e.id, c.id, b.id])
    expect(await ids({ search: "CHROME" })).toEqual([b.id])
    expect(await ids({ search: "fav" })).toEqual([e.id, a.id])
    // Bounds are exclusive. A stored time may hold microseconds its Date lost: one millisecond later is past it.
    const justAfter = (d: Date) => new Date(d.getTime() + 1)
    expect(await ids({ modified_after: justAfter(b.last_modified_at) })).toEqual([e.id, c.id])
    expect(await ids({ modified_before: b.last_modified_at })).toEqual([a.id])
    expect(await ids({ modified_after: justAfter(a.last_modified_at), modified_before: c.last_modified_at })).toEqual([
      b.id
    ])
    expect(await ids({ session_recording_id: "rec-1" })).toEqual([a.id])
    expect(await ids({ session_recording_id: "rec-2" })).toEqual([])

    expect(await ids({ order: "last_modified_at" })).toEqual([a.id, b.id, c.id, e.id])
    expect(await ids({ order: "created_at" })).toEqual([a.id, b.id, c.id, e.id])
    expect(await ids({ order: "-created_at" })).toEqual([e.id, c.id, b.id, a.id])
    // By code point ("F" before "b"), no name last; equal names by id, newest first.
    expect(await ids({ order: "name" })).toEqual([e.id, a.id, c.id, b.id])
    expect(await ids({ order: "-name" })).toEqual([b.id, c.id, e.id, a.id])

    const second = await run(p.list(1, { order: "-last_modified_at", limit: 2, offset: 1 }))
    expect(second.count).toBe(4)
    expect(second.results.map((x) => x.id)).toEqual([c.id, b.id])
  })

  it("playlists: only a material update moves last_modified; soft delete and restore", async () => {
    const p = await playlists()
    const c = await run(p.create(1, playlist("UPDATEUP")))
    await tick()
    const quiet = Option.getOrThrow(
      await run(p.update(1, "UPDATEUP", { pinned: true, last_modified_by: null, material: false }))
    )
    expect(quiet).toMatchObject({ pinned: true, last_modified_by: 1 })
    expect(quiet.last_modified_at).toEqual(c.last_modified_at)

    const loud = Option.getOrThrow(
      await run(
        p.update(1, "UPDATEUP", {
          name: null,
          derived_name: "Derived",
          description: "about",
          filters: { date_from: "-3d" },
          last_modified_by: null,
          material: true
        })
      )
    )
    expect(loud).toMatchObject({
      name: null,
      derived_name: "Derived",
      description: "about",
      filters: { date_from: "-3d" },
      pinned: true,
      last_modified_by: null
    })
    expect(loud.last_modified_at.getTime()).toBeGreaterThan(c.last_modified_at.getTime())
    expect(loud.created_at).toEqual(c.created_at)

    const cleared = Option.getOrThrow(
      await run(p.update(1, "UPDATEUP", { filters: null, last_modified_by: 1, material: false }))
    )
    expect(cleared).toMatchObject({ filters: null, last_modified_by: null, last_modified_at: loud.last_modified_at })
    expect(Option.getOrThrow(await run(p.update(1, "UPDATEUP", { last_modified_by: 1, material: false })))).toEqual(
      cleared
    )
    expect(
      Option.isNone(
        await run(p.update(suite.other, "UPDATEUP", { pinned: false, last_modified_by: 1, material: false }))
      )
    ).toBe(true)
    expect(
      Option.isNone(await run(p.update(1, "NOTTHERE", { pinned: false, last_modified_by: 1, material: false })))
    ).toBe(true)

    await run(p.update(1, "UPDATEUP", { deleted: true, last_modified_by: 1, material: false }))
    expect(Option.isNone(await run(p.get(1, "UPDATEUP")))).toBe(true)
    expect(await run(p.list(1, { order: "-last_modified_at", limit: 100, offset: 0, short_id: "UPDATEUP" }))).toEqual({
      count: 0,
      results: []
    })
    const restored = Option.getOrThrow(
      await run(p.update(1, "UPDATEUP", { deleted: false, last_modified_by: 1, material: false }))
    )
    expect(Option.getOrThrow(await run(p.get(1, "UPDATEUP")))).toEqual(restored)
  })

  it("playlist items: pin once, unpin, pin again as a new pin; counts; saved filters' count", async () => {
    const p = await playlists()
    const list = await run(p.create(1, playlist("ITEMSITE")))
    const emptied = await run(p.create(1, playlist("EMPTIEDE")))
    const untouched = await run(p.create(1, playlist("UNTOUCHE")))
    const sessions = async () => (await run(p.items(list.id))).map((i) => i.session_id)

    await run(p.addItem(list.id, "s1"))
    await tick()
    await run(p.addItem(list.id, "s2"))
    const [first] = await run(p.items(list.id))
    await run(p.addItem(list.id, "s1"))
    expect(await run(p.items(list.id))).toEqual([first, expect.objectContaining({ session_id: "s2" })])

    expect(await run(p.removeItem(list.id, "s1"))).toBe(true)
    expect(await run(p.removeItem(list.id, "s1"))).toBe(false)
    expect(await run(p.removeItem(list.id, "never"))).toBe(false)
    expect(await sessions()).toEqual(["s2"])
    await tick()
    await run(p.addItem(list.id, "s1"))
    const repinned = (await run(p.items(list.id)))[1]!
    expect(repinned.session_id).toBe("s1")
    expect(repinned.created_at.getTime()).toBeGreaterThan(first!.created_at.getTime())

    // Pins of one transaction keep their order.
    await run(
      Effect.flatMap(Transactor, (t) => t.transaction(Effect.forEach(["s5", "s3", "s4"], (s) => p.addItem(list.id, s))))
    )
    expect(await sessions()).toEqual(["s2", "s1", "s5", "s3", "s4"])

    await run(p.addItem(emptied.id, "s1"))
    await run(p.removeItem(emptied.id, "s1"))
    expect(await run(p.items(emptied.id))).toEqual([])
    expect(await run(p.items(untouched.id))).toEqual([])

    const countedAt = new Date("2024-03-01T12:00:00.123Z")
    await run(p.saveFiltersCount(list.id, 12, countedAt))
    const saved = Option.getOrThrow(await run(p.get(1, "ITEMSITE")))
    expect(saved).toMatchObject({ filters_count: 12, filters_counted_at: countedAt })
    expect(saved.last_modified_at).toEqual(list.last_modified_at)
  })

  it("getMany, views and remove, kept apart by project; removing keeps playlist pins", async () => {
    const s = await recordings()
    await run(s.append(1, chunk("two", "k", { clickCount: 1 })))
    await run(s.append(1, chunk("three", "k")))
    await run(s.append(suite.other, chunk("two", "k", { clickCount: 8 })))
    expect((await run(s.getMany(1, ["two", "missing", "three"]))).map((m) => m.session_id).sort()).toEqual([
      "three",
      "two"
    ])
    expect(await run(s.getMany(1, []))).toEqual([])
    expect((await run(s.getMany(suite.other, ["two", "three"]))).map((m) => [m.session_id, m.click_count])).toEqual([
      ["two", 8]
    ])

    await run(s.markViewed(1, "two", 1))
    await run(s.markViewed(1, "two", 1))
    await run(s.markViewed(suite.other, "three", 1))
    expect([...(await run(s.viewed(1, 1, ["two", "three", "missing"])))]).toEqual(["two"])
    expect([...(await run(s.viewed(suite.other, 1, ["two", "three"])))]).toEqual(["three"])
    expect((await run(s.viewed(1, 1, []))).size).toBe(0)

    const p = await playlists()
    const pins = await run(p.create(1, playlist("PINSPINS")))
    await run(p.addItem(pins.id, "two"))

    expect(await run(s.remove(1, "two"))).toBe(true)
    expect(Option.isNone(await run(s.get(1, "two")))).toBe(true)
    expect(await run(s.chunks(1, "two"))).toEqual([])
    expect((await run(s.viewed(1, 1, ["two"]))).size).toBe(0)
    expect(await run(s.remove(1, "two"))).toBe(false)
    expect((await run(p.items(pins.id))).map((i) => i.session_id)).toEqual(["two"])
    expect(Option.getOrThrow(await run(s.get(suite.other, "two"))).click_count).toBe(8)
    expect(await run(s.chunks(suite.other, "two"))).toHaveLength(1)
    expect(Option.isSome(await run(s.get(1, "three")))).toBe(true)
    // The chunk's key is free again: the session starts over.
    expect(await run(s.append(1, chunk("two", "k", { clickCount: 2 })))).toBe(true)
    expect(Option.getOrThrow(await run(s.get(1, "two")))).toMatchObject({ click_count: 2, message_count: 1 })
  })
})
