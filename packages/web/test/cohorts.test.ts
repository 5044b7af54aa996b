import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { BrowserContext, Page } from "playwright-core"
import { PostHog } from "posthog-node"
import { signIn } from "../../node/test/browser.js"
import { ADMIN, axeViolations, type Harness, PROJECT_KEY, screenshot, screenshots, startHarness } from "./harness.js"

// Behavioural cohorts made in the cohort editor on events posthog-node sent: the members the page
// lists (calculated in the background) are the persons the test works out from what it sent; a
// behaviour the API refuses is shown beside its field; a cohort nesting another, negated. Static
// cohorts from CSV uploads (distinct ids, then e-mails added): exactly the persons the CSVs name.

const poll = <T>(check: () => T | Promise<T>) => expect.poll(check, { timeout: 30_000 })

let h: Harness
let context: BrowserContext
let page: Page

const HOUR = 3_600_000
const DAY = 24 * HOUR
/** Buyer i: on the pro plan when i is even; i purchases in the last three days, and buyer 5 three
 * more three weeks ago. */
const BUYERS = Array.from({ length: 6 }, (_, i) => ({
  id: `buyer-${i}`,
  plan: i % 2 === 0 ? "pro" : "free",
  purchases: [
    ...Array.from({ length: i }, (_, k) => Date.now() - (k + 1) * 10 * HOUR),
    ...(i === 5 ? [21, 22, 23].map((d) => Date.now() - d * DAY) : [])
  ]
}))

const emailOf = (id: string) => `${id}@example.test`

beforeAll(async () => {
  h = await startHarness()
  const ph = new PostHog(PROJECT_KEY, { host: h.root, flushAt: 20, flushInterval: 0 })
  for (const buyer of BUYERS) {
    ph.identify({ distinctId: buyer.id, properties: { plan: buyer.plan, email: emailOf(buyer.id) } })
    for (const at of buyer.purchases) ph.capture({ distinctId: buyer.id, event: "purchase", timestamp: new Date(at) })
  }
  await ph.shutdown()
  context = await h.browser.newContext({ viewport: { width: 1280, height: 900 } })
  page = await context.newPage()
  await signIn(page, `${h.root}/project/1/cohorts`, ADMIN)
}, 180_000)
afterAll(async () => {
  await context?.close()
  await h?.close()
})

/** The members table's distinct ids, sorted. */
const memberIds = async () =>
  (await page.getByRole("table", { name: "Members" }).locator("tbody tr td:nth-child(2)").allTextContents()).sort()

const createCohort = async () => {
  await page.getByRole("button", { name: "Create cohort" }).click()
  await page.waitForURL(/\/cohorts\/\d+$/)
  return new URL(page.url()).pathname.split("/").pop()!
}

describe("behavioural cohorts", () => {
  it("builds a cohort of who purchased at least twice in the last week, and lists exactly them", async () => {
    const week = Date.now() - 7 * DAY
    const expected = BUYERS.filter((b) => b.purchases.filter((at) => at >= week).length >= 2)
      .map((b) => b.id)
      .sort()
    expect(expected.length).toBeGreaterThan(0)
    await page.goto(`${h.root}/project/1/cohorts/new`)
    await page.getByLabel("Name", { exact: true }).fill("Repeat buyers")
    const f = "Group 1 filter 1"
    await page.getByLabel(`${f}: kind`).selectOption("behavioral")
    // A behaviour the API refuses: "stopped" with a recent period longer than the whole window.
    await page.getByLabel(`${f}: behaviour`).selectOption("stopped_performing_event")
    await page.getByLabel(`${f}: event`).fill("purchase")
    await page.getByLabel(`${f}: in the last`, { exact: true }).fill("7")
    await page.getByLabel(`${f}: but not in the last`, { exact: true }).fill("30")
    await page.getByRole("button", { name: "Create cohort" }).click()
    const beside = page.getByLabel(`${f}: but not in the last: unit`).locator("xpath=../following-sibling::*[1]")
    await poll(() => beside.textContent()).toMatch(/shorter than time_value/)
    expect(await beside.getAttribute("role")).toBe("alert")
    // Now what was meant.
    await page.getByLabel(`${f}: behaviour`).selectOption("performed_event_multiple")
    await page.getByLabel(`${f}: times`).selectOption("gte")
    await page.getByLabel(`${f}: count`).fill("2")
    await createCohort()
    await poll(memberIds).toEqual(expected)
    await poll(() => page.getByRole("status").first().textContent()).toBe(`${expected.length} persons`)
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, "cohort-behavioural")
    await page.setViewportSize({ width: 390, height: 844 })
    await screenshot(page, "cohort-behavioural-phone")
    await page.setViewportSize({ width: 1280, height: 900 })
  }, 120_000)

  it("nests that cohort, negated, with a property: pro-plan persons who are not repeat buyers", async () => {
    const week = Date.now() - 7 * DAY
    const repeat = new Set(BUYERS.filter((b) => b.purchases.filter((at) => at >= week).length >= 2).map((b) => b.id))
    const expected = BUYERS.filter((b) => b.plan === "pro" && !repeat.has(b.id))
      .map((b) => b.id)
      .sort()
    await page.goto(`${h.root}/project/1/cohorts/new`)
    await page.getByLabel("Name", { exact: true }).fill("Pro, not repeat buyers")
    await page.getByLabel("Group 1 filter 1: kind").selectOption("cohort")
    await page.getByLabel("Group 1 filter 1: cohort").selectOption({ label: "Repeat buyers" })
    await page.getByLabel("Group 1 filter 1: operator").selectOption("not_in")
    await page.getByRole("button", { name: "Add filter to group 1" }).click()
    await page.getByLabel("Group 1 filter 2: property").fill("plan")
    await page.getByLabel("Group 1 filter 2: value").fill("free")
    // "plan is free", negated.
    await page.getByLabel("Group 1 filter 2: not").check()
    await createCohort()
    await poll(memberIds).toEqual(expected)
    // Negating the behaviour instead: the persons with fewer than two purchases this week.
    await page.getByRole("button", { name: "Remove filter to group 1 2" }).click()
    await page.getByLabel("Group 1 filter 1: kind").selectOption("behavioral")
    await page.getByLabel("Group 1 filter 1: behaviour").selectOption("performed_event_multiple")
    await page.getByLabel("Group 1 filter 1: event").fill("purchase")
    await page.getByLabel("Group 1 filter 1: in the last", { exact: true }).fill("7")
    await page.getByLabel("Group 1 filter 1: count").fill("2")
    await page.getByLabel("Group 1 filter 1: not").check()
    await page.getByRole("button", { name: "Save" }).click()
    // Negated: every other person of the project, those who never purchased included.
    const fewer = BUYERS.filter((b) => !repeat.has(b.id))
      .map((b) => b.id)
      .sort()
    await poll(memberIds).toEqual(fewer)
    expect(await axeViolations(page)).toEqual([])
  }, 120_000)

  it("makes a static cohort from a CSV upload, refusing one that lists no one, and adds persons by e-mail", async () => {
    const csvFile = (name: string, rows: ReadonlyArray<string>) => ({
      name,
      mimeType: "text/csv",
      buffer: Buffer.from(`${rows.join("\n")}\n`)
    })
    const byId = [BUYERS[1]!.id, BUYERS[3]!.id]
    await page.goto(`${h.root}/project/1/cohorts/new`)
    await page.getByLabel("Name", { exact: true }).fill("Beta testers")
    await page.getByLabel("Type").selectOption("static")
    const upload = page.getByLabel("CSV of persons")
    // A header alone: the API's refusal, beside the file field.
    await upload.setInputFiles(csvFile("empty.csv", ["distinct_id"]))
    await page.getByRole("button", { name: "Create cohort" }).click()
    const beside = upload.locator("xpath=../following-sibling::*[1]")
    await poll(() => beside.textContent()).toMatch(/lists no distinct ids/)
    expect(await beside.getAttribute("role")).toBe("alert")
    // Two persons the test captured and one nobody has: the unknown id is skipped.
    await upload.setInputFiles(csvFile("testers.csv", ["distinct_id", ...byId, "stranger-9"]))
    await createCohort()
    const status = page.getByRole("region", { name: "Members" }).getByRole("status")
    await poll(memberIds).toEqual([...byId].sort())
    await poll(() => status.textContent()).toBe(`${byId.length} persons`)
    // More persons, by e-mail, added to the cohort.
    const byEmail = [BUYERS[4]!.id, BUYERS[1]!.id]
    await page
      .getByLabel("Add persons from a CSV")
      .setInputFiles(csvFile("more.csv", ["email", ...byEmail.map(emailOf), "nobody@example.test"]))
    await page.getByRole("button", { name: "Save" }).click()
    const expected = [...new Set([...byId, ...byEmail])].sort()
    await poll(memberIds).toEqual(expected)
    await poll(() => status.textContent()).toBe(`${expected.length} persons`)
    expect(await axeViolations(page)).toEqual([])
    await screenshots(page, "cohort-static-csv")
  }, 120_000)
})
