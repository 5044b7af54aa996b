import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { ADMIN_KEY, call, PROJECT_KEY, snapshotPayload } from "../../core/test/support.js"
import { backends } from "./backends.js"

// What PostgreSQL refuses (integers past their column, NUL, dates out of its range) used to reach it
// and come back as a 5xx. Each is now refused at the edge as what it is: 404 for a path naming
// nothing, 400 naming the field otherwise; SDK endpoints answer as their clients expect.

const P = "/api/projects/1"
const SURVEY = { name: "s", type: "popover", questions: [{ type: "open", question: "Why?" }] }

describe.each(["pglite", "postgres"])("%s: input the store cannot hold", (name) => {
  let zed: Zed
  let cleanup: () => Promise<void>
  const send = (method: string, path: string, body?: unknown) =>
    call(zed, path, {
      method,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body)
    })
  const sdk = (path: string, body: string) => call(zed, path, { method: "POST", key: null, body })

  beforeAll(async () => {
    const backend = await backends("bad-input")[name]!()
    cleanup = backend.cleanup
    zed = await createZed({
      storage: backend.storage,
      bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY }
    })
  })
  afterAll(async () => {
    await zed.close()
    await cleanup()
  })

  it("answers 404 to ids outside their column and to path parameters holding NUL", async () => {
    const paths = [
      ...["2147483648", "9223372036854775808", "1e20", "-1", "0"].flatMap((id) =>
        ["insights", "feature_flags", "cohorts", "dashboards", "plugin_configs"].map(
          (resource) => `${P}/${resource}/${id}/`
        )
      ),
      `${P}/persons/99999999999999999999/`,
      `${P}/session_recordings/a%00b/`,
      `${P}/session_recording_playlists/a%00b/`,
      `${P}/zed_functions/a%00b/`,
      `${P}/events/a%00b/`,
      "/shared/a%00b",
      `/array/phc_a%00b/config`
    ]
    for (const path of paths) {
      const res = await send("GET", path)
      expect([res.status, res.json?.code], path).toEqual(
        path.includes("/persons/") ? [400, "invalid_input"] : [404, "not_found"]
      )
    }
    expect((await send("PATCH", `${P}/insights/2147483648/`, { name: "x" })).status).toBe(404)
    expect((await send("DELETE", `${P}/persons/a%00b/`)).status).toBe(404)
  })

  it("answers 400 naming the query parameter: offsets and limits past an integer, NUL, dates out of range", async () => {
    const cases: ReadonlyArray<readonly [string, string, string]> = [
      ...[
        "insights",
        "feature_flags",
        "cohorts",
        "dashboards",
        "persons",
        "session_recording_playlists",
        "zed_functions",
        "session_recordings",
        "events"
      ].flatMap(
        (list) =>
          [
            [`${P}/${list}/?offset=1e20`, "offset", "max_value"],
            [`${P}/${list}/?limit=99999999999999999999`, "limit", "max_value"],
            [`${P}/${list}/?offset=-1`, "offset", "min_value"]
          ] as const
      ),
      [`/api/projects/?offset=1e20`, "offset", "max_value"],
      [`${P}/persons/?distinct_id=a%00b`, "distinct_id", "null_characters_not_allowed"],
      [`${P}/persons/?search=%00`, "search", "null_characters_not_allowed"],
      [`${P}/insights/?short_id=a%00`, "short_id", "null_characters_not_allowed"],
      [`${P}/feature_flags/?search=%00`, "search", "null_characters_not_allowed"],
      [`${P}/session_recording_playlists/?short_id=%00`, "short_id", "null_characters_not_allowed"],
      [`${P}/session_recordings/?person_uuid=%00`, "person_uuid", "null_characters_not_allowed"],
      [`${P}/events/?distinct_id=a%00b`, "distinct_id", "null_characters_not_allowed"],
      [`${P}/events/?after=-271821-04-20`, "after", "invalid_input"],
      [`${P}/events/?before=0000-01-01`, "before", "invalid_input"],
      [`${P}/session_recording_playlists/?date_to=0000-01-01`, "date_to", "invalid_input"],
      [`${P}/session_recordings/?date_from=-99999999999d`, "date_from", "invalid_input"],
      [`${P}/heatmaps/?url_exact=https://a.test/&date_from=0000-01-01`, "date_from", "invalid_input"],
      [`${P}/surveys/?search=%00`, "search", "null_characters_not_allowed"]
    ]
    for (const [path, attr, code] of cases) {
      const res = await send("GET", path)
      expect([res.status, res.json], path).toEqual([
        400,
        { type: "validation_error", code, detail: expect.any(String), attr }
      ])
    }
    // A limit within an integer but over the maximum is capped, as PostHog caps it.
    expect((await send("GET", `${P}/insights/?limit=5000`)).status).toBe(200)
  })

  it("answers 400 naming the body field, and stores nothing of the request", async () => {
    const dashboard = (await send("POST", `${P}/dashboards/`, { name: "d" })).json
    const fn = (await send("POST", `${P}/zed_functions/`, { type: "transformation", name: "t", code: "return event" }))
      .json
    const cases: ReadonlyArray<readonly [string, string, unknown, string, string]> = [
      ["POST", `${P}/insights/`, { name: "i", order: 2 ** 40 }, "order", "max_value"],
      ["POST", `${P}/insights/`, { name: "i", dashboards: [dashboard.id, 2147483648] }, "dashboards__1", "max_value"],
      ["POST", `${P}/insights/`, { name: "a\u0000b" }, "name", "null_characters_not_allowed"],
      [
        "POST",
        `${P}/insights/`,
        { name: "i", filters: { "\ud800": 1 } },
        "filters__\ud800",
        "surrogate_characters_not_allowed"
      ],
      ["PATCH", `${P}/zed_functions/rearrange/`, { orders: { [fn.id]: 2147483648 } }, `orders__${fn.id}`, "max_value"],
      [
        "PATCH",
        `${P}/zed_functions/${fn.id}/`,
        { code: "return event // \u0000" },
        "code",
        "null_characters_not_allowed"
      ],
      [
        "PATCH",
        "/api/organizations/@current/",
        { flag_evaluation_quota: 1e20 },
        "flag_evaluation_quota",
        "invalid_input"
      ],
      [
        "POST",
        `${P}/cohorts/`,
        { name: "c", is_static: true, description: "\u0000" },
        "description",
        "null_characters_not_allowed"
      ],
      [
        "POST",
        `${P}/feature_flags/`,
        { key: "f", filters: { groups: [{ properties: [{ key: "email", value: "a\u0000", type: "person" }] }] } },
        "filters__groups__0__properties__0__value",
        "null_characters_not_allowed"
      ],
      [
        "POST",
        `${P}/query/`,
        { query: { kind: "ZedQLQuery", query: "SELECT '\u0000'" } },
        "query__query",
        "null_characters_not_allowed"
      ],
      ["POST", `${P}/surveys/`, { ...SURVEY, start_date: "0000-01-01T00:00:00Z" }, "start_date", "invalid_input"],
      ["POST", `${P}/surveys/`, { ...SURVEY, end_date: "+275760-09-13T00:00:00Z" }, "end_date", "invalid_input"],
      ["POST", `${P}/surveys/`, { ...SURVEY, linked_flag_id: 2147483648 }, "linked_flag_id", "max_value"],
      ["POST", `${P}/surveys/`, { ...SURVEY, responses_limit: 2147483648 }, "responses_limit", "max_value"],
      [
        "POST",
        `${P}/early_access_feature/`,
        { name: "e", stage: "beta", feature_flag_id: 2147483648 },
        "feature_flag_id",
        "max_value"
      ]
    ]
    for (const [method, path, body, attr, code] of cases) {
      const res = await send(method, path, body)
      expect([res.status, res.json], `${method} ${path} ${JSON.stringify(body)}`).toEqual([
        400,
        { type: "validation_error", code, detail: expect.any(String), attr }
      ])
    }
    expect((await send("GET", `${P}/insights/`)).json.count).toBe(0)
    expect((await send("GET", `${P}/feature_flags/`)).json.count).toBe(0)
    expect((await send("GET", `${P}/surveys/`)).json.count).toBe(0)
    expect((await send("GET", `${P}/zed_functions/${fn.id}/`)).json.code).toBe("return event")
  })

  it("answers SDKs: a NUL in a flag request's token is no key, in its distinct id the person as capture stored them", async () => {
    await send("POST", `${P}/feature_flags/`, {
      key: "pro",
      filters: { groups: [{ properties: [{ key: "plan", value: "pro", type: "person" }], rollout_percentage: 100 }] }
    })
    const identify = JSON.stringify({
      api_key: PROJECT_KEY,
      event: "$identify",
      distinct_id: "a\u0000b",
      $set: { plan: "pro" }
    })
    expect((await sdk("/e/", identify)).status).toBe(200)
    const flags = (body: unknown) => sdk("/flags/?v=2", JSON.stringify(body))
    expect((await flags({ token: "phc_a\u0000b", distinct_id: "x" })).json).toMatchObject({ code: "invalid_api_key" })
    const answer = await flags({ token: PROJECT_KEY, distinct_id: "a\u0000b" })
    expect([answer.status, answer.json.errorsWhileComputingFlags, answer.json.flags.pro.enabled]).toEqual([
      200,
      false,
      true
    ])
    expect(
      (
        await sdk(
          "/decide/?v=3",
          JSON.stringify({
            token: PROJECT_KEY,
            distinct_id: "c",
            $anon_distinct_id: "\u0000",
            groups: { company: "\u0000" }
          })
        )
      ).status
    ).toBe(200)
  })

  it("stores a recording whose session, distinct id or first URL hold NUL as capture stores such text", async () => {
    const body = snapshotPayload("s\u0000b", "u\u0000", {
      w: [{ type: 4, timestamp: Date.now(), data: { href: "https://shop.test/\u0000" } }]
    })
    expect((await sdk("/s/", JSON.stringify(body))).status).toBe(200)
    const recording = (await send("GET", `${P}/session_recordings/s%EF%BF%BDb/`)).json
    expect(recording).toMatchObject({ id: "s\uFFFDb", distinct_id: "u\uFFFD", start_url: "https://shop.test/\uFFFD" })
    await send("DELETE", `${P}/session_recordings/s%EF%BF%BDb/`)
  })

  it("answers /s/ 400 for rrweb timestamps no store can hold, storing nothing", async () => {
    for (const timestamp of [1e15, -1e15, 8.64e15, 1e20]) {
      const res = await sdk(
        "/s/",
        JSON.stringify(snapshotPayload(`far-${timestamp}`, "u", { w: [{ type: 2, timestamp, data: {} }] }))
      )
      expect([res.status, res.json.detail], String(timestamp)).toEqual([
        400,
        expect.stringContaining(`timestamp ${timestamp}, outside the years 1 to 9999`)
      ])
    }
    expect((await send("GET", `${P}/session_recordings/`)).json.results).toEqual([])
  })

  it("stores events whose timestamp is year 0 or 10000 at the epoch, as PostHog does past its range", async () => {
    const batch = ["0000-06-01T00:00:00Z", "+010000-01-01T00:00:00Z"].map((timestamp) => ({
      event: "odd",
      distinct_id: "o",
      timestamp
    }))
    expect(
      (await sdk("/batch/", JSON.stringify({ api_key: PROJECT_KEY, historical_migration: true, batch }))).status
    ).toBe(200)
    const stored = (await send("GET", `${P}/events/?event=odd&after=1969-12-31T00:00:00Z&before=1970-01-02T00:00:00Z`))
      .json.results
    expect(stored.map((e: { timestamp: string }) => e.timestamp)).toEqual([
      "1970-01-01T00:00:00.000Z",
      "1970-01-01T00:00:00.000Z"
    ])
  })
})
