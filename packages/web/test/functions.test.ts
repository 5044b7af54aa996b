import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { BrowserContext, Page } from "playwright-core"
import { PostHog } from "posthog-node"
import { signIn } from "../../node/test/browser.js"
import { ADMIN, axeViolations, type Harness, PROJECT_KEY, screenshot, startHarness } from "./harness.js"

// Functions in the app: a transformation made from a template in the Hog editor (a compile error
// marked where it is), tested on a sample event, enabled, and then transforming the next event
// posthog-node captures; transformations reordered by dragging; a built-in plugin switched on; a
// function's invocations charted, as the test counts them from what posthog-node sent.

/** Waits as long as a loaded machine may need (vitest's own default is a second). */
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

const ADD_CODE = "let e := event\ne.properties[inputs.key] := inputs.value\nreturn e"

/** One event captured by posthog-node, and then the stored one (by a unique marker property). */
const captureAndRead = async (event: string, properties: Record<string, unknown>) => {
  const marker = crypto.randomUUID()
  const ph = new PostHog(PROJECT_KEY, { host: h.root, flushAt: 1, flushInterval: 0 })
  ph.capture({ distinctId: "buyer", event, properties: { ...properties, marker } })
  await ph.shutdown()
  const deadline = Date.now() + 20_000
  for (;;) {
    const { results } = await h.json(`/api/projects/1/events/?event=${encodeURIComponent(event)}&limit=100`)
    const found = results.find((e: { properties: Record<string, unknown> }) => e.properties["marker"] === marker)
    if (found) return found.properties as Record<string, unknown>
    if (Date.now() > deadline) throw new Error(`event ${event} not stored`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

const replaceCode = async (text: string) => {
  await page.getByRole("textbox", { name: "Hog code" }).click()
  await page.keyboard.press("ControlOrMeta+a")
  await page.keyboard.insertText(text)
}

describe("functions", () => {
  it("creates a transformation from a template, tests it, enables it, and the next event is transformed", async () => {
    await signIn(page, `${h.root}/project/1/functions`, ADMIN)
    await page.getByLabel("Template").selectOption({ label: "Add a property" })
    await page.getByRole("button", { name: "New transformation" }).click()
    const status = page.getByTestId("compile-status")
    await poll(() => status.textContent()).toBe("Compiles.")
    // A syntax error on line 2 is reported there and marked in the editor.
    await replaceCode("let e := event\nlet := 1\nreturn e")
    await poll(() => status.textContent()).toMatch(/line 2, column \d+/)
    await page.locator(".cm-hog-error").first().waitFor()
    expect(
      await page
        .locator(".cm-hog-error")
        .first()
        .evaluate((el) => el.closest(".cm-line")?.textContent)
    ).toBe("let := 1")
    await replaceCode(ADD_CODE)
    await poll(() => status.textContent()).toBe("Compiles.")
    expect(await page.locator(".cm-hog-error").count()).toBe(0)
    await page.getByLabel("Name", { exact: true }).fill("Plan tier")
    await page.getByLabel("Property name (required)").fill("tier")
    await page.getByLabel("Value (required)").fill("tier-{event.properties.plan}")
    // The test run: the sample event transformed as the template computes it.
    const plan = `plan-${Math.random().toString(36).slice(2, 8)}`
    await page
      .getByLabel("Sample event (JSON)")
      .fill(JSON.stringify({ event: "signed up", distinct_id: "sample", properties: { plan } }))
    await page.getByRole("button", { name: "Run test" }).click()
    const result = page.getByRole("region", { name: "Test result" })
    await result.getByText("success").waitFor()
    expect(JSON.parse((await result.locator("pre").textContent())!).properties).toEqual({ plan, tier: `tier-${plan}` })
    // Created disabled: nothing happens to events yet.
    await page.getByRole("button", { name: "Create" }).click()
    await page.getByText("Saved.").waitFor()
    expect((await captureAndRead("signed up", { plan: "free" }))["tier"]).toBeUndefined()
    // Enabled from the list: the next event captured is transformed.
    await page.getByRole("checkbox", { name: "Enabled Plan tier" }).check()
    await poll(
      async () => (await h.json("/api/projects/1/zed_functions/?type=transformation")).results[0]?.enabled
    ).toBe(true)
    expect((await captureAndRead("signed up", { plan: "free" }))["tier"]).toBe("tier-free")
    // A recent real event as the sample.
    await page.getByRole("button", { name: "Use a recent event" }).click()
    await poll(() => page.getByLabel("Sample event (JSON)").inputValue()).toContain('"marker"')
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, "functions")
  }, 120_000)

  it("reorders transformations by dragging, as the rearrange endpoint stores them", async () => {
    await page.goto(`${h.root}/project/1/functions`)
    await page.getByRole("button", { name: "New transformation" }).click()
    await page.getByLabel("Name", { exact: true }).fill("Second")
    await page.getByRole("button", { name: "Create" }).click()
    await page.getByText("Saved.").waitFor()
    const list = page.getByRole("list", { name: "Transformations in execution order" })
    const names = () => list.locator("li > button.link").allTextContents()
    await poll(names).toEqual(["Plan tier", "Second"])
    await list.locator("li", { hasText: "Second" }).dragTo(list.locator("li", { hasText: "Plan tier" }))
    await poll(names).toEqual(["Second", "Plan tier"])
    const stored = await h.json("/api/projects/1/zed_functions/?type=transformation")
    expect(stored.results.map((fn: { name: string }) => fn.name)).toEqual(["Second", "Plan tier"])
    // And back, by the keyboard's buttons.
    await page.getByRole("button", { name: "Move Plan tier up" }).click()
    await poll(names).toEqual(["Plan tier", "Second"])
    await page.setViewportSize({ width: 390, height: 844 })
    await screenshot(page, "functions-phone")
    await page.setViewportSize({ width: 1280, height: 900 })
  }, 120_000)

  it("shows a destination's test run with its fetch answered in place, and its logs once saved", async () => {
    await page.goto(`${h.root}/project/1/functions`)
    await page.getByRole("tab", { name: "Destinations" }).click()
    await page.getByLabel("Template").selectOption({ label: "Webhook" })
    await page.getByRole("button", { name: "New destination" }).click()
    await page.getByLabel("Webhook URL (required)").fill("http://127.0.0.1:9/hook")
    await page.getByRole("button", { name: "Run test" }).click()
    const logs = page.getByRole("list", { name: "Test logs" })
    await logs.getByText(/not sent in a test run/).waitFor()
    await logs.getByText("sent: 200").waitFor()
    await page.getByRole("button", { name: "Create" }).click()
    await page.getByText("Saved.").waitFor()
    await page.getByRole("list", { name: "Function logs" }).getByText("No log entries.").waitFor()
  }, 120_000)

  it("switches a built-in plugin on with its settings, and shows its logs", async () => {
    await page.goto(`${h.root}/project/1/functions`)
    await page.getByRole("tab", { name: "Plugins" }).click()
    const plugins = page.getByRole("list", { name: "Plugins" })
    const filter = plugins.getByRole("listitem").filter({ hasText: "Property Filter" })
    await filter.getByRole("textbox").fill("secret")
    await filter.getByRole("button", { name: "Save settings" }).click()
    await filter.getByRole("checkbox").check()
    await poll(async () =>
      (await h.json("/api/projects/1/plugin_configs/")).results.find((c: { plugin: number }) => c.plugin === 3)
    ).toMatchObject({ enabled: true, config: { properties: "secret" } })
    const props = await captureAndRead("with secret", { secret: "s3", kept: 1 })
    expect(props["secret"]).toBeUndefined()
    expect(props["kept"]).toBe(1)
    await filter.getByRole("button", { name: /^Logs/ }).click()
    await filter
      .getByRole("list")
      .getByText(/enabled/i)
      .first()
      .waitFor()
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, "functions-plugins")
  }, 120_000)

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

    await page.goto(`${h.root}/project/1/functions`)
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
    await page.setViewportSize({ width: 1280, height: 900 })
  }, 120_000)
})
