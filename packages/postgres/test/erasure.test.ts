import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { RecordingStore } from "@zed/core/storage"
import { Effect } from "effect"
import {
  ADMIN_KEY,
  call,
  importEvents,
  postQuery,
  PROJECT_KEY,
  snapshotPayload,
  zedqlRequest
} from "../../core/test/support.js"
import { backends } from "./backends.js"

// Deleting a person with their data leaves nothing of them in any store: events, the person, their
// distinct ids, their recordings with every chunk, their static cohort memberships, and on ClickHouse
// the copies ZedQL reads there. Another person's data is untouched.

const T0 = Date.UTC(2026, 2, 2, 12)
const rr = (type: number, at: number, data: unknown = {}) => ({ type, timestamp: T0 + at, data })
const recording = (at: number) => [
  rr(4, at, { href: "https://shop.test/", width: 800, height: 600 }),
  rr(2, at + 1, { node: { type: 0, childNodes: [] } }),
  rr(3, at + 500, { source: 2, type: 2, id: 1, x: 1, y: 1 })
]

describe.each(["pglite", "postgres", "chdb"])("%s: erasing a person", (name) => {
  let zed: Zed
  let cleanup: () => Promise<void>
  const send = (method: string, path: string, body?: unknown) =>
    call(zed, `/api/projects/1${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) })
  const count = async (query: string) => {
    const res = await postQuery(zed, 1, zedqlRequest(query, { refresh: "force_blocking" }))
    expect(res.status, res.text).toBe(200)
    return res.json.results[0][0] as number
  }

  beforeAll(async () => {
    const backend = await backends("erasure")[name]!()
    cleanup = backend.cleanup
    zed = await createZed({
      storage: backend.storage,
      bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY }
    })
    await importEvents(zed, PROJECT_KEY, [
      {
        event: "$pageview",
        distinct_id: "ada-anon",
        timestamp: new Date(T0).toISOString(),
        properties: { $session_id: "s-ada-1" }
      },
      {
        event: "$identify",
        distinct_id: "ada",
        timestamp: new Date(T0 + 1000).toISOString(),
        properties: { $anon_distinct_id: "ada-anon", $set: { email: "ada@corp.test" } }
      },
      {
        event: "purchase",
        distinct_id: "ada",
        timestamp: new Date(T0 + 2000).toISOString(),
        properties: { $session_id: "s-ada-2" }
      },
      {
        event: "$pageview",
        distinct_id: "bob",
        timestamp: new Date(T0 + 3000).toISOString(),
        properties: { $session_id: "s-bob", $set: { email: "bob@home.test" } }
      }
    ])
    for (const [session, distinctId] of [
      ["s-ada-1", "ada-anon"],
      ["s-ada-2", "ada"],
      ["s-bob", "bob"]
    ] as const) {
      const res = await call(zed, "/s/", {
        method: "POST",
        key: null,
        body: JSON.stringify(snapshotPayload(session, distinctId, { "w-1": recording(0) }))
      })
      expect(res.status, res.text).toBe(200)
    }
  })
  afterAll(async () => {
    await zed.close()
    await cleanup()
  })

  it("with delete_events leaves nothing of them anywhere, and nothing of anyone else is touched", async () => {
    const ada = (await send("GET", "/persons/?distinct_id=ada")).json.results[0]
    expect([...ada.distinct_ids].sort()).toEqual(["ada", "ada-anon"])
    const cohort = (await send("POST", "/cohorts/", { name: "Beta", is_static: true })).json
    expect(
      (await send("PATCH", `/cohorts/${cohort.id}/add_persons_to_static_cohort/`, { person_ids: [ada.uuid] })).status
    ).toBe(200)
    expect((await send("GET", `/cohorts/${cohort.id}/persons/`)).json.results).toHaveLength(1)

    expect((await send("DELETE", `/persons/${ada.uuid}/?delete_events=true`)).status).toBe(202)

    // The person and their distinct ids.
    for (const id of ["ada", "ada-anon"])
      expect((await send("GET", `/persons/?distinct_id=${id}`)).json.results).toEqual([])
    expect(await count(`SELECT count() FROM persons WHERE id = '${ada.uuid}'`)).toBe(0)
    expect(await count("SELECT count() FROM person_distinct_ids WHERE distinct_id IN ('ada', 'ada-anon')")).toBe(0)
    // Their events, by distinct id and by person.
    expect(await count("SELECT count() FROM events WHERE distinct_id IN ('ada', 'ada-anon')")).toBe(0)
    expect(await count(`SELECT count() FROM events WHERE person_id = '${ada.uuid}'`)).toBe(0)
    // Their recordings, metadata and chunks, through the API and in the store.
    for (const session of ["s-ada-1", "s-ada-2"]) {
      expect((await call(zed, `/api/environments/1/session_recordings/${session}/`)).status).toBe(404)
      expect(await zed.run(Effect.flatMap(RecordingStore, (s) => s.chunks(1, session)))).toEqual([])
    }
    expect(await count("SELECT count() FROM session_replay_events WHERE session_id IN ('s-ada-1', 's-ada-2')")).toBe(0)
    // Their cohort membership.
    expect((await send("GET", `/cohorts/${cohort.id}/persons/`)).json.results).toEqual([])

    // Bob is as he was.
    expect((await send("GET", "/persons/?distinct_id=bob")).json.results).toHaveLength(1)
    expect(await count("SELECT count() FROM events WHERE distinct_id = 'bob'")).toBe(1)
    expect((await call(zed, "/api/environments/1/session_recordings/s-bob/")).status).toBe(200)
    expect(await zed.run(Effect.flatMap(RecordingStore, (s) => s.chunks(1, "s-bob")))).toHaveLength(1)
  })

  it("keeps recordings when asked to (delete_recordings=false), and takes them alone when asked", async () => {
    const bob = (await send("GET", "/persons/?distinct_id=bob")).json.results[0]
    expect((await send("DELETE", `/persons/${bob.uuid}/?delete_events=true&delete_recordings=false`)).status).toBe(202)
    expect(await count("SELECT count() FROM events WHERE distinct_id = 'bob'")).toBe(0)
    expect((await call(zed, "/api/environments/1/session_recordings/s-bob/")).status).toBe(200)
  })
})
