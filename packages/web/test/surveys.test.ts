import { readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { BrowserContext, Page } from "playwright-core"
import { listen, signIn } from "../../node/test/browser.js"
import { ADMIN, axeViolations, type Harness, PROJECT_KEY, screenshot, startHarness } from "./harness.js"

// The surveys and early access pages in Chromium against a real Zed: a survey made and launched in
// the editor is shown by the real posthog-js on a site's page, and the answers given there are the
// page's results; an early access feature made in the page lists who opted in through posthog-js.

const BUNDLE = readFileSync(new URL("../../../node_modules/posthog-js/dist/array.full.js", import.meta.url))
const SHOPPER = { distinctId: "shopper-1", email: "shopper@example.com" }

let h: Harness
let site: Server
let siteUrl: string
let context: BrowserContext
let page: Page

/** A site's page with posthog-js, pointed at Zed, its visitor identified. */
const shopPage = (zed: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Shop</title><script src="/array.full.js"></script></head>
<body><h1>Shop</h1><script>
  posthog.init(${JSON.stringify(PROJECT_KEY)}, {
    api_host: ${JSON.stringify(zed)},
    // Headless Chromium says HeadlessChrome: posthog-js would drop everything as a bot's.
    opt_out_useragent_filter: true,
    autocapture: false,
    disable_session_recording: true,
    request_queue_config: { flush_interval_ms: 250 }
  })
  posthog.identify(${JSON.stringify(SHOPPER.distinctId)}, { email: ${JSON.stringify(SHOPPER.email)} })
</script></body></html>`

beforeAll(async () => {
  h = await startHarness()
  site = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname
    if (path === "/array.full.js") res.writeHead(200, { "content-type": "text/javascript" }).end(BUNDLE)
    else if (path === "/shop.html") res.writeHead(200, { "content-type": "text/html" }).end(shopPage(h.root))
    else res.writeHead(404).end()
  })
  siteUrl = await listen(site)
  context = await h.browser.newContext({ viewport: { width: 1280, height: 900 } })
  page = await context.newPage()
  await signIn(page, `${h.root}/project/1/surveys`, ADMIN)
}, 120_000)
afterAll(async () => {
  await context?.close()
  site?.close()
  await h?.close()
})

/** The site's page in a fresh browser context (a new visitor's browser). */
const visit = async () => {
  const visitor = await h.browser.newContext()
  const tab = await visitor.newPage()
  await tab.goto(`${siteUrl}/shop.html`)
  return { visitor, tab }
}

const COLOURS = ["Red", "Blue", "Green"]
let surveyUrl: string

describe("surveys", () => {
  it("makes a survey with a live preview, and refuses bad questions beside them", async () => {
    await page.goto(`${h.root}/project/1/surveys`)
    await page.getByRole("link", { name: "New survey" }).click()
    await page.getByLabel("Name", { exact: true }).fill("Shop feedback")
    const preview = page.getByRole("figure", { name: "Survey preview" })
    // The default question: a 0–10 rating, as posthog-js draws it.
    await expect(preview.locator(".preview-rating .preview-option").allTextContents()).resolves.toEqual(
      Array.from({ length: 11 }, (_, i) => String(i))
    )
    await page.getByRole("button", { name: "Add question" }).click()
    await page.getByLabel("Question 2: type").selectOption("single_choice")
    await page.getByLabel("Question 2", { exact: true }).fill("Favourite colour?")
    await page.getByLabel("Question 2: choices (one a line)").fill("Red")
    await page.getByRole("button", { name: "Create survey" }).click()
    // One choice is not a choice: the API's refusal is shown at the question it names.
    await expect(page.locator(".question").nth(1).getByRole("alert").textContent()).resolves.toBeTruthy()
    await page.getByLabel("Question 2: choices (one a line)").fill(COLOURS.join("\n"))
    await page.getByRole("button", { name: "Next question" }).click()
    await expect(preview.locator(".preview-choices li").allTextContents()).resolves.toEqual(
      COLOURS.map((colour) => `◯ ${colour}`)
    )
    await expect(preview.locator(".preview-question").textContent()).resolves.toBe("Favourite colour?")
    await page.getByLabel("URL value").fill("/shop")
    await page.getByRole("button", { name: "Create survey" }).click()
    await page.waitForURL(/\/surveys\/[0-9a-f-]{36}$/)
    surveyUrl = page.url()
    await page.getByText("Status: Draft").waitFor()
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, "survey-editor")
    await page.setViewportSize({ width: 390, height: 844 })
    await screenshot(page, "survey-editor-phone")
    await page.setViewportSize({ width: 1280, height: 900 })
  })

  it("launched, posthog-js shows it on the site; the answers are the survey's results", async () => {
    await page.goto(surveyUrl)
    await page.getByRole("button", { name: "Launch" }).click()
    await page.getByText("Status: Running").waitFor()
    const { visitor, tab } = await visit()
    try {
      await tab.locator('button[aria-label="Rate 9"]').click({ timeout: 60_000 })
      await tab.locator("button.form-submit").click()
      await tab.getByText("Blue", { exact: true }).click()
      const sent = tab.waitForRequest((request) => request.postData()?.includes("survey sent") ?? false, {
        timeout: 30_000
      })
      await tab.locator("button.form-submit").click()
      await sent.catch(() => undefined)
    } finally {
      await visitor.close()
    }
    // The results, as soon as the events are stored.
    const rating = page.getByRole("region", { name: "Results of question 1" })
    await expect
      .poll(
        async () => {
          await page.goto(surveyUrl)
          return rating
            .getByText(/^NPS/)
            .textContent({ timeout: 5000 })
            .catch(() => "")
        },
        { timeout: 30_000 }
      )
      // One answer of 9: one promoter, no detractors.
      .toBe("NPS 100")
    await expect(rating.textContent()).resolves.toContain("1 promoters, 0 passives, 0 detractors")
    // Every value of the scale, the one given counted.
    await expect(
      rating
        .getByRole("table")
        .locator("tbody tr")
        .evaluateAll((rows) =>
          rows.map((row) => [row.querySelector("th")!.textContent, row.querySelector("td")!.textContent])
        )
    ).resolves.toEqual(Array.from({ length: 11 }, (_, value) => [String(value), value === 9 ? "1" : "0"]))
    const colours = page.getByRole("table", { name: "Answers to Favourite colour?" })
    await expect(colours.locator("tbody tr").allInnerTexts()).resolves.toEqual([expect.stringMatching(/^Blue\s+1/)])
    expect(await axeViolations(page)).toEqual([])
    await page.getByRole("heading", { name: "Results" }).scrollIntoViewIfNeeded()
    await screenshot(page, "survey-results")
  }, 180_000)

  it("stops and archives it: posthog-js no longer gets it", async () => {
    await page.goto(surveyUrl)
    await page.getByRole("button", { name: "Stop" }).click()
    await page.getByText("Status: Completed").waitFor()
    // posthog-js sees its end date, and shows it no more; archived, it is not listed at all.
    const listed = () => fetch(`${h.root}/api/surveys/?token=${PROJECT_KEY}`).then((r) => r.json())
    const [stopped] = (await listed()).surveys
    expect(Date.parse(stopped.end_date)).toBeLessThanOrEqual(Date.now())
    await page.getByRole("button", { name: "Archive" }).click()
    await page.getByText("Status: Archived").waitFor()
    expect((await listed()).surveys).toEqual([])
    await page.goto(`${h.root}/project/1/surveys`)
    const table = page.getByRole("table", { name: "Surveys" })
    await page.getByText("No surveys match.").waitFor()
    await page.getByLabel("Archived").check()
    await expect
      .poll(() => table.locator("tbody tr").allInnerTexts())
      .toEqual([expect.stringMatching(/^Shop feedback\s+Popover\s+Archived\s+2/)])
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, "surveys")
  })
})

describe("early access features", () => {
  it("makes a feature with its stage and flag; lists who opted in through posthog-js", async () => {
    await page.goto(`${h.root}/project/1/early_access_features`)
    await page.getByLabel("Name", { exact: true }).fill("Dark mode")
    await page.getByLabel("Description").fill("Easier on the eyes")
    await page.getByRole("form", { name: "New early access feature" }).getByLabel("Stage").selectOption("beta")
    await page.getByRole("button", { name: "Create feature" }).click()
    const row = page.getByRole("row").filter({ hasText: "Dark mode" })
    await row.getByText("Nobody yet").waitFor()
    const flagKey = (await row.getByRole("link").textContent())!
    expect(flagKey).toBe("dark-mode")
    // The same name again: the API's refusal, beside the name.
    await page.getByLabel("Name", { exact: true }).fill("Dark mode")
    await page.getByRole("button", { name: "Create feature" }).click()
    await page.locator("form[aria-label='New early access feature'] .field-error").waitFor()

    const { visitor, tab } = await visit()
    try {
      await tab.waitForFunction(() => (window as any).posthog?.__loaded === true)
      const listed = await tab.evaluate(
        () => new Promise<any>((resolve) => (window as any).posthog.getEarlyAccessFeatures(resolve, true))
      )
      expect(listed.map((feature: { flagKey: string }) => feature.flagKey)).toEqual([flagKey])
      await tab.evaluate((key) => (window as any).posthog.updateEarlyAccessFeatureEnrollment(key, true), flagKey)
      await expect
        .poll(
          async () => {
            await page.reload()
            return row
              .getByRole("list")
              .textContent({ timeout: 5000 })
              .catch(() => "")
          },
          { timeout: 30_000 }
        )
        .toBe(SHOPPER.email)
    } finally {
      await visitor.close()
    }
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, "early-access")
  }, 120_000)
})
