import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { BrowserContext, Page } from "playwright-core"
import { PostHog } from "posthog-node"
import { signIn } from "../../node/test/browser.js"
import { ADMIN, axeViolations, type Harness, PROJECT_KEY, screenshot, startHarness } from "./harness.js"

// A function's page charts its invocations: a transformation that fails on some events runs on
// what posthog-node sends, and the chart's totals are the successes and failures the test counts.

const poll = <T>(check: () => T | Promise<T>) => expect.poll(check, { timeout: 20_000 })

let h: Harness
let context: BrowserContext
let page: Page

beforeAll(async () => {
  h = await startHarness()
  context = await h.browser.newContext({ viewport: { width: 1280, height: 900 } })
  page = await context.newPage()
}, 180_000)
afterAll(async () => {
  await context?.close()
  await h?.close()
})

describe("function metrics", () => {
  it("charts invocations, successes and failures of what the function ran", async () => {
    await h.json("/api/projects/1/zed_functions/", {
      method: "POST",
      body: JSON.stringify({
        type: "transformation",
        name: "Fails on boom",
        code: "if (event.properties.boom) {\n  throw Error('boom')\n}\nreturn event",
        enabled: true
      })
    })
    const sent = Array.from({ length: 6 + Math.floor(Math.random() * 6) }, () => Math.random() < 0.4)
    const failed = sent.filter(Boolean).length
    const ph = new PostHog(PROJECT_KEY, { host: h.root, flushAt: 50, flushInterval: 0 })
    sent.forEach((boom, i) =>
      ph.capture({ distinctId: `u${i}`, event: "order", properties: boom ? { boom: true } : {} })
    )
    await ph.shutdown()

    await signIn(page, `${h.root}/project/1/functions`, ADMIN)
    await page.getByRole("button", { name: "Fails on boom", exact: true }).click()
    await page.getByRole("img", { name: "line chart: Invocations" }).waitFor()
    const legend = page.getByRole("list", { name: "Legend" })
    const totals = async () => {
      await page.getByRole("button", { name: "Refresh metrics" }).click()
      return legend.getByRole("listitem").allInnerTexts()
    }
    await poll(totals).toEqual([
      expect.stringMatching(new RegExp(`^Invocations\\s*${sent.length}$`)),
      expect.stringMatching(new RegExp(`^Succeeded\\s*${sent.length - failed}$`)),
      expect.stringMatching(new RegExp(`^Failed\\s*${failed}$`))
    ])
    // Hourly over the last day: 25 hours, the last this one.
    await page.getByLabel("Metrics range").selectOption("-24h")
    await poll(totals).toContainEqual(expect.stringMatching(new RegExp(`^Invocations\\s*${sent.length}$`)))
    expect(await axeViolations(page)).toEqual([])
    await page.getByRole("heading", { name: "Metrics" }).scrollIntoViewIfNeeded()
    await screenshot(page, "function-metrics")
    await page.setViewportSize({ width: 390, height: 844 })
    await page.getByRole("heading", { name: "Metrics" }).scrollIntoViewIfNeeded()
    await screenshot(page, "function-metrics-phone")
  }, 120_000)
})
