import { readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { BrowserContext, Page } from "playwright-core"
import { listen, signIn } from "../../node/test/browser.js"
import { ADMIN, axeViolations, type Harness, PROJECT_KEY, screenshot, startHarness } from "./harness.js"

// Session replay in the app: a page with the real posthog-js (its published bundle) records a visit
// in Chromium against the harness's Zed; the app lists that recording, plays it in rrweb's player
// (the button's text as it was before and after the click, at the moments the test measured), and
// keeps it in playlists.

const BUNDLE = readFileSync(new URL("../../../node_modules/posthog-js/dist/array.full.js", import.meta.url))
const BEFORE = "Buy now"
const AFTER = "Thanks for buying"

const shop = (zed: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Shop</title><script src="/array.full.js"></script></head>
<body><h1>Shop</h1>
<button id="buy">${BEFORE}</button>
<script>
  document.getElementById("buy").addEventListener("click", (event) => {
    event.target.textContent = ${JSON.stringify(AFTER)}
    // A moment later, so that the recorder has sent the change by then: seeking to either shows it.
    setTimeout(() => {
      console.error("payment declined")
      posthog.capture("bought")
    }, 300)
  })
  posthog.init(${JSON.stringify(PROJECT_KEY)}, {
    api_host: ${JSON.stringify(zed)},
    opt_out_useragent_filter: true,
    autocapture: false,
    disable_surveys: true,
    disable_product_tours: true,
    disable_conversations: true,
    request_queue_config: { flush_interval_ms: 250 }
  })
  posthog.identify("shopper", { email: "shopper@example.com" })
</script></body></html>`

/** Waits as long as a loaded machine may need (vitest's own default is a second). */
const poll = <T>(check: () => T | Promise<T>) => expect.poll(check, { timeout: 20_000 })

let h: Harness
let pages: Server
let shopUrl: string
let context: BrowserContext
let page: Page

beforeAll(async () => {
  h = await startHarness()
  await h.json("/api/projects/1/", {
    method: "PATCH",
    body: JSON.stringify({ session_recording_opt_in: true, capture_console_log_opt_in: true })
  })
  const html = shop(h.root)
  pages = createServer((req, res) => {
    if (req.url === "/array.full.js") res.writeHead(200, { "content-type": "application/javascript" }).end(BUNDLE)
    else if (req.url === "/") res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html)
    else res.writeHead(404).end()
  })
  shopUrl = await listen(pages)
  context = await h.browser.newContext({ viewport: { width: 1280, height: 800 } })
  page = await context.newPage()
}, 180_000)
afterAll(async () => {
  await context?.close()
  pages?.close()
  await h?.close()
})

interface Visit {
  readonly session: string
  /** When the test clicked the button, in ms since the epoch. */
  readonly clickedBefore: number
  readonly clickedAfter: number
}

const until = async <T>(what: string, check: () => Promise<T | undefined>, ms = 30_000): Promise<T> => {
  const deadline = Date.now() + ms
  for (;;) {
    const found = await check()
    if (found !== undefined) return found
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

/** A visit to the shop recorded by posthog-js: a while on the page, one click, a while after. */
const recordVisit = async (): Promise<Visit> => {
  const visitor = await h.browser.newContext()
  try {
    const tab = await visitor.newPage()
    await tab.goto(shopUrl)
    await tab.waitForFunction(() => (window as any).posthog.sessionRecordingStarted?.() === true, undefined, {
      timeout: 20_000
    })
    const session: string = await tab.evaluate(() => (window as any).posthog.get_session_id())
    await tab.waitForTimeout(1500)
    const clickedBefore = Date.now()
    await tab.click("#buy")
    const clickedAfter = Date.now()
    await tab.waitForTimeout(1500)
    // Something after the wait, so that the recording lasts past it.
    await tab.mouse.move(10, 10)
    await tab.mouse.move(200, 100)
    await until("the recording's click and console error", async () => {
      const recordings = await h.json("/api/projects/1/session_recordings/?limit=50")
      const found = recordings.results.find((r: { id: string }) => r.id === session)
      return found && found.click_count >= 1 && found.console_error_count >= 1 && found.recording_duration >= 3
        ? found
        : undefined
    })
    await until("the bought event", async () => {
      const events = await h.json("/api/projects/1/events/?event=bought")
      return events.results.length > 0 ? true : undefined
    })
    return { session, clickedBefore, clickedAfter }
  } finally {
    await visitor.close()
  }
}

let visit: Visit

/** A full snapshot of a page whose paragraph #minute (node 7) says `text`. */
const minutePage = (text: string) => ({
  node: {
    type: 0,
    id: 1,
    childNodes: [
      { type: 1, id: 2, name: "html", publicId: "", systemId: "" },
      {
        type: 2,
        id: 3,
        tagName: "html",
        attributes: { lang: "en" },
        childNodes: [
          { type: 2, id: 4, tagName: "head", attributes: {}, childNodes: [] },
          {
            type: 2,
            id: 5,
            tagName: "body",
            attributes: {},
            childNodes: [
              {
                type: 2,
                id: 6,
                tagName: "p",
                attributes: { id: "minute" },
                childNodes: [{ type: 3, id: 7, textContent: text }]
              }
            ]
          }
        ]
      }
    ]
  },
  initialOffset: { left: 0, top: 0 }
})

/** The page's text changed, as rrweb records it. */
const textChange = (timestamp: number, text: string) => ({
  type: 3,
  timestamp,
  data: { source: 0, texts: [{ id: 7, value: text }], attributes: [], removes: [], adds: [] }
})

/** One `/s/` request of a session's rrweb events (one blob). */
const sendSnapshots = async (session: string, snapshots: ReadonlyArray<unknown>) => {
  const response = await fetch(`${h.root}/s/`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify([
      {
        event: "$snapshot",
        properties: {
          token: PROJECT_KEY,
          distinct_id: "long-watcher",
          $session_id: session,
          $window_id: "w",
          $snapshot_data: snapshots
        }
      }
    ])
  })
  expect(response.status).toBe(200)
}

/** The blob keys of `session` the page requests, in order, until `stop`. */
const blobRequests = (session: string) => {
  const fetched: Array<string> = []
  const listener = (request: { url: () => string }) => {
    const url = new URL(request.url())
    if (url.pathname.includes(session) && url.searchParams.has("blob_key"))
      fetched.push(url.searchParams.get("blob_key")!)
  }
  page.on("request", listener)
  return { fetched, stop: () => page.off("request", listener) }
}

describe("session replay", () => {
  it("lists the recording posthog-js made, with its filters and watched state", async () => {
    visit = await recordVisit()
    await signIn(page, `${h.root}/project/1/replay`, ADMIN)
    const table = page.getByRole("table", { name: "Recordings" })
    const row = table.getByRole("row").filter({ hasText: "shopper@example.com" })
    await row.waitFor()
    expect(await row.getByRole("cell").last().textContent()).toBe("New")
    // Filters: an event the session has keeps it; one it lacks leaves it out; so does a long minimum duration.
    await page.getByLabel("Has event").fill("bought")
    await page.getByRole("button", { name: "Apply" }).click()
    await poll(() => table.getByRole("row").count()).toBe(2)
    await page.getByLabel("Has event").fill("never happened")
    await page.getByRole("button", { name: "Apply" }).click()
    await page.getByText("No recordings match.").waitFor()
    await page.getByLabel("Has event").fill("")
    await page.getByLabel("Longer than (s)").fill("3600")
    await page.getByRole("button", { name: "Apply" }).click()
    await page.getByText("No recordings match.").waitFor()
    await page.getByLabel("Longer than (s)").fill("1")
    await page.getByLabel("URL contains").fill(new URL(shopUrl).host)
    await page.getByLabel("Person email").fill("shopper@")
    await page.getByRole("button", { name: "Apply" }).click()
    await row.waitFor()
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, "replay")
  }, 180_000)

  it("plays the recording: the page's button as it was before the click and after it", async () => {
    const recording = await h.json(`/api/projects/1/session_recordings/${visit.session}/`)
    const { sources } = await h.json(`/api/projects/1/session_recordings/${visit.session}/snapshots/`)
    const start = Date.parse(sources[0].start_timestamp)
    const blobs: Array<string> = []
    page.on("request", (request) => {
      const url = new URL(request.url())
      if (url.pathname.endsWith("/snapshots/") && url.searchParams.has("blob_key"))
        blobs.push(url.searchParams.get("blob_key")!)
    })
    await page
      .getByRole("link", { name: new Date(recording.start_time).toLocaleString() })
      .first()
      .click()
    await page.waitForURL(new RegExp(`/project/1/replay/${visit.session}$`))
    await page.getByRole("heading", { name: "Recording of shopper@example.com" }).waitFor()
    const frame = page.frameLocator(".player-root iframe")
    await frame.locator("#buy").waitFor()
    // It plays on its own: pause it, then seek by the position slider.
    await page.getByRole("button", { name: "Pause" }).click()
    const position = page.getByRole("slider", { name: "Position" })
    await position.fill(String(Math.max(0, visit.clickedBefore - start - 700)))
    await poll(() => frame.locator("#buy").textContent()).toBe(BEFORE)
    await position.fill(String(visit.clickedAfter - start + 700))
    await poll(() => frame.locator("#buy").textContent()).toBe(AFTER)
    // The timeline marks the click and the console error; the bought event seeks the player when clicked.
    await page
      .getByRole("group", { name: "Timeline" })
      .getByRole("button", { name: /^Click at/ })
      .first()
      .waitFor()
    await page
      .getByRole("group", { name: "Timeline" })
      .getByRole("button", { name: /^Console error: payment declined at/ })
      .waitFor()
    await position.fill("0")
    await poll(() => frame.locator("#buy").textContent()).toBe(BEFORE)
    await page
      .getByRole("list", { name: "Session events" })
      .getByRole("button", { name: /bought/ })
      .click()
    await poll(() => frame.locator("#buy").textContent()).toBe(AFTER)
    await page.getByRole("tab", { name: /Console/ }).click()
    const consoleLog = page.getByRole("list", { name: "Console log" })
    await consoleLog.getByText("payment declined").waitFor()
    await position.fill("0")
    await poll(() => frame.locator("#buy").textContent()).toBe(BEFORE)
    await consoleLog.getByRole("button", { name: /payment declined/ }).click()
    await poll(() => frame.locator("#buy").textContent()).toBe(AFTER)
    // Blob by blob, each once: never the whole recording in one request.
    expect(blobs.length).toBeGreaterThan(0)
    expect(new Set(blobs).size).toBe(blobs.length)
    expect(blobs).toEqual(sources.slice(0, blobs.length).map((s: { blob_key: string }) => s.blob_key))
    // The person is linked.
    expect(await page.getByRole("link", { name: "shopper@example.com" }).getAttribute("href")).toMatch(
      /\/project\/1\/person\/shopper$/
    )
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, "replay-player")
    await page.setViewportSize({ width: 390, height: 844 })
    await screenshot(page, "replay-player-phone")
    await page.setViewportSize({ width: 1280, height: 800 })
    // Watched now.
    await page.goto(`${h.root}/project/1/replay`)
    const row = page
      .getByRole("table", { name: "Recordings" })
      .getByRole("row")
      .filter({ hasText: "shopper@example.com" })
    await poll(() => row.getByRole("cell").last().textContent()).toBe("Watched")
  }, 120_000)

  it("keeps recordings in playlists: a collection of pins and saved filters, with their counts", async () => {
    await page.goto(`${h.root}/project/1/replay`)
    const playlists = page.getByRole("complementary", { name: "Playlists" })
    await playlists.getByLabel("New collection").fill("Checkout")
    await playlists.getByRole("button", { name: "Create" }).click()
    await playlists.getByRole("button", { name: "Checkout", exact: true }).waitFor()
    // Saved filters: the session has the bought event.
    await page.getByLabel("Has event").fill("bought")
    await page.getByRole("button", { name: "Save as playlist" }).click()
    await poll(() => playlists.locator("li").count()).toBe(2)
    await poll(() => playlists.getByText("1 recordings").count()).toBe(1)
    await playlists.getByRole("button", { name: "with bought, since -30d", exact: true }).waitFor()
    // Pinning a recording to the collection, from the player.
    await page.goto(`${h.root}/project/1/replay/${visit.session}`)
    await page.getByLabel("Collection").selectOption({ label: "Checkout" })
    await page.getByRole("button", { name: "Pin to collection" }).click()
    await page.getByText("Pinned.").waitFor()
    await page.goto(`${h.root}/project/1/replay`)
    await playlists.getByText("1 pinned, 1 watched").waitFor()
    await playlists.getByRole("button", { name: "Pin Checkout" }).click()
    await playlists.getByRole("button", { name: "Unpin Checkout" }).waitFor()
    const stored = await h.json("/api/projects/1/session_recording_playlists/?pinned=true")
    expect(stored.results.map((p: { name: string }) => p.name)).toEqual(["Checkout"])
    await playlists.getByRole("button", { name: "Checkout", exact: true }).click()
    const table = page.getByRole("table", { name: "Recordings" })
    await poll(() => table.getByRole("row").count()).toBe(2)
    expect(await axeViolations(page)).toEqual([])
    await page.setViewportSize({ width: 390, height: 844 })
    await screenshot(page, "replay-phone")
    await page.setViewportSize({ width: 1280, height: 800 })
  }, 120_000)

  it("streams a long recording: blobs are fetched as playback nears them, not all before it starts", async () => {
    // Half an hour of a page whose text says the minute: one /s/ request (one blob) per minute.
    const session = crypto.randomUUID()
    const t0 = Date.now() - 40 * 60_000
    const MINUTES = 30
    const text = (minute: number) => `minute ${minute}`
    await sendSnapshots(session, [
      { type: 4, timestamp: t0, data: { href: "https://long.test/", width: 800, height: 600 } },
      { type: 2, timestamp: t0, data: minutePage(text(0)) }
    ])
    for (let minute = 1; minute <= MINUTES; minute++)
      await sendSnapshots(session, [textChange(t0 + minute * 60_000, text(minute))])
    const { sources } = await h.json(`/api/projects/1/session_recordings/${session}/snapshots/`)
    expect(sources).toHaveLength(MINUTES + 1)
    const { fetched, stop } = blobRequests(session)
    try {
      await page.goto(`${h.root}/project/1/replay/${session}`)
      const frame = page.frameLocator(".player-root iframe")
      await poll(() => frame.locator("#minute").textContent()).toBe(text(0))
      await page.getByRole("button", { name: "Pause" }).click()
      // Playing from the start: the first blob and the one after it (the next 20 seconds), no more.
      expect(fetched).toEqual(sources.slice(0, 2).map((s: { blob_key: string }) => s.blob_key))
      // A seek far ahead fetches the blobs up to there (and the 20 seconds after), in order, and no further.
      const target = 25 * 60_000 + 30_000
      await page.getByRole("slider", { name: "Position" }).fill(String(target))
      await poll(() => frame.locator("#minute").textContent()).toBe(text(25))
      expect(fetched).toEqual(sources.slice(0, 27).map((s: { blob_key: string }) => s.blob_key))
      await page.getByRole("slider", { name: "Position" }).fill(String(10 * 60_000 + 5_000))
      await poll(() => frame.locator("#minute").textContent()).toBe(text(10))
      // Seeking back needs nothing fetched again.
      expect(fetched).toHaveLength(27)
    } finally {
      stop()
    }
  }, 120_000)

  it("holds only what playback needs: blobs before the latest full snapshot are dropped, and fetched again on a seek back", async () => {
    // Half an hour, one blob a minute, with a full snapshot every five minutes (as posthog-js takes
    // them periodically) and the text changing each minute between.
    const session = crypto.randomUUID()
    const t0 = Date.now() - 40 * 60_000
    const text = (minute: number) => `minute ${minute}`
    const blobs = Array.from({ length: 31 }, (_, minute) => {
      const at = t0 + minute * 60_000
      return minute % 5 === 0
        ? [
            { type: 4, timestamp: at, data: { href: "https://long.test/", width: 800, height: 600 } },
            { type: 2, timestamp: at, data: minutePage(text(minute)) }
          ]
        : [textChange(at, text(minute))]
    })
    for (const blob of blobs) await sendSnapshots(session, blob)
    const { sources } = await h.json(`/api/projects/1/session_recordings/${session}/snapshots/`)
    expect(sources).toHaveLength(blobs.length)
    const keyOf = (index: number) => sources[index].blob_key as string
    const { fetched, stop } = blobRequests(session)
    try {
      await page.goto(`${h.root}/project/1/replay/${session}`)
      const frame = page.frameLocator(".player-root iframe")
      const player = page.locator(".player")
      const held = async () => ({
        blobs: await player.getAttribute("data-held-blobs"),
        events: Number(await player.getAttribute("data-held-events"))
      })
      await poll(() => frame.locator("#minute").textContent()).toBe(text(0))
      await page.getByRole("button", { name: "Pause" }).click()
      // At 27:30: the full snapshot at 25 and what follows, to the lookahead's end (blob 28, 20 s on).
      await page.getByRole("slider", { name: "Position" }).fill(String(27 * 60_000 + 30_000))
      await poll(() => frame.locator("#minute").textContent()).toBe(text(27))
      await poll(held).toEqual({ blobs: "25-28", events: blobs.slice(25, 29).flat().length })
      expect(Number(await player.getAttribute("data-held-bytes"))).toBeGreaterThan(0)
      // Back to 12:05: fetched again from the blob holding 12:05 back to the full snapshot at 10.
      fetched.length = 0
      await page.getByRole("slider", { name: "Position" }).fill(String(12 * 60_000 + 5_000))
      await poll(() => frame.locator("#minute").textContent()).toBe(text(12))
      await poll(held).toEqual({ blobs: "10-13", events: blobs.slice(10, 14).flat().length })
      expect(fetched).toEqual([13, 12, 11, 10].map(keyOf))
      // Playing on from there draws each minute as before.
      await page.getByRole("slider", { name: "Position" }).fill(String(14 * 60_000 + 30_000))
      await poll(() => frame.locator("#minute").textContent()).toBe(text(14))
    } finally {
      stop()
    }
  }, 120_000)
})
