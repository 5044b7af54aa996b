import { gzipSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { createZed, memoryStorage, type Zed } from "../src/index.js"
import { EventStore, PersonStore } from "../src/storage.js"
import { ADMIN_KEY, call, memoryZed, PROJECT_KEY } from "./support.js"

let zed: Zed
beforeAll(async () => {
  zed = await memoryZed()
})
afterAll(() => zed.close())

let serial = 0
const uuid = () => `0196a3e1-0000-7000-8000-${String(++serial).padStart(12, "0")}`

const send = async (
  z: Zed,
  path: string,
  body: BodyInit | undefined,
  headers: Record<string, string> = {},
  method = "POST"
) => {
  const response = await z.handler(new Request(`http://zed.test${path}`, { method, body: body ?? null, headers }))
  const text = await response.text()
  return { status: response.status, headers: response.headers, json: text === "" ? undefined : JSON.parse(text) }
}

const stored = (z: Zed, query: { event?: string; distinct_id?: string } = {}) =>
  z.run(Effect.flatMap(EventStore, (s) => s.list(1, { ...query, limit: 10_000, offset: 0 })))

describe("capture endpoints", () => {
  it.each(["/i/v0/e/", "/i/v0/e", "/e/", "/e", "/capture/", "/track", "/engage/", "/batch/", "/batch"])(
    "%s stores an event and answers exactly 200 {status: Ok}",
    async (path) => {
      const id = uuid()
      const res = await send(
        zed,
        path,
        JSON.stringify({ api_key: PROJECT_KEY, event: "hit", distinct_id: `via ${path}`, uuid: id }),
        { "content-type": "application/json" }
      )
      expect(res).toMatchObject({ status: 200, json: { status: "Ok" } })
      expect((await stored(zed, { distinct_id: `via ${path}` })).map((e) => e.uuid)).toEqual([id])
    }
  )

  it("finds the project key in api_key, token, properties.token or ?token=", async () => {
    const bodies: Array<[string, unknown]> = [
      ["/e/", { token: PROJECT_KEY, event: "t", distinct_id: "tok-1" }],
      ["/e/", { event: "t", distinct_id: "tok-2", properties: { token: PROJECT_KEY } }],
      [`/e/?token=${PROJECT_KEY}`, { event: "t", distinct_id: "tok-3" }],
      ["/batch/", { token: PROJECT_KEY, batch: [{ event: "t", distinct_id: "tok-4" }] }],
      ["/batch/", [{ event: "t", distinct_id: "tok-5", properties: { token: PROJECT_KEY } }]]
    ]
    for (const [path, body] of bodies) expect((await send(zed, path, JSON.stringify(body))).status).toBe(200)
    expect((await stored(zed, { event: "t" })).map((e) => e.distinct_id).sort()).toEqual([
      "tok-1",
      "tok-2",
      "tok-3",
      "tok-4",
      "tok-5"
    ])
  })

  it("answers 401 for a missing, personal, malformed or unknown project key", async () => {
    for (const token of [undefined, ADMIN_KEY, "has spaces", "phc_nobody_has_this_key"]) {
      const res = await send(zed, "/e/", JSON.stringify({ api_key: token, event: "x", distinct_id: "d" }))
      expect(res.status).toBe(401)
      expect(res.json).toMatchObject({ type: "authentication_error", code: "invalid_api_key", attr: null })
    }
  })

  it("accepts GET ?data= (pixel style) with base64 JSON", async () => {
    const data = Buffer.from(JSON.stringify({ api_key: PROJECT_KEY, event: "pixel", distinct_id: "img" })).toString(
      "base64"
    )
    expect((await send(zed, `/e/?data=${encodeURIComponent(data)}`, undefined, {}, "GET")).status).toBe(200)
    expect(await stored(zed, { event: "pixel" })).toHaveLength(1)
  })

  it("refuses a whole request when one event is invalid, storing none of it", async () => {
    const res = await send(
      zed,
      "/batch/",
      JSON.stringify({
        api_key: PROJECT_KEY,
        batch: [{ event: "good", distinct_id: "all-or-nothing" }, { event: "bad" }]
      })
    )
    expect(res.status).toBe(400)
    expect(res.json).toEqual({
      type: "validation_error",
      code: "invalid_payload",
      detail: "distinct_id is missing",
      attr: null
    })
    expect(await stored(zed, { distinct_id: "all-or-nothing" })).toEqual([])
  })

  it("stores a retried batch once (idempotent on uuid), however it is encoded", async () => {
    const batch = {
      api_key: PROJECT_KEY,
      batch: [1, 2, 3].map((n) => ({ event: "retry", distinct_id: "r", uuid: uuid(), properties: { n } }))
    }
    const json = JSON.stringify(batch)
    expect((await send(zed, "/batch/", json)).status).toBe(200)
    expect(
      (await send(zed, "/batch/", gzipSync(json), { "content-type": "application/json", "content-encoding": "gzip" }))
        .status
    ).toBe(200)
    expect((await send(zed, "/batch/", gzipSync(json), { "content-type": "text/plain" })).status).toBe(200)
    expect((await stored(zed, { event: "retry" })).map((e) => e.properties["n"]).sort()).toEqual([1, 2, 3])
  })

  it("stores concurrent requests in group commits, each event once", async () => {
    const before = (await stored(zed)).length
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        send(
          zed,
          "/batch/",
          JSON.stringify({
            api_key: PROJECT_KEY,
            batch: Array.from({ length: 10 }, (_, j) => ({
              event: "burst",
              distinct_id: `b${i}`,
              uuid: uuid(),
              properties: { j }
            }))
          })
        )
      )
    )
    expect(results.every((r) => r.status === 200)).toBe(true)
    expect((await stored(zed)).length - before).toBe(300)
  })

  it("answers 204 to beacons, whose answers nobody reads", async () => {
    const res = await send(
      zed,
      "/e/?beacon=1",
      JSON.stringify({ api_key: PROJECT_KEY, event: "unload", distinct_id: "b" })
    )
    expect(res.status).toBe(204)
    expect(await stored(zed, { event: "unload" })).toHaveLength(1)
  })

  it("corrects clock skew by sent_at, but keeps historical imports' timestamps as given", async () => {
    const sentAt = new Date(Date.now() + 3_600_000).toISOString()
    const timestamp = new Date(Date.parse(sentAt) - 60_000).toISOString()
    await send(
      zed,
      "/batch/",
      JSON.stringify({
        api_key: PROJECT_KEY,
        sent_at: sentAt,
        batch: [{ event: "skewed", distinct_id: "c", timestamp }]
      })
    )
    const [skewed] = await stored(zed, { event: "skewed" })
    expect(Math.abs(skewed!.timestamp.getTime() - (skewed!.created_at.getTime() - 60_000))).toBeLessThan(50)

    const old = "2019-04-05T06:07:08.009Z"
    await send(
      zed,
      "/batch/",
      JSON.stringify({
        api_key: PROJECT_KEY,
        historical_migration: true,
        sent_at: new Date().toISOString(),
        batch: [{ event: "imported", distinct_id: "c", timestamp: old }]
      })
    )
    expect((await stored(zed, { event: "imported" }))[0]!.timestamp.toISOString()).toBe(old)
  })

  it("treats an /engage/ update without a name as $identify", async () => {
    await send(
      zed,
      "/engage/",
      JSON.stringify({ api_key: PROJECT_KEY, distinct_id: "engaged", $set: { plan: "gold" } })
    )
    const [event] = await stored(zed, { distinct_id: "engaged" })
    expect(event!.event).toBe("$identify")
    const person = await zed.run(
      Effect.flatMap(PersonStore, (s) => s.list(1, { distinct_id: "engaged", properties: [], limit: 1, offset: 0 }))
    )
    expect(person.results[0]).toMatchObject({ is_identified: true, properties: { plan: "gold" } })
  })

  it("records the project as having received events", async () => {
    expect((await call(zed, "/api/projects/1/")).json.ingested_event).toBe(true)
  })

  it("refuses requests holding only recordings, which go to /s/", async () => {
    const res = await send(
      zed,
      "/e/",
      JSON.stringify([{ event: "$snapshot", properties: { token: PROJECT_KEY, distinct_id: "r" } }])
    )
    expect(res.status).toBe(400)
  })

  it("answers 413 past the body limit of /e/, and 400 to an empty body", async () => {
    const big = JSON.stringify({
      api_key: PROJECT_KEY,
      event: "big",
      distinct_id: "d",
      properties: { blob: "x".repeat(3 * 1024 * 1024) }
    })
    expect((await send(zed, "/e/", big)).json).toMatchObject({ code: "payload_too_large" })
    expect((await send(zed, "/e/", "")).status).toBe(400)
  })
})

describe("CORS", () => {
  it("answers preflights echoing the origin and requested headers", async () => {
    const res = await send(
      zed,
      "/i/v0/e/",
      undefined,
      { origin: "https://shop.example", "access-control-request-headers": "content-type, x-custom" },
      "OPTIONS"
    )
    expect(res.status).toBe(200)
    expect(res.headers.get("access-control-allow-origin")).toBe("https://shop.example")
    expect(res.headers.get("access-control-allow-credentials")).toBe("true")
    expect(res.headers.get("access-control-allow-headers")).toBe("content-type, x-custom")
    expect(res.headers.get("access-control-allow-methods")).toBe("GET, POST, OPTIONS")
  })

  it("puts CORS headers on errors too", async () => {
    const res = await send(zed, "/e/", "{", { origin: "https://shop.example" })
    expect(res.status).toBe(400)
    expect(res.headers.get("access-control-allow-origin")).toBe("https://shop.example")
  })
})

describe("client IP", () => {
  const ipOf = async (z: Zed, name: string, headers: Record<string, string>) => {
    await send(z, "/e/", JSON.stringify({ api_key: PROJECT_KEY, event: name, distinct_id: "ip" }), headers)
    return (await stored(z, { event: name }))[0]!.properties["$ip"]
  }

  it("comes from X-Forwarded-For only behind a trusted proxy, and is dropped for anonymizing projects", async () => {
    expect(await ipOf(zed, "untrusted", { "x-forwarded-for": "198.51.100.7, 10.0.0.1" })).toBeUndefined()
    const trusting = await createZed({
      storage: memoryStorage(),
      trustProxy: true,
      bootstrap: { projectApiKey: PROJECT_KEY, personalApiKey: ADMIN_KEY }
    })
    expect(await ipOf(trusting, "trusted", { "x-forwarded-for": "198.51.100.7, 10.0.0.1" })).toBe("198.51.100.7")
    // The PATCH must reach capture at once: it clears the cached project.
    expect(
      (await call(trusting, "/api/projects/1/", { method: "PATCH", body: '{"anonymize_ips": true}' })).json
        .anonymize_ips
    ).toBe(true)
    expect(await ipOf(trusting, "anonymized", { "x-forwarded-for": "198.51.100.7" })).toBeUndefined()
    await trusting.close()
  })
})

describe("remote config", () => {
  it("serves the project's settings as JSON and as a script", async () => {
    const json = await zed.handler(
      new Request(`http://zed.test/array/${PROJECT_KEY}/config`, { headers: { origin: "https://shop.example" } })
    )
    expect(json.headers.get("content-type")).toBe("application/json")
    expect(json.headers.get("access-control-allow-origin")).toBe("https://shop.example")
    const config = await json.json()
    expect(config).toMatchObject({
      token: PROJECT_KEY,
      supportedCompression: ["gzip", "gzip-js"],
      analytics: { endpoint: "/i/v0/e/" },
      sessionRecording: false,
      hasFeatureFlags: false,
      autocapture_opt_out: false,
      siteApps: []
    })
    const script = await (await zed.handler(new Request(`http://zed.test/array/${PROJECT_KEY}/config.js`))).text()
    const window: { _POSTHOG_REMOTE_CONFIG?: Record<string, { config: unknown; siteApps: unknown }> } = {}
    new Function("window", script)(window)
    const { siteApps, ...rest } = config
    expect(window._POSTHOG_REMOTE_CONFIG?.[PROJECT_KEY]).toEqual({ config: rest, siteApps })
  })

  it("follows the project's switches, such as session recording", async () => {
    await call(zed, "/api/projects/1/", {
      method: "PATCH",
      body: JSON.stringify({
        session_recording_opt_in: true,
        capture_console_log_opt_in: true,
        autocapture_opt_out: true
      })
    })
    const config = await (await zed.handler(new Request(`http://zed.test/array/${PROJECT_KEY}/config`))).json()
    expect(config.sessionRecording).toMatchObject({
      endpoint: "/s/",
      consoleLogRecordingEnabled: true,
      recorderVersion: "v2"
    })
    expect(config.autocapture_opt_out).toBe(true)
    await call(zed, "/api/projects/1/", {
      method: "PATCH",
      body: JSON.stringify({
        session_recording_opt_in: false,
        capture_console_log_opt_in: false,
        autocapture_opt_out: false
      })
    })
  })

  it("answers 400 to a malformed key and 404 to an unknown one", async () => {
    expect((await zed.handler(new Request("http://zed.test/array/bad%20key/config"))).status).toBe(400)
    expect((await zed.handler(new Request("http://zed.test/array/phc_unknown/config.js"))).status).toBe(404)
  })
})

describe("limits", () => {
  const limits = {
    bodyBytes: { capture: 1000, batch: 3000, recordings: 2000, api: 500 },
    decodedBytes: { capture: 2000, api: 1000 },
    eventsPerBatch: 3
  }
  let limited: Zed
  beforeAll(async () => {
    limited = await createZed({
      storage: memoryStorage(),
      bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY },
      limits
    })
  })
  afterAll(() => limited.close())

  const events = (n: number, pad = 0) =>
    Array.from({ length: n }, (_, i) => ({
      event: "limited",
      distinct_id: "l",
      uuid: uuid(),
      properties: { i, pad: "x".repeat(pad) }
    }))
  const batch = (n: number, pad = 0) => JSON.stringify({ api_key: PROJECT_KEY, batch: events(n, pad) })
  const refusal = (status: number, code: string) => ({
    status,
    json: { type: expect.any(String), code, detail: expect.any(String), attr: null }
  })

  it("past the events taken at once, refuse the whole request with 400 and store none of it", async () => {
    expect((await send(limited, "/batch/", batch(3))).status).toBe(200)
    expect(await send(limited, "/batch/", batch(4))).toMatchObject(refusal(400, "invalid_payload"))
    expect((await send(limited, "/batch/", batch(4))).json.detail).toMatch(/holds 4 events, more than the 3/)
    expect(
      await send(limited, "/e/", JSON.stringify(events(4).map((e) => ({ ...e, api_key: PROJECT_KEY }))))
    ).toMatchObject(refusal(400, "invalid_payload"))
    expect(await stored(limited, { event: "limited" })).toHaveLength(3)
  })

  it("past each kind of endpoint's body size, answer 413", async () => {
    const single = (pad: number) =>
      JSON.stringify({ api_key: PROJECT_KEY, event: "sized", distinct_id: "s", properties: { pad: "x".repeat(pad) } })
    expect((await send(limited, "/e/", single(800))).status).toBe(200)
    expect(await send(limited, "/e/", single(1000))).toMatchObject(refusal(413, "payload_too_large"))
    expect(await send(limited, "/engage/", single(1000))).toMatchObject(refusal(413, "payload_too_large"))
    expect((await send(limited, "/batch/", batch(1, 2000))).status).toBe(200)
    expect(await send(limited, "/batch/", batch(1, 3000))).toMatchObject(refusal(413, "payload_too_large"))
    // Compressed, the body passes; decoded, it is past its own limit.
    expect(
      await send(limited, "/e/?compression=gzip-js", gzipSync(single(3000)), { "content-type": "text/plain" })
    ).toMatchObject(refusal(413, "payload_too_large"))
    const recording = JSON.stringify([
      {
        event: "$snapshot",
        properties: {
          token: PROJECT_KEY,
          distinct_id: "r",
          $session_id: "s",
          $snapshot_data: [{ type: 2, timestamp: Date.now(), data: { pad: "x".repeat(2000) } }]
        }
      }
    ])
    expect(await send(limited, "/s/", recording)).toMatchObject(refusal(413, "payload_too_large"))
    const flags = (pad: number) =>
      JSON.stringify({ token: PROJECT_KEY, distinct_id: "f", person_properties: { pad: "x".repeat(pad) } })
    expect((await send(limited, "/flags/?v=2", flags(300))).status).toBe(200)
    expect(await send(limited, "/flags/?v=2", flags(500))).toMatchObject(refusal(413, "payload_too_large"))
    expect(await send(limited, "/decide/?v=4", gzipSync(flags(1000)), { "content-encoding": "gzip" })).toMatchObject(
      refusal(413, "payload_too_large")
    )
    const insight = (pad: number) =>
      call(limited, "/api/projects/1/insights/", { method: "POST", body: JSON.stringify({ name: "x".repeat(pad) }) })
    expect((await insight(400)).status).toBe(201)
    expect(await insight(500)).toMatchObject({
      status: 413,
      json: {
        type: "invalid_request",
        code: "payload_too_large",
        detail: "Request body is larger than the limit of 500 bytes.",
        attr: null
      }
    })
  })
})

describe("timestamps no store can hold", () => {
  it("sent_at past JavaScript's dates (1e20) or the year 9999 is ignored, as an unparseable one is, and the event stored", async () => {
    for (const sent_at of [1e20, -1e20, "+275760-09-13T00:00:00Z", "10000-01-01T00:00:00Z", "0000-01-01T00:00:00Z"]) {
      const id = uuid()
      const res = await send(
        zed,
        "/batch/",
        JSON.stringify({
          api_key: PROJECT_KEY,
          sent_at,
          batch: [{ event: "sent late", distinct_id: "t", uuid: id, timestamp: "2026-01-01T00:00:00Z" }]
        })
      )
      expect(res.status, JSON.stringify(res.json)).toBe(200)
      const [event] = (await stored(zed, { event: "sent late" })).filter((e) => e.uuid === id)
      expect(event!.timestamp.toISOString()).toBe("2026-01-01T00:00:00.000Z")
      expect(event!.properties["$sent_at"]).toBeUndefined()
    }
  })

  it("event timestamps outside the years 1 to 9999 fall back to the epoch, past JavaScript's dates to now", async () => {
    const cases: ReadonlyArray<[unknown, (d: Date) => boolean]> = [
      ["0000-06-01T00:00:00Z", (d) => d.getTime() === 0],
      ["+010000-01-01T00:00:00Z", (d) => d.getTime() === 0],
      [1e20, (d) => Math.abs(d.getTime() - Date.now()) < 60_000]
    ]
    for (const [timestamp, expected] of cases) {
      const id = uuid()
      expect(
        (
          await send(
            zed,
            "/batch/",
            JSON.stringify({
              api_key: PROJECT_KEY,
              historical_migration: true,
              batch: [{ event: "odd time", distinct_id: "t", uuid: id, timestamp }]
            })
          )
        ).status
      ).toBe(200)
      const [event] = (await stored(zed, { event: "odd time" })).filter((e) => e.uuid === id)
      expect(expected(event!.timestamp), `${String(timestamp)} stored as ${event!.timestamp.toISOString()}`).toBe(true)
    }
  })
})
