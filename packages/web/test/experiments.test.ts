import { createHash } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { BrowserContext, Page } from "playwright-core"
import { PostHog } from "posthog-node"
import { signIn } from "../../node/test/browser.js"
import { ADMIN, axeViolations, type Harness, PROJECT_KEY, screenshot, screenshots, startHarness } from "./harness.js"

// The experiments pages in Chromium against a real Zed: an experiment made in the page (a new flag,
// a hypothesis, primary and secondary metrics) and launched there; posthog-node evaluates its flag
// for simulated users and sends their purchases; the page's results (exposures, conversion, chance
// to win, p-values) are the API's, its sample-size answer the API's; exposures off the split are
// warned of; shipped and archived, the list shows it. A holdout made on the experiments page and
// edited on the flag's page: posthog-node gets `holdout-<id>` for exactly the persons whose holdout
// hash falls within its share; deleted there, the draft using it loses it.

let h: Harness
let context: BrowserContext
let page: Page

const KEY = "checkout-button"
const USERS = 40

beforeAll(async () => {
  h = await startHarness()
  // A metric names an event Zed has seen.
  const seed = new PostHog(PROJECT_KEY, { host: h.root, flushAt: 1, flushInterval: 0 })
  seed.capture({ distinctId: "seed", event: "purchase" })
  await seed.shutdown()
  context = await h.browser.newContext({ viewport: { width: 1280, height: 900 } })
  page = await context.newPage()
  await signIn(page, `${h.root}/project/1/experiments`, ADMIN)
}, 120_000)
afterAll(async () => {
  await context?.close()
  await h?.close()
})

/** PostHog's holdout hash (docs/experiments.md): sha1("holdout-" + distinct id), 60 bits over 2⁶⁰ − 1. */
const holdoutHash = (distinctId: string) =>
  Number(BigInt(`0x${createHash("sha1").update(`holdout-${distinctId}`).digest("hex").slice(0, 15)}`)) /
  0xfffffffffffffff

const percent = (x: number | null) => (x === null ? "—" : `${(x * 100).toFixed(1)}%`)
let experimentUrl: string

describe("experiments", () => {
  it("makes an experiment with a new flag, a hypothesis and metrics, and launches it", async () => {
    await page.goto(`${h.root}/project/1/experiments`)
    await page.getByRole("link", { name: "New experiment" }).click()
    await page.getByLabel("Name", { exact: true }).fill("Checkout button")
    await page.getByLabel("Hypothesis").fill("A green button sells more")
    await page.getByLabel("Feature flag key").fill(KEY)
    await page.getByLabel("Variant 2: rollout %").fill("40")
    await page.getByRole("button", { name: "Create experiment" }).click()
    // 60/40 is not a split, and the metric names no event: the API's refusal is shown.
    await expect(page.getByRole("alert").first().textContent()).resolves.toBeTruthy()
    await page.getByLabel("Variant 1: rollout %").fill("60")
    // The edit answers it: the refusal goes.
    await expect(page.getByRole("alert").count()).resolves.toBe(0)
    await page.getByLabel("Primary metric 1: steps (one event a line)").fill("purchase")
    await page.getByRole("button", { name: "Add metric" }).nth(1).click()
    await page.getByLabel("Secondary metric 1: kind").selectOption("count")
    await page.getByLabel("Secondary metric 1: event").fill("purchase")
    expect(await axeViolations(page)).toEqual([])
    await page.evaluate(() => window.scrollTo(0, 0))
    await screenshot(page, "experiment-new")
    await page.getByRole("button", { name: "Create experiment" }).click()
    await page.waitForURL(/\/experiments\/\d+$/)
    experimentUrl = page.url()
    await page.getByText("Status: Draft").waitFor()
    await page.getByText("A green button sells more").waitFor()
    await page.getByRole("button", { name: "Launch" }).click()
    await page.getByText("Status: Running").waitFor()
    const id = experimentUrl.split("/").pop()
    const stored = await h.json(`/api/projects/1/experiments/${id}/`)
    expect(stored).toMatchObject({
      status: "running",
      hypothesis: "A green button sells more",
      feature_flag_key: KEY,
      parameters: {
        feature_flag_variants: [
          { key: "control", rollout_percentage: 60 },
          { key: "test", rollout_percentage: 40 }
        ]
      }
    })
    expect(stored.metrics).toHaveLength(1)
    expect(stored.metrics_secondary).toHaveLength(1)
  })

  it("shows the API's results for posthog-node's exposures and purchases, intervals drawn", async () => {
    const node = new PostHog(PROJECT_KEY, { host: h.root, flushAt: 500, flushInterval: 0 })
    for (let i = 0; i < USERS; i++) {
      const variant = await node.getFeatureFlag(KEY, `shopper-${i}`)
      // Test converts more: every second shopper in test, every fourth in control.
      if (i % (variant === "test" ? 2 : 4) === 0)
        node.capture({ distinctId: `shopper-${i}`, event: "purchase", timestamp: new Date(Date.now() + 100) })
    }
    await node.shutdown()
    await new Promise((resolve) => setTimeout(resolve, 150))
    const id = experimentUrl.split("/").pop()
    const api = await h.json(`/api/projects/1/experiments/${id}/results/?refresh=force_blocking`)
    await page.goto(experimentUrl)
    const table = page.getByRole("table", { name: "Primary: Conversion: purchase: results" })
    await table.waitFor()
    const rows = await table
      .locator("tbody tr")
      .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((cell) => cell.textContent ?? "")))
    const variants = api.primary[0].results.variants
    expect(variants.reduce((s: number, v: { exposures: number }) => s + v.exposures, 0)).toBe(USERS)
    expect(rows.map((r) => [r[0], r[1], r[2], r[3], r[6], r[7]])).toEqual(
      variants.map(
        (v: {
          key: string
          exposures: number
          estimate: number
          bayesian: { chance_to_win: number }
          frequentist: { adjusted_p_value: number; significant: boolean } | null
        }) => [
          v.key,
          String(v.exposures),
          percent(v.estimate),
          percent(v.bayesian.chance_to_win),
          v.frequentist ? v.frequentist.adjusted_p_value.toPrecision(3) : "—",
          v.frequentist ? (v.frequentist.significant ? "Yes" : "No") : "—"
        ]
      )
    )
    // The test variant's intervals, drawn and labelled with the API's bounds.
    const test = variants.find((v: { key: string }) => v.key === "test")
    const signed = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x * 100).toFixed(1)}%`
    const credible = test.bayesian.credible_interval
    await table
      .getByRole("img", { name: `${signed(credible.lower)} to ${signed(credible.upper)}` })
      .first()
      .waitFor()
    await page.getByRole("table", { name: "Secondary: purchase per person: results" }).waitFor()

    // The sample-size calculator answers what the API does.
    await page.getByLabel("Baseline conversion %").fill("25")
    await page.getByLabel("Minimum detectable effect %").fill("30")
    await page.getByLabel("Exposures a day").fill("200")
    await page.getByRole("button", { name: "Calculate" }).click()
    const plan = await h.json(
      "/api/projects/1/experiments/sample_size/?baseline_rate=0.25&minimum_detectable_effect=30&variants=2&daily_exposures=200"
    )
    await expect(page.getByRole("status").textContent()).resolves.toContain(
      `${plan.per_variant.toLocaleString("en-US")} persons a variant`
    )
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, "experiment-results")
    await page.setViewportSize({ width: 390, height: 844 })
    await screenshot(page, "experiment-results-phone")
    await page.setViewportSize({ width: 1280, height: 900 })
  }, 120_000)

  it("warns of a sample-ratio mismatch when exposures do not follow the split", async () => {
    const skewed = await h.json("/api/projects/1/experiments/", {
      method: "POST",
      body: JSON.stringify({
        name: "Skewed",
        feature_flag_key: "skewed-exp",
        start_date: new Date(Date.now() - 60_000).toISOString(),
        metrics: [
          { kind: "ExperimentMetric", metric_type: "funnel", series: [{ kind: "EventsNode", event: "purchase" }] }
        ]
      })
    })
    // A redirect losing test's visitors: 30 exposed to control, 2 to test, on a 50/50 split.
    const node = new PostHog(PROJECT_KEY, { host: h.root, flushAt: 100, flushInterval: 0 })
    for (let i = 0; i < 32; i++)
      node.capture({
        distinctId: `skewed-${i}`,
        event: "$feature_flag_called",
        properties: { $feature_flag: "skewed-exp", $feature_flag_response: i < 30 ? "control" : "test" }
      })
    await node.shutdown()
    const api = await h.json(`/api/projects/1/experiments/${skewed.id}/results/?refresh=force_blocking`)
    const srm = api.primary[0].results.sample_ratio_mismatch
    expect(srm.mismatch).toBe(true)
    await page.goto(`${h.root}/project/1/experiments/${skewed.id}`)
    await expect(page.getByRole("alert").textContent()).resolves.toContain(
      `Sample-ratio mismatch (p = ${srm.p_value.toPrecision(2)})`
    )
    // The experiment before it had none.
    await page.goto(experimentUrl)
    await page.getByRole("table", { name: "Primary: Conversion: purchase: results" }).waitFor()
    await expect(page.getByText(/Sample-ratio mismatch/).count()).resolves.toBe(0)
  })

  it("ships a variant, archives it, and lists it with its status, flag and dates", async () => {
    await page.goto(experimentUrl)
    await page.getByLabel("Variant to ship").selectOption("test")
    await page.getByRole("button", { name: "Ship variant" }).click()
    await page.getByText("Status: Stopped").waitFor()
    await page.getByRole("button", { name: "Archive" }).click()
    await page.getByText("(archived)").waitFor()
    const id = experimentUrl.split("/").pop()
    const stored = await h.json(`/api/projects/1/experiments/${id}/`)
    expect(stored).toMatchObject({ status: "stopped", archived: true, conclusion: "won" })

    await page.goto(`${h.root}/project/1/experiments`)
    const rows = page.getByRole("table", { name: "Experiments" }).locator("tbody tr td:first-child")
    // Archived ones are listed on their own.
    await expect.poll(() => rows.allTextContents()).toEqual(["Skewed"])
    await page.getByLabel("Archived").check()
    await expect.poll(() => rows.allTextContents()).toEqual(["Checkout button"])
    const row = page.getByRole("table", { name: "Experiments" }).locator("tbody tr")
    const day = (d: string) => new Date(d).toLocaleDateString("en-US")
    await expect(row.first().locator("td").allTextContents()).resolves.toEqual([
      "Checkout button",
      "Stopped",
      KEY,
      day(stored.start_date),
      day(stored.end_date)
    ])
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, "experiments")
    await page.setViewportSize({ width: 390, height: 844 })
    await screenshot(page, "experiments-phone")
    await page.setViewportSize({ width: 1280, height: 900 })
  })

  it("makes a holdout, picks it for a draft, edits its share on the flag's page, and /flags holds those persons out", async () => {
    await page.goto(`${h.root}/project/1/experiments`)
    await page.getByLabel("New holdout: name").fill("Long-term")
    const share = page.getByLabel("New holdout: share held out %")
    await share.fill("150")
    await page.getByRole("button", { name: "Create holdout" }).click()
    // Over 100: the API's refusal, beside the share.
    const beside = share.locator("xpath=../following-sibling::*[1]")
    await expect.poll(() => beside.textContent()).toMatch(/between 0 and 100/)
    expect(await beside.getAttribute("role")).toBe("alert")
    await share.fill("30")
    await page.getByRole("button", { name: "Create holdout" }).click()
    const holdouts = async () => (await h.json("/api/projects/1/experiment_holdouts/")).results
    await expect.poll(async () => (await holdouts()).length).toBe(1)
    const [holdout] = await holdouts()
    expect(holdout).toMatchObject({ name: "Long-term", filters: [{ rollout_percentage: 30 }] })
    await page.getByLabel(`Holdout ${holdout.id}: share held out %`).waitFor()
    expect(await axeViolations(page)).toEqual([])
    await screenshots(page, "experiment-holdouts")

    // A draft experiment on a new flag, held out by it.
    await page.getByRole("link", { name: "New experiment" }).click()
    await page.getByLabel("Name", { exact: true }).fill("Held out")
    await page.getByLabel("Feature flag key").fill("held-out-exp")
    await page.getByLabel("Holdout").selectOption({ label: "Long-term (30%)" })
    await page.getByLabel("Primary metric 1: steps (one event a line)").fill("purchase")
    await page.getByRole("button", { name: "Create experiment" }).click()
    await page.waitForURL(/\/experiments\/\d+$/)
    await page.getByText("Status: Draft").waitFor()
    const experiment = await h.json(`/api/projects/1/experiments/${page.url().split("/").pop()}/`)
    expect(experiment.holdout).toMatchObject({ id: holdout.id })

    // The share changed on the flag's page: the draft's flag follows it.
    await page.goto(`${h.root}/project/1/feature_flags/${experiment.feature_flag.id}`)
    // The flag names the experiment using it (its experiment_set), linked.
    await page.getByRole("link", { name: `experiment ${experiment.id}`, exact: true }).waitFor()
    await page.getByLabel(`Holdout ${holdout.id}: share held out %`).fill("25")
    await page.getByRole("button", { name: `Save holdout ${holdout.id}` }).click()
    await page
      .getByRole("form", { name: `Holdout ${holdout.id}` })
      .getByRole("status")
      .waitFor()
    expect((await holdouts())[0].filters[0].rollout_percentage).toBe(25)
    await page.getByRole("form", { name: `Holdout ${holdout.id}` }).scrollIntoViewIfNeeded()
    await screenshot(page, "flag-holdouts")

    const node = new PostHog(PROJECT_KEY, { host: h.root, flushAt: 500, flushInterval: 0 })
    const ids = Array.from({ length: 40 }, (_, i) => `held-${i}`)
    const variants: Array<string | boolean | undefined> = []
    for (const distinctId of ids) variants.push(await node.getFeatureFlag("held-out-exp", distinctId))
    await node.shutdown()
    const held = ids.map((distinctId) => holdoutHash(distinctId) <= 0.25)
    expect(held.filter(Boolean).length).toBeGreaterThan(0)
    expect(held.filter((x) => !x).length).toBeGreaterThan(0)
    ids.forEach((distinctId, i) =>
      held[i]
        ? expect(variants[i], distinctId).toBe(`holdout-${holdout.id}`)
        : expect(["control", "test"], distinctId).toContain(variants[i])
    )

    // Deleted on the experiments page, once confirmed: gone from the list, and the draft loses it.
    await page.goto(`${h.root}/project/1/experiments`)
    page.once("dialog", (dialog) => void dialog.accept())
    await page.getByRole("button", { name: `Delete holdout ${holdout.id}` }).click()
    await expect.poll(async () => (await holdouts()).length).toBe(0)
    await page.getByLabel(`Holdout ${holdout.id}: name`).waitFor({ state: "detached" })
    expect((await h.json(`/api/projects/1/experiments/${experiment.id}/`)).holdout).toBeNull()
  }, 120_000)
})
