import { expect } from "@effect/vitest"
import type { Page } from "playwright-core"
import { PostHog } from "posthog-node"
import { signIn } from "../../node/test/browser.js"
import type { Harness } from "./harness.js"
import { ADMIN, PROJECT_KEY, screenshot, startHarness } from "./harness.js"

// What the insight tests share: reading numbers off the page, hovering a chart, saving the
// builder's insight, asking the API for the same query, and events sent on chosen days.

/** `expect.poll` with time for a loaded machine to compute and draw. */
export const eventually = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 30_000, interval: 200 })

/** The numbers in texts such as "1,234" or "50.0%". */
export const numbers = (texts: ReadonlyArray<string>) => texts.map((text) => Number(text.replace(/[^\d.-]/g, "")))

/** Hovers the first chart of `page` at the last of its `count` labels; where, and the tooltip it shows. */
export const hoverLast = async (page: Page, count: number) => {
  const over = page.locator(".u-over").first()
  // A chart drawn again (its data replaced) is briefly detached, without a box.
  await eventually(() => over.boundingBox()).not.toBeNull()
  const { width, height } = (await over.boundingBox())!
  const x = ((count - 0.5) / count) * width
  await over.hover({ position: { x, y: height / 2 } })
  const tooltip = page.getByRole("tooltip").first()
  await tooltip.waitFor()
  return { over, box: { width, height }, x, tooltip }
}

/** Saves the builder's insight as `name`; the insight, computed, as the API answers it. */
export const saveAs = async (h: Harness, page: Page, name: string) => {
  await page.getByLabel("Name", { exact: true }).fill(name)
  await page.getByRole("button", { name: "Save" }).click()
  await page.getByRole("heading", { level: 1, name }).waitFor()
  const shortId = new URL(page.url()).pathname.split("/").at(-1)
  return (await h.json(`/api/projects/1/insights/?short_id=${shortId}&refresh=blocking`)).results[0]
}

/**
 * Saves a daily-active-users trend of page views as `name`, opens it and clicks today's point (the
 * last of -7d's 8 days): the insight, and the persons panel that click opens.
 */
export const drillIntoToday = async (h: Harness, page: Page, name: string) => {
  const insight = await h.json("/api/projects/1/insights/", {
    method: "POST",
    body: JSON.stringify({
      name,
      saved: true,
      query: {
        kind: "InsightVizNode",
        source: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview", math: "dau" }] }
      }
    })
  })
  await page.goto(`${h.root}/project/1/insights/${insight.short_id}`)
  await page.getByRole("heading", { level: 1, name }).waitFor()
  const { over, box, x } = await hoverLast(page, 8)
  // One series: any height at today's label picks it.
  await over.click({ position: { x, y: box.height / 2 } })
  return { insight, persons: page.getByRole("region", { name: /^Persons: / }) }
}

/** The query API's result for `source` (an insight kind's node). */
export const queryResult = async (h: Harness, source: unknown) =>
  (await h.json("/api/projects/1/query/", { method: "POST", body: JSON.stringify({ query: source }) })).results

const DAY = 86_400_000

/** Midnight UTC `days` days before today, plus `seconds`. */
export const dayAgo = (days: number, seconds = 0) => {
  const today = new Date()
  today.setUTCHours(0, 0, 0, 0)
  return new Date(today.getTime() - days * DAY + seconds * 1000)
}

export interface Sent {
  readonly who: string
  readonly event: string
  /** Days before today. */
  readonly day: number
  readonly properties?: Record<string, unknown>
}

/** Sends `events` through posthog-node, each on its day (a second apart, in order), and each
 * person's properties by identify. */
export const send = async (
  h: Harness,
  people: Record<string, Record<string, unknown>>,
  events: ReadonlyArray<Sent>
) => {
  const ph = new PostHog(PROJECT_KEY, { host: h.root, flushAt: 1, flushInterval: 0 })
  for (const [who, properties] of Object.entries(people)) ph.identify({ distinctId: who, properties })
  events.forEach(({ who, event, day, properties }, i) =>
    ph.capture({ distinctId: who, event, properties: properties ?? {}, timestamp: dayAgo(day, i + 1) })
  )
  await ph.shutdown()
}

/** Screenshots for docs/web-app.md at desktop width (`name`) and phone width (`name-phone`). */
export const screenshots = async (page: Page, name: string) => {
  const desktop = page.viewportSize()!
  await screenshot(page, name)
  await page.setViewportSize({ width: 390, height: 844 })
  // The charts follow the window's width on resize.
  await page.waitForTimeout(300)
  await screenshot(page, `${name}-phone`)
  await page.setViewportSize(desktop)
}

/** A harness with `events` sent, and a page signed in at the insights list (1280 × 900, en-US). */
export const insightsSession = async (events: ReadonlyArray<Sent>) => {
  const h = await startHarness()
  await send(h, {}, events)
  const context = await h.browser.newContext({ viewport: { width: 1280, height: 900 }, locale: "en-US" })
  const page = await context.newPage()
  await signIn(page, `${h.root}/project/1/insights`, ADMIN)
  return {
    h,
    page,
    close: async () => {
      await context.close()
      await h.close()
    }
  }
}
