import { readFileSync } from "node:fs"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { gunzipSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { pgliteStorage } from "@zed/postgres"
import type { Browser } from "playwright-core"
import { launchChromium, listen, zedApi } from "./browser.js"

// posthog-js, the published browser bundle, recording a session in headless Chromium against a real
// Zed: what the page sends to /s/ must come back from the recordings API as the same replay, with the
// summary (clicks, keypresses, start URL, duration) the list and retrieve endpoints show.

const PROJECT_KEY = "phc_sdk_recording_compat_project_1"
const PERSONAL_KEY = "phx_sdk_recording_compat_personal_1"
const BUNDLE = readFileSync(new URL("../../../node_modules/posthog-js/dist/array.full.js", import.meta.url))
const CLICKS = 3
const TYPED = "hello"

let zed: Zed
let zedServer: Server
let pageServer: Server
let browser: Browser
let zedUrl: string
let pageUrl: string
let projectId: number

// The test page: a button and a text input, posthog-js recording with its defaults (inputs masked).
const page = `<!doctype html>
<html><head><meta charset="utf-8"><title>Zed recording test</title><script src="/sdk-test/array.full.js"></script></head>
<body><h1>Zed recording test</h1>
<button id="counter" onclick="this.textContent = String(Number(this.textContent) + 1)">0</button>
<input id="name" type="text">
<script>
  posthog.init(${JSON.stringify(PROJECT_KEY)}, {
    api_host: new URLSearchParams(location.search).get("api_host"),
    // Headless Chromium says HeadlessChrome: posthog-js would drop everything as a bot's.
    opt_out_useragent_filter: true,
    autocapture: false,
    disable_surveys: true,
    disable_product_tours: true,
    disable_conversations: true,
    // Snapshots go through the request queue: flush it quickly so the test needn't wait seconds.
    request_queue_config: { flush_interval_ms: 250 }
  })
</script></body></html>`

const servePage = (req: IncomingMessage, res: ServerResponse) => {
  const path = new URL(req.url ?? "/", "http://x").pathname
  if (path === "/sdk-test/array.full.js") {
    res.writeHead(200, { "content-type": "application/javascript", "content-length": BUNDLE.length }).end(BUNDLE)
  } else if (path === "/sdk-test/page.html") {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page)
  } else {
    res.writeHead(path === "/favicon.ico" ? 204 : 404).end()
  }
}

const { api, json } = zedApi(() => zedUrl, PERSONAL_KEY)

beforeAll(async () => {
  zed = await createZed({
    storage: pgliteStorage(),
    bootstrap: { projectApiKey: PROJECT_KEY, personalApiKey: PERSONAL_KEY }
  })
  zedServer = createServer((req, res) => void zed.nodeHandler(req, res))
  pageServer = createServer(servePage)
  zedUrl = await listen(zedServer)
  pageUrl = await listen(pageServer)
  const { results } = await json("/api/projects/")
  projectId = results.find((p: { api_token: string }) => p.api_token === PROJECT_KEY).id
  // Remote config tells posthog-js to record only for projects that opted in.
  await json(`/api/projects/${projectId}/`, {
    method: "PATCH",
    body: JSON.stringify({ session_recording_opt_in: true })
  })
  browser = await launchChromium()
})

afterAll(async () => {
  await browser?.close()
  await Promise.all(
    [zedServer, pageServer].map(
      (server) => new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)))
    )
  )
  await zed?.close()
})

interface RrwebEvent {
  readonly type: number
  readonly data: any
  readonly timestamp: number
  readonly cv?: string
}

/** One rrweb event as the page sent it or Zed replays it, tagged with its window. */
interface Sent {
  readonly windowId: string
  readonly event: RrwebEvent
}

/** posthog-js gzips what it marks `cv: "2024-10"` into latin1 strings: a FullSnapshot's data, a mutation's lists. */
const unpack = (value: unknown) =>
  typeof value === "string" ? JSON.parse(gunzipSync(Buffer.from(value, "latin1")).toString("utf8")) : value

/** The event with compressed parts expanded, so the page's and Zed's copies compare by content. */
const expand = ({ cv, ...event }: RrwebEvent): RrwebEvent => {
  if (cv === undefined) return event
  if (event.type === 2) return { ...event, data: unpack(event.data) }
  const { adds, attributes, removes, texts, ...rest } = event.data
  return {
    ...event,
    data: {
      ...rest,
      adds: unpack(adds),
      attributes: unpack(attributes),
      removes: unpack(removes),
      texts: unpack(texts)
    }
  }
}

/** The rrweb events in a POST /s/ body (a gzipped JSON array of $snapshot events). */
const decodeRecording = (body: Buffer): ReadonlyArray<Sent> => {
  const text = body[0] === 0x1f && body[1] === 0x8b ? gunzipSync(body).toString("utf8") : body.toString("utf8")
  const events: ReadonlyArray<{ event: string; properties: Record<string, any> }> = JSON.parse(text)
  return events.flatMap(({ event, properties }) =>
    event === "$snapshot"
      ? properties["$snapshot_data"].map((e: RrwebEvent) => ({ windowId: properties["$window_id"], event: e }))
      : []
  )
}

/** Type, and source for incremental snapshots: `3/2` is a mouse interaction, `3/5` an input. */
const kinds = (events: ReadonlyArray<Sent>) =>
  events.map(({ event }) => (event.type === 3 ? `3/${event.data.source}` : `${event.type}`))

const isClick = (e: RrwebEvent) => e.type === 3 && e.data.source === 2 && e.data.type === 2
const isInput = (e: RrwebEvent) => e.type === 3 && e.data.source === 5

const until = async (done: () => boolean, what: string) => {
  const deadline = Date.now() + 10_000
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const recordingPath = (id: string, rest = "") => `/api/environments/${projectId}/session_recordings/${id}${rest}`

/** The blob's JSONL lines: `["<window_id>", rrweb event]`. */
const blob = async (id: string, query: string): Promise<ReadonlyArray<Sent>> => {
  const response = await api(recordingPath(id, `/snapshots?source=blob_v2&${query}`))
  const text = await response.text()
  expect(response.status, text).toBe(200)
  expect(response.headers.get("content-type")).toMatch(/^text\/plain/)
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const [windowId, event] = JSON.parse(line)
      return { windowId, event }
    })
}

describe("posthog-js session recording in Chromium against Zed", () => {
  it("stores what the page recorded and replays it through the recordings API", async () => {
    const context = await browser.newContext()
    const tab = await context.newPage()
    const sent: Array<Sent> = []
    const answers: Array<{ status: number; allowOrigin: string | undefined }> = []
    const errors: Array<string> = []
    const isRecording = (url: string) => url.startsWith(zedUrl) && new URL(url).pathname === "/s/"
    tab.on("request", (request) => {
      if (isRecording(request.url()) && request.method() === "POST")
        sent.push(...decodeRecording(request.postDataBuffer()!))
    })
    tab.on("response", (response) => {
      if (isRecording(response.url()) && response.request().method() === "POST") {
        answers.push({ status: response.status(), allowOrigin: response.headers()["access-control-allow-origin"] })
      }
    })
    tab.on("requestfailed", (request) => errors.push(`${request.url()}: ${request.failure()?.errorText}`))
    tab.on("console", (message) => message.type() === "error" && errors.push(message.text()))
    tab.on("pageerror", (error) => errors.push(String(error)))
    try {
      const url = `${pageUrl}/sdk-test/page.html?api_host=${encodeURIComponent(zedUrl)}`
      const started = Date.now()
      await tab.goto(url)
      // The remote config said to record, and the recorder is running.
      await tab.waitForFunction(() => (window as any).posthog.sessionRecordingStarted?.() === true, undefined, {
        timeout: 10_000
      })
      const sessionId: string = await tab.evaluate(() => (window as any).posthog.get_session_id())
      const distinctId: string = await tab.evaluate(() => (window as any).posthog.get_distinct_id())
      for (let i = 0; i < CLICKS; i++) await tab.click("#counter")
      // Typing only once the clicks were sent, so the recording arrives in two chunks (and lasts seconds).
      await until(() => answers.length > 0, "the first POST /s/")
      await tab.type("#name", TYPED, { delay: 20 })
      expect(await tab.textContent("#counter")).toBe(String(CLICKS))

      // Wait until the page has sent the interactions and Zed holds every rrweb event it sent.
      const deadline = Date.now() + 15_000
      let listed: any
      for (;;) {
        const delivered =
          sent.filter((s) => isClick(s.event)).length >= CLICKS &&
          sent.filter((s) => isInput(s.event)).length >= TYPED.length
        const { results } = await json(`/api/environments/${projectId}/session_recordings?limit=50`)
        listed = results.find((r: { id: string }) => r.id === sessionId)
        if (delivered && listed?.event_count === sent.length) break
        if (Date.now() > deadline) {
          throw new Error(
            `recording not stored in time: sent ${sent.length} events (${answers.length} answers), listed ${JSON.stringify(listed)}`
          )
        }
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
      const finished = Date.now()
      // Every POST /s/ was accepted, with CORS for the page's origin.
      expect(
        answers.every((a) => a.status === 200),
        JSON.stringify(answers)
      ).toBe(true)
      expect(new Set(answers.map((a) => a.allowOrigin))).toEqual(new Set([new URL(pageUrl).origin]))

      // The summary, in the list and from retrieve alike.
      const recording = await json(recordingPath(sessionId))
      expect(recording).toEqual(listed)
      const times = sent.map((s) => s.event.timestamp)
      const [first, last] = [Math.min(...times), Math.max(...times)]
      expect(recording).toMatchObject({
        id: sessionId,
        distinct_id: distinctId,
        viewed: false,
        start_url: url,
        console_log_count: 0,
        console_warn_count: 0,
        console_error_count: 0,
        event_count: sent.length
      })
      expect(recording.click_count).toBeGreaterThanOrEqual(CLICKS)
      expect(recording.keypress_count).toBeGreaterThan(0)
      expect(recording.mouse_activity_count).toBeGreaterThanOrEqual(CLICKS)
      expect(recording.size).toBeGreaterThan(0)
      const [start, end] = [Date.parse(recording.start_time), Date.parse(recording.end_time)]
      expect(Math.abs(start - first)).toBeLessThan(1_000)
      expect(Math.abs(end - last)).toBeLessThan(1_000)
      expect(start).toBeGreaterThanOrEqual(started - 1_000)
      expect(end).toBeLessThanOrEqual(finished)
      expect(recording.recording_duration).toBeGreaterThanOrEqual(1)
      expect(Math.abs(recording.recording_duration - (last - first) / 1000)).toBeLessThanOrEqual(1)
      expect(recording.active_seconds).toBeGreaterThanOrEqual(0)
      expect(recording.inactive_seconds).toBeGreaterThanOrEqual(0)
      expect(recording.active_seconds + recording.inactive_seconds).toBeLessThanOrEqual(
        recording.recording_duration + 1
      )

      // The snapshots: sources in replay order, each blob's events the page's, in the page's order.
      const { sources } = await json(recordingPath(sessionId, "/snapshots"))
      expect(sources.length).toBeGreaterThanOrEqual(2)
      expect(recording.message_count).toBeGreaterThanOrEqual(2)
      for (const source of sources) expect(source).toMatchObject({ source: "blob_v2", blob_key: expect.any(String) })
      const bounds = sources.flatMap((s: { start_timestamp: string; end_timestamp: string }) => [
        Date.parse(s.start_timestamp),
        Date.parse(s.end_timestamp)
      ])
      expect(bounds).toEqual([...bounds].sort((a, b) => a - b))
      expect([bounds[0], bounds.at(-1)]).toEqual([first, last])
      const replayed: Array<Sent> = []
      for (const source of sources)
        replayed.push(...(await blob(sessionId, `blob_key=${encodeURIComponent(source.blob_key)}`)))
      const byTime = [...sent].sort((a, b) => a.event.timestamp - b.event.timestamp)
      const windows = [...new Set(sent.map((s) => s.windowId))]
      for (const windowId of windows) {
        const inWindow = (events: ReadonlyArray<Sent>) => events.filter((s) => s.windowId === windowId)
        expect(kinds(inWindow(replayed))).toEqual(kinds(inWindow(byTime)))
        // Replayable: the same content, compressed or not.
        expect(inWindow(replayed).map((s) => expand(s.event))).toEqual(inWindow(byTime).map((s) => expand(s.event)))
      }
      expect(replayed).toHaveLength(sent.length)
      // After the page's load markers (DomContentLoaded 0 and Load 1, when recording began before the
      // page had loaded) a session starts with Meta then FullSnapshot; the replay holds the clicks and
      // the (masked) typing.
      const opening = replayed.filter((s) => s.event.type > 1)
      expect(opening.slice(0, 2).map((s) => s.event.type)).toEqual([4, 2])
      expect(opening[0]!.event.data.href).toBe(url)
      const full = JSON.stringify(expand(opening[1]!.event).data)
      expect(full).toContain(`"tagName":"button"`)
      expect(full).toContain(`"tagName":"input"`)
      expect(replayed.filter((s) => isClick(s.event)).length).toBeGreaterThanOrEqual(CLICKS)
      expect(replayed.filter((s) => isInput(s.event)).at(-1)!.event.data.text).toBe("*".repeat(TYPED.length))
      // A range of blobs, by position in the sources list, is their concatenation.
      const range = await blob(
        sessionId,
        `start_blob_key=${encodeURIComponent(sources[0].blob_key)}&end_blob_key=${encodeURIComponent(sources.at(-1).blob_key)}`
      )
      expect(range).toEqual(replayed)

      // Fetching the snapshots marked it viewed.
      expect(await json(recordingPath(sessionId))).toMatchObject({ id: sessionId, viewed: true })

      // Deleted: gone from retrieve and from the list.
      const deleted = await api(recordingPath(sessionId), { method: "DELETE" })
      expect(deleted.status).toBe(204)
      expect((await api(recordingPath(sessionId))).status).toBe(404)
      const { results } = await json(`/api/environments/${projectId}/session_recordings?limit=50`)
      expect(results.map((r: { id: string }) => r.id)).not.toContain(sessionId)
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
