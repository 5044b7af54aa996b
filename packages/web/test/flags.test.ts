import { createHash } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { BrowserContext, Page } from "playwright-core"
import { PostHog } from "posthog-node"
import { FLAG_OPERATORS } from "../../core/src/flags/properties.js"
import { signIn } from "../../node/test/browser.js"
import { ADMIN, axeViolations, captureData, type Harness, PROJECT_KEY, screenshot, startHarness } from "./harness.js"

// The feature flags and cohorts pages in Chromium against a real Zed: a flag made in the editor is
// answered by `/flags` to a real posthog-node client, and each change in the page is answered within
// a second; the page's tester and usage chart agree with what posthog-node got.

let h: Harness
let context: BrowserContext
let page: Page
let node: PostHog

beforeAll(async () => {
  h = await startHarness()
  await captureData(h.root)
  context = await h.browser.newContext({ viewport: { width: 1280, height: 900 } })
  page = await context.newPage()
  await signIn(page, `${h.root}/project/1/feature_flags`, ADMIN)
  // Remote evaluation: every call asks `/flags`, and reports `$feature_flag_called`.
  node = new PostHog(PROJECT_KEY, { host: h.root, flushAt: 1, flushInterval: 0 })
}, 120_000)
afterAll(async () => {
  await node?.shutdown()
  await context?.close()
  await h?.close()
})

/** PostHog's bucketing: the first 15 hex digits of SHA-1 of `key.id` (plus a salt), as a fraction. */
const bucket = (key: string, id: string, salt = "") =>
  Number.parseInt(createHash("sha1").update(`${key}.${id}${salt}`).digest("hex").slice(0, 15), 16) / 0xfffffffffffffff

const IDS = Array.from({ length: 30 }, (_, i) => `visitor-${i}`)

/** Polls posthog-node until every distinct id gets its expected answer; answers how long after the
 * start the requests that got it were sent (0: the first ones did). */
const answeredWithin = async (key: string, expected: (id: string) => unknown, ids: ReadonlyArray<string>) => {
  const start = Date.now()
  for (;;) {
    const sent = Date.now() - start
    const got = await Promise.all(ids.map((id) => node.getFeatureFlag(key, id)))
    if (got.every((value, i) => value === expected(ids[i]!))) return sent
    if (Date.now() - start > 10_000)
      throw new Error(`not answered: ${JSON.stringify(got)} vs ${JSON.stringify(ids.map(expected))}`)
  }
}

/** Saves the open flag editor and waits for the API's answer. */
const save = async () => {
  const saved = page.waitForResponse((r) => r.request().method() === "PATCH" && /feature_flags\/\d+\/$/.test(r.url()))
  await page.getByRole("button", { name: "Save", exact: true }).click()
  expect((await saved).status()).toBe(200)
}

/** The error shown right after the field labelled `label`. */
const errorBeside = (label: string) =>
  page
    .getByLabel(label, { exact: true })
    .locator("xpath=ancestor::label[1]/following-sibling::*[1][contains(@class, 'field-error')]")

let flagUrl: string

describe("feature flags", () => {
  it("creates a flag by person property; posthog-node gets it from /flags", async () => {
    await page.goto(`${h.root}/project/1/feature_flags`)
    await page.getByRole("link", { name: "New feature flag" }).click()
    await page.getByLabel("Key").fill("pro-checkout")
    await page.getByLabel("Description").fill("Checkout for pro customers")
    await page.getByRole("button", { name: "Add filter to condition 1" }).click()
    await page.getByLabel("Condition 1 filter 1: property").fill("plan")
    await page.getByLabel("Condition 1 filter 1: value").fill("pro")
    // Every operator the evaluator has for person properties is offered.
    const offered = await page
      .getByLabel("Condition 1 filter 1: operator")
      .locator("option")
      .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value))
    expect(offered.sort()).toEqual(
      FLAG_OPERATORS.filter((op) => !["in", "not_in", "flag_evaluates_to"].includes(op)).sort()
    )
    await page.getByRole("button", { name: "Create flag" }).click()
    await page.waitForURL(/\/feature_flags\/\d+$/)
    flagUrl = page.url()
    // captureData made ada a pro and grace a free customer.
    expect(await answeredWithin("pro-checkout", (id) => id === "ada", ["ada", "grace"])).toBeLessThan(1000)
    await page.getByRole("heading", { name: "pro-checkout" }).waitFor()
    expect(await axeViolations(page)).toEqual([])
  })

  it("disabling, enabling and rollout changes are answered within a second", async () => {
    await page.goto(flagUrl)
    await page.getByLabel("Enabled").uncheck()
    await save()
    // A disabled flag is left out of the answer: posthog-node has no value for it.
    expect(await answeredWithin("pro-checkout", () => undefined, ["ada", "grace"])).toBeLessThan(1000)
    await page.getByLabel("Enabled").check()
    // Everyone, at 40%: who is in is the hash's business, computed here.
    await page.getByRole("button", { name: "Remove filter to condition 1 1" }).click()
    await page.getByLabel("Condition 1: rollout %").fill("40")
    await save()
    const inRollout = (id: string) => bucket("pro-checkout", id) <= 0.4
    expect(IDS.some(inRollout) && !IDS.every(inRollout)).toBe(true)
    expect(await answeredWithin("pro-checkout", inRollout, IDS)).toBeLessThan(1000)
    // The list shows it so.
    await page.goto(`${h.root}/project/1/feature_flags`)
    const row = page.getByRole("row").filter({ hasText: "pro-checkout" })
    await expect.poll(() => row.innerText()).toMatch(/Enabled\s+boolean, 40% of everyone/)
  })

  it("shows the API's refusals beside the field, and checks payloads' JSON before sending", async () => {
    await page.goto(`${h.root}/project/1/feature_flags/new`)
    await page.getByLabel("Key").fill("pro-checkout")
    await page.getByRole("button", { name: "Create flag" }).click()
    await expect(errorBeside("Key").textContent()).resolves.toBe("There is already a feature flag with this key.")
    await page.getByLabel("Key").fill("bad-operator")
    await page.getByRole("button", { name: "Add filter to condition 1" }).click()
    await page.getByLabel("Condition 1 filter 1: property").fill("plan")
    await page.getByLabel("Condition 1 filter 1: operator").selectOption("gt")
    await page.getByLabel("Condition 1 filter 1: value").fill("3")
    // A rollout over 100 is stopped by the browser; a split not summing to 100 by the API, beside the filters.
    await page.getByLabel("Condition 1: rollout %").fill("150")
    await page.getByRole("button", { name: "Create flag" }).click()
    expect(
      await page
        .getByLabel("Condition 1: rollout %")
        .evaluate((input) => (input as HTMLInputElement).validity.rangeOverflow)
    ).toBe(true)
    await page.getByLabel("Condition 1: rollout %").fill("100")
    await page.getByRole("button", { name: "Add variant" }).click()
    await page.getByLabel("Variant 1: rollout %").fill("40")
    await expect(page.getByText("Split: 40% of 100%").count()).resolves.toBe(1)
    await page.getByRole("button", { name: "Create flag" }).click()
    // The key's refusal from the first try stays until this answer replaces it.
    await expect
      .poll(() => page.locator(".field-error").allTextContents())
      .toEqual(["Invalid variant definitions: variant rollout percentages must sum to 100."])
    expect(await page.getByRole("alert").count()).toBe(1)
    await page.getByRole("button", { name: "Remove variant 1" }).click()
    await page.getByLabel("Payload (JSON)").fill('{"color": green}')
    await expect(page.getByText(/Not valid JSON/).count()).resolves.toBe(1)
    expect(await page.getByRole("button", { name: "Create flag" }).isDisabled()).toBe(true)
    await screenshot(page, "feature-flag-errors")
  })

  it("multivariate with payloads: posthog-node gets the hash's variant and its payload; the tester agrees", async () => {
    await page.goto(flagUrl)
    await page.getByLabel("Condition 1: rollout %").fill("100")
    await page.getByRole("button", { name: "Add variant" }).click()
    await page.getByRole("button", { name: "Add variant" }).click()
    await page.getByLabel("Variant 1: key").fill("control")
    await page.getByLabel("Variant 1: rollout %").fill("50")
    await page.getByLabel("Variant 2: key").fill("test")
    await page.getByLabel("Variant 2: rollout %").fill("50")
    await page.getByLabel("Variant 2: payload (JSON)").fill('{"color": "green"}')
    await save()
    const variant = (id: string) => (bucket("pro-checkout", id, "variant") < 0.5 ? "control" : "test")
    expect(await answeredWithin("pro-checkout", variant, IDS)).toBeLessThan(1000)
    const tested = IDS.find((id) => variant(id) === "test")!
    expect(await node.getFeatureFlagPayload("pro-checkout", tested)).toEqual({ color: "green" })

    // The tester asks /flags for one distinct id and shows the value, the reason and the payload.
    await page.getByLabel("Distinct id").fill(tested)
    await page.getByRole("button", { name: "Evaluate" }).click()
    const evaluation = page.getByRole("definition")
    await expect.poll(() => evaluation.first().textContent()).toBe("test")
    await expect(evaluation.nth(1).textContent()).resolves.toMatch(/condition/i)
    await expect(evaluation.nth(2).textContent()).resolves.toContain("green")
    // Overridden person properties are evaluated too: a condition on plan, with the tester's plan.
    await page.getByRole("button", { name: "Add filter to condition 1" }).click()
    await page.getByLabel("Condition 1 filter 1: property").fill("plan")
    await page.getByLabel("Condition 1 filter 1: value").fill("enterprise")
    await save()
    await page.getByRole("button", { name: "Evaluate" }).click()
    await expect.poll(() => evaluation.first().textContent()).toBe("false")
    await page.getByLabel("Person properties (JSON, optional)").fill('{"plan": "enterprise"}')
    await page.getByRole("button", { name: "Evaluate" }).click()
    await expect.poll(() => evaluation.first().textContent()).toBe("test")
  })

  it("charts the flag's evaluations by the value posthog-node got", async () => {
    // posthog-node reported each (distinct id, value) it got as `$feature_flag_called`.
    await node.flush()
    await page.goto(flagUrl)
    const usage = page.getByRole("region", { name: "Usage" })
    /** The calls stored, by value, counted here from the events API. */
    const stored = async () => {
      const calls = await h.json(
        `/api/projects/1/events/?event=$feature_flag_called&limit=1000&properties=${encodeURIComponent(
          JSON.stringify([{ key: "$feature_flag", value: "pro-checkout", operator: "exact", type: "event" }])
        )}`
      )
      const counts: Record<string, number> = {}
      for (const event of calls.results as ReadonlyArray<{ properties: Record<string, unknown> }>) {
        // A disabled flag's calls have no value: the breakdown calls that "none".
        const response = event.properties["$feature_flag_response"]
        const value = response === undefined || response === null ? "none" : String(response)
        counts[value] = (counts[value] ?? 0) + 1
      }
      return counts
    }
    /** The chart's legend, computed again: each value with its number of calls. */
    const legend = async () => {
      const answered = page.waitForResponse((r) => r.url().endsWith("/query/") && r.request().method() === "POST")
      await usage.getByRole("button", { name: "Refresh" }).click()
      await answered
      await usage.getByRole("list", { name: "Legend" }).waitFor()
      return Object.fromEntries(
        await usage
          .getByRole("list", { name: "Legend" })
          .getByRole("button")
          .evaluateAll((buttons) =>
            buttons.map((button) => [
              button.querySelector(".legend-label")!.textContent,
              Number(button.querySelector(".legend-total")!.textContent!.replace(/\D/g, ""))
            ])
          )
      )
    }
    let counts: Record<string, number> = {}
    await expect
      .poll(async () => {
        counts = await stored()
        return JSON.stringify([await legend(), counts])
      })
      .toSatisfy((text: string) => {
        const [shown, expected] = JSON.parse(text)
        return JSON.stringify(Object.entries(shown).sort()) === JSON.stringify(Object.entries(expected).sort())
      })
    expect(Object.keys(counts).sort()).toEqual(["control", "false", "none", "test", "true"])
    await screenshot(page, "feature-flag")
    expect(await axeViolations(page)).toEqual([])
    await page.setViewportSize({ width: 390, height: 844 })
    await screenshot(page, "feature-flag-phone")
    await page.setViewportSize({ width: 1280, height: 900 })
  })

  it("lists flags with their status and rollout, filtered by type and status", async () => {
    await h.json("/api/projects/1/feature_flags/", {
      method: "POST",
      body: JSON.stringify({
        key: "dormant",
        active: false,
        filters: { groups: [{ properties: [], rollout_percentage: 10 }] }
      })
    })
    await page.goto(`${h.root}/project/1/feature_flags`)
    const table = page.getByRole("table", { name: "Feature flags" })
    const keys = async () => (await table.locator("tbody tr td:first-child a").allTextContents()).sort()
    await expect.poll(keys).toEqual(["dormant", "pro-checkout"])
    await page.getByLabel("Type").selectOption("multivariate")
    await expect.poll(keys).toEqual(["pro-checkout"])
    await page.getByLabel("Type").selectOption("")
    await page.getByLabel("Status").selectOption("false")
    await expect.poll(keys).toEqual(["dormant"])
    await page.getByLabel("Status").selectOption("")
    await page.getByLabel("Search").fill("dorm")
    await expect.poll(keys).toEqual(["dormant"])
    await page.getByLabel("Search").fill("")
    await expect.poll(keys).toEqual(["dormant", "pro-checkout"])
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, "feature-flags")
    await page.setViewportSize({ width: 390, height: 844 })
    await screenshot(page, "feature-flags-phone")
    await page.setViewportSize({ width: 1280, height: 900 })
  })

  it("matches groups by a group property; posthog-node gets it for the group's members", async () => {
    const ph = new PostHog(PROJECT_KEY, { host: h.root, flushAt: 100, flushInterval: 0 })
    ph.groupIdentify({ groupType: "company", groupKey: "big-co", properties: { seats: 50 } })
    ph.groupIdentify({ groupType: "company", groupKey: "tiny-co", properties: { seats: 3 } })
    await ph.shutdown()
    await page.goto(`${h.root}/project/1/feature_flags/new`)
    await page.getByLabel("Key").fill("team-seats")
    await page.getByLabel("Match by").selectOption({ label: "Groups: company" })
    await page.getByRole("button", { name: "Add filter to condition 1" }).click()
    // Only the group's properties take the person's place.
    await expect(page.getByLabel("Condition 1 filter 1: kind").locator("option").allTextContents()).resolves.toEqual(
      expect.not.arrayContaining(["Person property"])
    )
    await page.getByLabel("Condition 1 filter 1: property").fill("seats")
    await page.getByLabel("Condition 1 filter 1: operator").selectOption("gte")
    await page.getByLabel("Condition 1 filter 1: value").fill("10")
    await page.getByRole("button", { name: "Create flag" }).click()
    await page.waitForURL(/\/feature_flags\/\d+$/)
    const stored = await h.json(`/api/projects/1/feature_flags/${page.url().split("/").at(-1)}/`)
    expect(stored.filters.aggregation_group_type_index).toBe(0)
    expect(stored.filters.groups[0].properties).toEqual([
      { key: "seats", type: "group", group_type_index: 0, operator: "gte", value: 10 }
    ])
    // The same person gets the flag through the big company only.
    await expect
      .poll(async () =>
        Promise.all(
          ["big-co", "tiny-co"].map((company) => node.getFeatureFlag("team-seats", "ada", { groups: { company } }))
        )
      )
      .toEqual([true, false])
    expect(await axeViolations(page)).toEqual([])
  })
})

describe("cohorts", () => {
  it("makes a cohort by person property, lists its members, and a flag released to it", async () => {
    await page.goto(`${h.root}/project/1/cohorts`)
    await page.getByRole("link", { name: "New cohort" }).click()
    await page.getByLabel("Name", { exact: true }).fill("Pro customers")
    await page.getByLabel("Group 1 filter 1: property").fill("email")
    await page.getByLabel("Group 1 filter 1: operator").selectOption("icontains")
    await page.getByLabel("Group 1 filter 1: value").fill("@example.com")
    await page.getByRole("button", { name: "Add filter to group 1" }).click()
    await page.getByLabel("Group 1 filter 2: property").fill("plan")
    await page.getByLabel("Group 1 filter 2: value").fill("pro")
    await page.getByRole("button", { name: "Create cohort" }).click()
    await page.waitForURL(/\/cohorts\/\d+$/)
    const cohortId = new URL(page.url()).pathname.split("/").pop()!
    // Of captureData's persons, only ada is on the pro plan with an example.com address.
    const members = page.getByRole("table", { name: "Members" })
    await expect
      .poll(() => members.locator("tbody tr").allInnerTexts())
      .toEqual([expect.stringMatching(/^ada@example.com\s+ada$/)])
    await expect(page.getByRole("status").first().textContent()).resolves.toBe("1 person")
    // Widened to any plan: grace joins, once asked again.
    await page.getByRole("button", { name: "Remove filter to group 1 2" }).click()
    await page.getByRole("button", { name: "Save" }).click()
    await expect.poll(() => members.locator("tbody tr").count()).toBe(2)
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, "cohort")

    // A flag released to the cohort, made in the flag editor: posthog-node gets it for its members.
    await page.goto(`${h.root}/project/1/feature_flags/new`)
    await page.getByLabel("Key").fill("for-cohort")
    await page.getByRole("button", { name: "Add filter to condition 1" }).click()
    await page.getByLabel("Condition 1 filter 1: kind").selectOption("cohort")
    await page.getByLabel("Condition 1 filter 1: cohort").selectOption(cohortId)
    await page.getByRole("button", { name: "Create flag" }).click()
    await page.waitForURL(/\/feature_flags\/\d+$/)
    expect(
      await answeredWithin("for-cohort", (id) => id === "ada" || id === "grace", ["ada", "grace", "nobody"])
    ).toBeLessThan(1000)

    await page.goto(`${h.root}/project/1/cohorts`)
    await page.getByRole("link", { name: "Pro customers" }).waitFor()
    expect(await axeViolations(page)).toEqual([])
  })
})
