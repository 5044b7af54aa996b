import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { BrowserContext, Page } from "playwright-core"
import { call, snapshotPayload } from "../../core/test/support.js"
import { signIn } from "../../node/test/browser.js"
import { ADMIN, axeViolations, captureData, type Harness, PROJECT_KEY, SESSIONS, startHarness } from "./harness.js"
import { drillIntoToday, eventually, screenshots } from "./insightHelpers.js"

// The persons behind an insight's point, each with a link to the recording of the session their
// matching events happened in: posthog-node's page views by ada and grace (each in a session of
// their own), and a recording of ada's session uploaded through `/s/` as posthog-js sends one.

let h: Harness
let context: BrowserContext
let page: Page

beforeAll(async () => {
  h = await startHarness()
  await captureData(h.root)
  const now = Date.now()
  const body = snapshotPayload(
    SESSIONS.ada,
    "ada",
    {
      w1: [
        { type: 4, timestamp: now, data: { href: "https://shop.test/pricing", width: 800, height: 600 } },
        { type: 2, timestamp: now + 1, data: { node: { type: 0, childNodes: [] } } }
      ]
    },
    PROJECT_KEY
  )
  const res = await call(h.zed, "/s/", { method: "POST", key: null, body: JSON.stringify(body) })
  expect(res.status, res.text).toBe(200)
  context = await h.browser.newContext({ viewport: { width: 1280, height: 900 }, locale: "en-US" })
  page = await context.newPage()
  await signIn(page, `${h.root}/project/1/insights`, ADMIN)
}, 180_000)
afterAll(async () => {
  await context?.close()
  await h?.close()
})

describe("insight persons", () => {
  it("links each person whose matching events were recorded to that recording", async () => {
    // Today: both viewed pages, only ada's session was recorded.
    const { persons } = await drillIntoToday(h, page, "Daily visitors")
    const people = persons.getByRole("listitem")
    await eventually(async () => (await people.allTextContents()).sort()).toEqual([
      "ada@example.com · Watch recording of ada@example.com",
      "grace@example.com"
    ])
    const watch = persons.getByRole("link", { name: "Watch recording of ada@example.com" })
    expect(await watch.getAttribute("href")).toBe(`/project/1/replay/${SESSIONS.ada}`)
    expect(await axeViolations(page)).toEqual([])
    await screenshots(page, "insight-persons-recordings")

    await watch.click()
    await page.getByRole("heading", { level: 1, name: "Recording of ada@example.com" }).waitFor()
    expect(new URL(page.url()).pathname).toBe(`/project/1/replay/${SESSIONS.ada}`)
  })
})
