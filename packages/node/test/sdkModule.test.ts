import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { pgliteStorage } from "@zed/postgres"
import { build } from "esbuild"
import type { Browser, Page } from "playwright-core"
import { launchChromium, listen, zedApi } from "./browser.js"

// posthog-js as a site installs it from npm: its module build, bundled by the site (here esbuild),
// which loads its extensions at run time from the api_host. Against a real Zed in headless
// Chromium: the recorder loads from Zed and the session is stored and replayable; a survey made
// through the API shows, is answered, and the answer is in its results; an early access feature is
// listed and opting in turns its flag on; a thrown error arrives as `$exception`; clicks arrive as
// heatmap points of the page.

const PROJECT_KEY = "phc_sdk_module_compat_project_1"
const PERSONAL_KEY = "phx_sdk_module_compat_personal_1"
const ENTRY = `import posthog from "posthog-js"\nwindow.posthog = posthog\n`
const PERSON = "module-user-1"

let zed: Zed
let zedServer: Server
let pageServer: Server
let browser: Browser
let zedUrl: string
let pageUrl: string
let projectId: number
let bundle: string

const page = () => `<!doctype html>
<html><head><meta charset="utf-8"><title>Zed module test</title><script src="/app.js"></script></head>
<body><h1>Zed module test</h1>
<button id="buy" style="margin: 40px 0 0 200px">Buy</button>
<script>
  posthog.init(${JSON.stringify(PROJECT_KEY)}, {
    api_host: new URLSearchParams(location.search).get("api_host"),
    // Headless Chromium says HeadlessChrome: posthog-js would drop everything as a bot's.
    opt_out_useragent_filter: true,
    autocapture: false,
    disable_product_tours: true,
    disable_conversations: true,
    request_queue_config: { flush_interval_ms: 250 },
    capture_heatmaps: { flush_interval_milliseconds: 500 }
  })
  posthog.identify(${JSON.stringify(PERSON)})
</script></body></html>`

const servePage = (req: IncomingMessage, res: ServerResponse) => {
  const path = new URL(req.url ?? "/", "http://x").pathname
  if (path === "/app.js") res.writeHead(200, { "content-type": "application/javascript" }).end(bundle)
  else if (path === "/page.html") res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page())
  else res.writeHead(path === "/favicon.ico" ? 204 : 404).end()
}

const { api: call, json: api } = zedApi(() => zedUrl, PERSONAL_KEY)

const project = (path: string) => `/api/projects/${projectId}${path}`

/** Polls until `read` answers something `done` accepts. */
const eventually = async <A>(
  what: string,
  read: () => Promise<A>,
  done: (a: A) => boolean,
  ms = 20_000
): Promise<A> => {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)?.slice(0, 500)}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

const zedql = (query: string) =>
  api(project("/query/"), { method: "POST", body: JSON.stringify({ query: { kind: "ZedQLQuery", query } }) })

beforeAll(async () => {
  const bundled = await build({
    stdin: { contents: ENTRY, resolveDir: process.cwd(), loader: "js" },
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser"
  })
  bundle = bundled.outputFiles[0]!.text
  zed = await createZed({
    storage: pgliteStorage(),
    bootstrap: { projectApiKey: PROJECT_KEY, personalApiKey: PERSONAL_KEY }
  })
  zedServer = createServer((req, res) => void zed.nodeHandler(req, res))
  pageServer = createServer(servePage)
  zedUrl = await listen(zedServer)
  pageUrl = await listen(pageServer)
  const { results } = await api("/api/projects/")
  projectId = results.find((p: { api_token: string }) => p.api_token === PROJECT_KEY).id
  await api(project("/"), {
    method: "PATCH",
    body: JSON.stringify({ session_recording_opt_in: true, autocapture_exceptions_opt_in: true, heatmaps_opt_in: true })
  })
  browser = await launchChromium()
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await Promise.all(
    [zedServer, pageServer].map(
      (server) => new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)))
    )
  )
  await zed?.close()
})

describe("posthog-js from npm (module build) in Chromium against Zed", () => {
  it("loads its extensions from Zed: recordings, surveys, early access, exceptions and heatmaps work", async () => {
    // The bundle is the module build, which leaves the recorder and surveys to load at run time.
    expect(bundle).not.toContain("rrweb-snapshot")
    const survey = await api(project("/surveys/"), {
      method: "POST",
      body: JSON.stringify({
        name: "How likely?",
        type: "popover",
        start_date: new Date(Date.now() - 60_000).toISOString(),
        questions: [
          {
            type: "rating",
            question: "How likely are you to recommend us?",
            scale: 10,
            display: "number",
            lowerBoundLabel: "Not likely",
            upperBoundLabel: "Very likely"
          }
        ]
      })
    })
    const feature = await api(project("/early_access_feature/"), {
      method: "POST",
      body: JSON.stringify({ name: "Dark mode", description: "Darker", stage: "beta" })
    })
    const flagKey: string = feature.feature_flag.key

    const context = await browser.newContext()
    const tab: Page = await context.newPage()
    const scripts: Array<{ url: string; status: number }> = []
    const errors: Array<string> = []
    tab.on("response", (response) => {
      if (response.url().startsWith(`${zedUrl}/static/`))
        scripts.push({ url: response.url(), status: response.status() })
    })
    tab.on("requestfailed", (request) => errors.push(`${request.url()}: ${request.failure()?.errorText}`))
    tab.on("console", (message) => message.type() === "error" && errors.push(message.text()))
    tab.on("pageerror", (error) => error.message !== "Zed test error" && errors.push(String(error)))
    try {
      const url = `${pageUrl}/page.html?api_host=${encodeURIComponent(zedUrl)}`
      await tab.goto(url)

      // The recorder came from Zed's /static/ and is recording.
      await tab.waitForFunction(() => (window as any).posthog.sessionRecordingStarted?.() === true, undefined, {
        timeout: 20_000
      })
      const sessionId: string = await tab.evaluate(() => (window as any).posthog.get_session_id())

      // The survey shows: answer it.
      await tab.locator('button[aria-label="Rate 9"]').click({ timeout: 20_000 })
      await tab.locator("button.form-submit").click()

      // Early access: listed, then opted into.
      const listed = await tab.evaluate(
        () => new Promise<any>((resolve) => (window as any).posthog.getEarlyAccessFeatures(resolve, true))
      )
      expect(listed).toContainEqual({
        id: feature.id,
        name: "Dark mode",
        description: "Darker",
        stage: "beta",
        documentationUrl: "",
        flagKey
      })
      await tab.evaluate((key) => (window as any).posthog.updateEarlyAccessFeatureEnrollment(key, true), flagKey)

      // Clicks for the heatmap, and an error nobody catches, once exception autocapture (loaded from
      // Zed after remote config) has wrapped window.onerror: an error before that is not captured.
      for (let i = 0; i < 3; i++) await tab.click("#buy")
      await tab.waitForFunction(() => typeof window.onerror === "function", undefined, { timeout: 20_000 })
      await tab.evaluate(() =>
        setTimeout(() => {
          throw new Error("Zed test error")
        })
      )

      // This posthog-js asks for its own version's scripts (`/static/<version>/<name>.js`).
      const { version } = await tab.evaluate(() => ({ version: (window as any).posthog.version as string }))
      expect(scripts.map((s) => new URL(s.url).pathname)).toEqual(
        expect.arrayContaining(
          ["lazy-recorder", "surveys", "exception-autocapture"].map((name) => `/static/${version}/${name}.js`)
        )
      )
      expect(
        scripts.every((s) => s.status === 200),
        JSON.stringify(scripts)
      ).toBe(true)

      // The answer is in the survey's results.
      const stats = await eventually(
        "the survey's response",
        () => api(project(`/surveys/${survey.id}/stats/`)),
        (s) => s.stats["survey sent"].total_count === 1
      )
      expect(stats.stats["survey shown"].total_count).toBeGreaterThanOrEqual(1)
      expect(stats.questions[0]).toMatchObject({
        response_count: 1,
        results: [{ value: "9", count: 1 }],
        nps: { promoters: 1, score: 100 }
      })

      // Opting in turned the flag on for this person on the next /flags call.
      const flags = await eventually(
        "the opt-in",
        async () => {
          const res = await fetch(`${zedUrl}/flags/?v=2`, {
            method: "POST",
            body: JSON.stringify({ token: PROJECT_KEY, distinct_id: PERSON })
          })
          return (await res.json()).flags[flagKey]?.enabled
        },
        (enabled) => enabled === true
      )
      expect(flags).toBe(true)
      const stranger = await (
        await fetch(`${zedUrl}/flags/?v=2`, {
          method: "POST",
          body: JSON.stringify({ token: PROJECT_KEY, distinct_id: "someone-else" })
        })
      ).json()
      expect(stranger.flags[flagKey].enabled).toBe(false)

      // The error, with its stack frames, queryable in ZedQL.
      const exceptions = await eventually(
        "the $exception",
        () =>
          zedql(
            `SELECT properties.$exception_list FROM events WHERE event = '$exception' AND distinct_id = '${PERSON}'`
          ),
        (r) => r.results.length > 0
      )
      const [exception] = JSON.parse(exceptions.results[0][0])
      expect(exception).toMatchObject({ type: "Error", value: "Zed test error", mechanism: { handled: false } })
      expect(exception.stacktrace.frames.length).toBeGreaterThan(0)

      // The clicks, as heatmap points of the page: the button's three clicks land on one place (the
      // survey's clicks elsewhere, and perhaps flushed first).
      const box = (await tab.locator("#buy").boundingBox())!
      const width = await tab.evaluate(() => window.innerWidth)
      const [x, y] = [(box.x + box.width / 2) / width, box.y + box.height / 2]
      const onButton = (h: { results: Array<{ pointer_relative_x: number; pointer_y: number; count: number }> }) =>
        h.results.find((p) => Math.abs(p.pointer_relative_x - x) <= 0.02 && Math.abs(p.pointer_y - y) <= 16)
      const heatmap = await eventually(
        "the heatmap",
        () => api(project(`/heatmaps/?url_exact=${encodeURIComponent(url)}`)),
        (h) => (onButton(h)?.count ?? 0) >= 3
      )
      const place = onButton(heatmap)
      expect(place, JSON.stringify(heatmap.results)).toMatchObject({ count: 3, pointer_target_fixed: false })

      // The session is stored and replayable.
      const recording = await eventually(
        "the recording",
        () => api(project(`/session_recordings/${sessionId}/snapshots`)).catch(() => undefined),
        (r) => r?.sources?.length > 0
      )
      const blob = await call(
        project(
          `/session_recordings/${sessionId}/snapshots?source=blob_v2&blob_key=${encodeURIComponent(recording.sources[0].blob_key)}`
        )
      )
      const events = (await blob.text())
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line)[1])
      expect(events.map((e: { type: number }) => e.type)).toEqual(expect.arrayContaining([4, 2]))
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  }, 90_000)
})
