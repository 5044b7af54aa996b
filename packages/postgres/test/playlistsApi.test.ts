import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { InsightStore, UserStore, uuidv7 } from "@zed/core/storage"
import { Effect } from "effect"
import { ADMIN_KEY, call, importEvents, PROJECT_KEY, snapshotPayload } from "../../core/test/support.js"
import { backends } from "./backends.js"

// Session recording playlists through HTTP on real stores, over recordings sent to `/s/` as
// posthog-js sends them and analytics events sent to `/batch/`: collections of pinned recordings,
// saved filters counted live (duration, events, person properties), and what the caller watched.

const MINUTE = 60_000
const START = Date.now() - 60 * MINUTE

/** rrweb events of a session lasting `seconds`: a Meta with the page, then clicks at both ends. */
const rrweb = (start: number, seconds: number) => [
  { type: 4, data: { href: "https://example.com/start", width: 1280, height: 720 }, timestamp: start },
  { type: 3, data: { source: 2, type: 2, id: 1, x: 10, y: 10 }, timestamp: start + 500 },
  { type: 3, data: { source: 2, type: 2, id: 1, x: 20, y: 20 }, timestamp: start + seconds * 1000 }
]

/** Sessions, their people and lengths; alice's buys and has plan "pro". */
const SESSIONS = {
  long: { person: "alice", seconds: 120 },
  short: { person: "bob", seconds: 10 },
  mid: { person: "carol", seconds: 60 }
} as const

describe.each(["pglite", "postgres"])("%s session recording playlists", (name) => {
  let zed: Zed
  let cleanup: () => Promise<void>
  const sid = (key: string) => `${name}-session-${key}`

  const record = async (sessionId: string, distinctId: string, start: number, seconds: number) => {
    const payload = snapshotPayload(sessionId, distinctId, { "window-1": rrweb(start, seconds) })
    const res = await call(zed, "/s/?compression=none&ver=1.0.0", {
      method: "POST",
      key: null,
      body: JSON.stringify(payload)
    })
    if (res.status !== 200) throw new Error(`/s/ answered ${res.status}: ${res.text}`)
  }

  beforeAll(async () => {
    const backend = await backends("playlists-api")[name]!()
    cleanup = backend.cleanup
    zed = await createZed({
      storage: backend.storage,
      bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY }
    })
    let at = START
    for (const [key, { person, seconds }] of Object.entries(SESSIONS)) {
      await record(sid(key), person, (at += MINUTE * 5), seconds)
    }
    await importEvents(zed, PROJECT_KEY, [
      {
        event: "purchase",
        distinct_id: "alice",
        timestamp: new Date(START + 5 * MINUTE + 1000).toISOString(),
        properties: { $session_id: sid("long"), $set: { plan: "pro" } }
      },
      {
        event: "$pageview",
        distinct_id: "bob",
        timestamp: new Date(START + 10 * MINUTE + 1000).toISOString(),
        properties: { $session_id: sid("short"), $set: { plan: "free" } }
      },
      {
        event: "$pageview",
        distinct_id: "carol",
        timestamp: new Date(START + 15 * MINUTE + 1000).toISOString(),
        properties: { $session_id: sid("mid") }
      }
    ])
  })
  afterAll(async () => {
    await zed.close()
    await cleanup()
  })

  const send = (method: string, path: string, body?: unknown) =>
    call(zed, `/api/environments/1${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) })
  /** The personal key's user, as the store has it. */
  const me = async () => (await zed.run(Effect.flatMap(UserStore, (s) => s.getMany([1]))))[0]!
  const create = async (body: Record<string, unknown>) => {
    const res = await send("POST", "/session_recording_playlists/", body)
    expect(res.status, res.text).toBe(201)
    return res.json
  }
  const counts = async (shortId: string) =>
    (await send("GET", `/session_recording_playlists/${shortId}/`)).json.recordings_counts
  const ids = (page: { results: ReadonlyArray<{ id: string }> }) => page.results.map((r) => r.id)

  it("creates (201), retrieves by short_id, updates, soft-deletes and restores; DELETE is 405", async () => {
    const user = await me()
    const created = await create({ name: "Checkout bugs", description: "To look at", type: "collection" })
    expect(created).toMatchObject({
      name: "Checkout bugs",
      derived_name: null,
      description: "To look at",
      pinned: false,
      deleted: false,
      type: "collection",
      filters: {},
      created_by: { id: user.id, email: user.email, uuid: user.uuid },
      last_modified_by: { id: user.id },
      recordings_counts: {
        collection: { count: null, watched_count: 0 },
        saved_filters: { count: null, watched_count: null, has_more: null, increased: null, last_refreshed_at: null }
      }
    })
    expect(created.short_id).toMatch(/^[A-Za-z0-9]{8}$/)
    const path = `/session_recording_playlists/${created.short_id}/`
    expect((await send("GET", path)).json).toMatchObject({ id: created.id, name: "Checkout bugs" })

    // Pinning is not a material change; renaming is.
    const pinned = (await send("PATCH", path, { pinned: true })).json
    expect(pinned).toMatchObject({ pinned: true, last_modified_at: created.last_modified_at })
    const renamed = (await send("PATCH", path, { name: "Checkout", derived_name: "Checkout flows" })).json
    expect(renamed).toMatchObject({ name: "Checkout", derived_name: "Checkout flows", pinned: true })
    expect(renamed.last_modified_at > created.last_modified_at).toBe(true)

    const removed = await call(zed, `/api/environments/1${path}`, { method: "DELETE" })
    expect(removed.status).toBe(405)
    expect(removed.text).toBe("")
    expect((await send("GET", path)).status).toBe(200)

    expect((await send("PATCH", path, { deleted: true })).json.deleted).toBe(true)
    expect((await send("GET", path)).status).toBe(404)
    expect(ids((await send("GET", "/session_recording_playlists/")).json)).not.toContain(created.id)
    expect((await send("PATCH", path, { name: "Not while deleted" })).status).toBe(404)
    const restored = await send("PATCH", path, { deleted: false })
    expect(restored.json).toMatchObject({ deleted: false, name: "Checkout" })
    expect((await send("GET", path)).status).toBe(200)

    const activity = await zed.run(
      Effect.flatMap(InsightStore, (s) =>
        s.activity(1, "SessionRecordingPlaylist", String(created.id), { limit: 10, offset: 0 })
      )
    )
    expect(activity.results.map((a) => a.activity)).toEqual(["restored", "deleted", "updated", "updated", "created"])
  })

  it("takes the contract's body without a type: saved filters with filters, a collection without", async () => {
    const saved = await send("POST", "/session_recording_playlists/", {
      name: "Long sessions",
      derived_name: "Sessions over a minute",
      description: "From the contract",
      pinned: true,
      deleted: false,
      filters: { date_from: "-7d", duration: [{ type: "recording", key: "duration", operator: "gt", value: 60 }] }
    })
    expect(saved.status).toBe(201)
    expect(saved.json).toMatchObject({
      type: "filters",
      name: "Long sessions",
      derived_name: "Sessions over a minute",
      pinned: true,
      deleted: false
    })
    const pins = await send("POST", "/session_recording_playlists/", {
      name: "Pins",
      derived_name: null,
      description: "",
      pinned: false,
      deleted: false,
      filters: {}
    })
    expect(pins.status).toBe(201)
    expect(pins.json).toMatchObject({ type: "collection", filters: {} })
  })

  it("refuses an unknown type, filters on a collection, empty or bad filters, naming the field", async () => {
    const before = (await send("GET", "/session_recording_playlists/")).json.count
    const refused = async (body: unknown, detail: string, attr: string | null = null) => {
      const res = await send("POST", "/session_recording_playlists/", body)
      expect(res.status).toBe(400)
      expect(res.json).toMatchObject({ type: "validation_error", detail, attr })
    }
    await refused({ name: "x", type: "smart" }, "Must provide a valid playlist type: either filters or collection")
    await refused({ type: "collection", filters: { duration: [] } }, "You cannot create a collection with filters")
    await refused({ type: "filters" }, "You must provide a valid filters when creating a saved filter")
    await refused({ type: "filters", filters: {} }, "You must provide a valid filters when creating a saved filter")
    const bad = await send("POST", "/session_recording_playlists/", {
      type: "filters",
      filters: { duration: [{ type: "recording", key: "duration", operator: "about", value: 5 }] }
    })
    expect(bad.status).toBe(400)
    expect(bad.json.attr).toBe("filters__duration__0__operator")
    const unknown = await send("POST", "/session_recording_playlists/", {
      type: "filters",
      filters: { date_from: "-7d", cohort: 3 }
    })
    expect(unknown.status).toBe(400)
    expect(unknown.json.attr).toBe("filters__cohort")
    expect((await send("GET", "/session_recording_playlists/")).json.count).toBe(before)

    const collection = await create({ name: "Pins", type: "collection" })
    const gain = await send("PATCH", `/session_recording_playlists/${collection.short_id}/`, {
      filters: { date_from: "-7d" }
    })
    expect(gain.status).toBe(400)
    const saved = await create({ name: "Saved", type: "filters", filters: { date_from: "-7d" } })
    const path = `/session_recording_playlists/${saved.short_id}/`
    expect((await send("PATCH", path, { filters: {} })).status).toBe(400)
    const badPatch = await send("PATCH", path, {
      filters: { events: [{ id: "purchase", type: "events", properties: [{ key: "x", operator: "near", value: 1 }] }] }
    })
    expect(badPatch.status).toBe(400)
    expect(badPatch.json.attr).toBe("filters__events__0__properties__0__operator")
    expect((await send("PATCH", path, { type: "collection" })).json).toMatchObject({ attr: "type" })
    expect((await send("GET", path)).json.filters).toEqual({ date_from: "-7d" })
  })

  it("lists with short_id, created_by, user, type, pinned, search, date, session_recording_id and order filters", async () => {
    const user = await me()
    const tag = `${name}-list-${uuidv7()}`
    const a = await create({ name: `${tag} alpha`, type: "collection", pinned: true })
    const b = await create({ name: `${tag} beta`, type: "filters", filters: { date_from: "-30d" } })
    const c = await create({ derived_name: `${tag} gamma`, type: "collection" })
    await send("POST", `/session_recording_playlists/${c.short_id}/recordings/${sid("short")}/`)
    const list = async (query: string) =>
      (await send("GET", `/session_recording_playlists/?search=${encodeURIComponent(tag)}&${query}`)).json

    expect(ids(await list("order=name")).length).toBe(3)
    expect(ids(await list(`short_id=${b.short_id}`))).toEqual([b.short_id].map(() => b.id))
    expect(ids(await list(`created_by=${user.id}`)).length).toBe(3)
    expect(ids(await list(`created_by=${user.id + 1000}`))).toEqual([])
    expect(ids(await list("user=1")).length).toBe(3)
    expect(ids(await list("type=filters"))).toEqual([b.id])
    expect(ids(await list("pinned"))).toEqual([a.id])
    expect(ids(await list(`session_recording_id=${sid("short")}`))).toEqual([c.id])
    expect(ids(await list("date_from=-1d")).length).toBe(3)
    expect(ids(await list(`date_from=${new Date(Date.now() + 3_600_000).toISOString()}`))).toEqual([])
    expect(ids(await list("date_to=-1d"))).toEqual([])
    // Default: most recently modified first.
    expect(ids(await list(""))).toEqual([c.id, b.id, a.id])
    expect(ids(await list("order=created_at"))).toEqual([a.id, b.id, c.id])
    const page = await list("order=created_at&limit=2")
    expect(page).toMatchObject({ count: 3 })
    expect(ids(page)).toEqual([a.id, b.id])
    expect(new URL(page.next).searchParams.get("offset")).toBe("2")
    expect((await send("GET", "/session_recording_playlists/?date_from=yesterday")).json).toMatchObject({
      attr: "date_from"
    })
    expect((await send("GET", "/session_recording_playlists/?type=smart")).status).toBe(400)
  })

  it("pins, lists, unpins and bulk-edits recordings of a collection, counting what the caller watched", async () => {
    const collection = await create({ name: `${name} pins`, type: "collection" })
    const base = `/session_recording_playlists/${collection.short_id}/recordings`
    for (const key of ["long", "short", "ghost"]) {
      expect((await send("POST", `${base}/${sid(key)}/`)).json).toEqual({ success: true })
    }
    expect((await send("POST", `${base}/${sid("long")}/`)).json).toEqual({ success: true })
    const listed = (await send("GET", `${base}/`)).json
    expect(listed).toMatchObject({ has_next: false, version: 4 })
    // The ghost session has no recording (yet): pinned, counted, not listed.
    expect(ids(listed)).toEqual([sid("long"), sid("short")])
    expect(listed.results[0]).toMatchObject({
      distinct_id: "alice",
      recording_duration: 120,
      start_url: "https://example.com/start"
    })
    const watchedBefore = listed.results.filter((r: { viewed: boolean }) => r.viewed).length
    expect(await counts(collection.short_id)).toMatchObject({ collection: { count: 3, watched_count: watchedBefore } })

    const target = listed.results.find((r: { viewed: boolean }) => !r.viewed) ?? listed.results[0]
    expect((await send("GET", `/session_recordings/${target.id}/snapshots`)).status).toBe(200)
    const watched = (await send("GET", `${base}/`)).json.results.filter((r: { viewed: boolean }) => r.viewed).length
    expect(watched).toBe(Math.min(2, watchedBefore + 1))
    expect((await counts(collection.short_id)).collection).toEqual({ count: 3, watched_count: watched })

    expect((await send("DELETE", `${base}/${sid("ghost")}/`)).json).toEqual({ success: true })
    expect((await send("DELETE", `${base}/${sid("ghost")}/`)).status).toBe(404)
    expect((await counts(collection.short_id)).collection.count).toBe(2)

    const added = await send("POST", `${base}/bulk_add/`, { session_recording_ids: [sid("mid"), sid("short")] })
    expect(added.json).toEqual({ success: true, added_count: 2, total_requested: 2 })
    expect(ids((await send("GET", `${base}/`)).json)).toEqual([sid("long"), sid("short"), sid("mid")])
    const deleted = await send("POST", `${base}/bulk_delete/`, {
      session_recording_ids: [sid("mid"), sid("long"), "never-pinned"]
    })
    expect(deleted.json).toEqual({ success: true, deleted_count: 2, total_requested: 3 })
    expect(ids((await send("GET", `${base}/`)).json)).toEqual([sid("short")])
    const tooMany = await send("POST", `${base}/bulk_add/`, {
      session_recording_ids: Array.from({ length: 21 }, (_, i) => `s${i}`)
    })
    expect(tooMany.status).toBe(400)
    expect(tooMany.json.attr).toBe("session_recording_ids")

    // Unpinning everything: the count goes back to null.
    await send("DELETE", `${base}/${sid("short")}/`)
    expect((await counts(collection.short_id)).collection).toEqual({ count: null, watched_count: 0 })

    const saved = await create({ name: `${name} saved`, type: "filters", filters: { date_from: "-7d" } })
    const refused = await send("POST", `/session_recording_playlists/${saved.short_id}/recordings/${sid("long")}/`)
    expect(refused.status).toBe(400)
    expect(refused.json.detail).toBe("Cannot add recordings to a playlist that is type 'filters'.")
    expect(
      (
        await send("POST", `/session_recording_playlists/${saved.short_id}/recordings/bulk_add/`, {
          session_recording_ids: [sid("long")]
        })
      ).status
    ).toBe(400)
    expect((await send("POST", `/session_recording_playlists/${saved.short_id}/playlist_viewed/`)).json).toEqual({
      success: true
    })
    expect((await send("POST", "/session_recording_playlists/nothere1/playlist_viewed/")).status).toBe(404)
  })

  it("counts saved filters live: duration, events and person properties, with increased when a recording arrives", async () => {
    const check = async (filters: Record<string, unknown>, expected: ReadonlyArray<string>) => {
      const playlist = await create({ name: `${name} ${JSON.stringify(filters)}`, type: "filters", filters })
      expect(playlist.filters).toEqual(filters)
      const selected = (await send("GET", `/session_recording_playlists/${playlist.short_id}/recordings/`)).json
      expect([...ids(selected)].sort()).toEqual(expected.map(sid).sort())
      const watched = selected.results.filter((r: { viewed: boolean }) => r.viewed).length
      const saved = (await counts(playlist.short_id)).saved_filters
      expect(saved).toMatchObject({ count: expected.length, watched_count: watched, has_more: false, increased: false })
      expect(Date.parse(saved.last_refreshed_at)).toBeGreaterThan(Date.now() - 60_000)
      expect((await counts(playlist.short_id)).collection).toEqual({ count: null, watched_count: 0 })
      return playlist
    }
    const longer = { duration: [{ type: "recording", key: "duration", operator: "gt", value: 30 }] }
    const duration = await check(longer, ["long", "mid"])
    await check({ events: [{ id: "purchase", type: "events", name: "purchase" }] }, ["long"])
    await check(
      {
        events: [{ id: "$pageview", type: "events" }],
        duration: [{ type: "recording", key: "duration", operator: "lt", value: 30 }]
      },
      ["short"]
    )
    await check({ properties: [{ key: "plan", value: "pro", operator: "exact", type: "person" }] }, ["long"])
    await check(
      {
        filter_group: {
          type: "OR",
          values: [{ type: "AND", values: [{ key: "plan", value: ["free"], operator: "exact", type: "person" }] }]
        }
      },
      ["short"]
    )

    // The project's test-account filters leave bob (plan "free") out when the playlist asks.
    const project = await call(zed, "/api/projects/1/", {
      method: "PATCH",
      body: JSON.stringify({
        test_account_filters: [{ key: "plan", operator: "is_not", value: "free", type: "person" }]
      })
    })
    expect(project.status, project.text).toBe(200)
    const planned = { properties: [{ key: "plan", operator: "is_set", type: "person" }] }
    await check(planned, ["long", "short"])
    await check({ ...planned, filter_test_accounts: true }, ["long"])

    // A watched recording counts as watched among the selection.
    await send("GET", `/session_recordings/${sid("mid")}/snapshots`)
    expect((await counts(duration.short_id)).saved_filters.watched_count).toBe(
      (await send("GET", `/session_recording_playlists/${duration.short_id}/recordings/`)).json.results.filter(
        (r: { viewed: boolean }) => r.viewed
      ).length
    )
    expect((await counts(duration.short_id)).saved_filters.watched_count).toBeGreaterThanOrEqual(1)

    await record(sid("new"), "dave", Date.now() - 5 * MINUTE, 90)
    expect((await counts(duration.short_id)).saved_filters).toMatchObject({ count: 3, increased: true })
    // Read again: the count is the one last saved, so nothing more.
    expect((await counts(duration.short_id)).saved_filters).toMatchObject({ count: 3, increased: false })
    const page = (await send("GET", `/session_recording_playlists/${duration.short_id}/recordings/?limit=2`)).json
    expect(page.results).toHaveLength(2)
    expect(page.has_next).toBe(true)
    expect(ids(page)[0]).toBe(sid("new"))
  })
})
