import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { BrowserContext, Page } from "playwright-core"
import { signIn } from "../../node/test/browser.js"
import { PostHog } from "posthog-node"
import { ADMIN, axeViolations, captureData, type Harness, PROJECT_KEY, screenshot, startHarness } from "./harness.js"
import { fetchedBy } from "./harness.js"
import { eventually, hoverLast, numbers, saveAs } from "./insightHelpers.js"

// Insights in the app, on data posthog-node sent (captureData: ada views /pricing and /docs and signs
// up, grace views /pricing; then ada upgrades her plan): each page's numbers are checked against what
// the test knows it sent and against the insights API's own answer for the same insight.

let h: Harness
let context: BrowserContext
let page: Page

const eventsNode = (event: string, extra: Record<string, unknown> = {}) => ({ kind: "EventsNode", event, ...extra })
const viz = (source: Record<string, unknown>) => ({ kind: "InsightVizNode", source })

const INSIGHTS = {
  pages: {
    name: "Pageviews by path",
    description: "Every pageview, per day, by path",
    tags: ["web"],
    query: viz({
      kind: "TrendsQuery",
      series: [eventsNode("$pageview")],
      interval: "day",
      dateRange: { date_from: "-7d" },
      breakdownFilter: { breakdown_type: "event", breakdown: "$pathname" }
    })
  },
  signups: {
    name: "Sign-ups",
    favorited: true,
    query: viz({ kind: "TrendsQuery", series: [eventsNode("signed up")], trendsFilter: { display: "BoldNumber" } })
  },
  funnel: {
    name: "Visit to sign-up",
    query: viz({
      kind: "FunnelsQuery",
      series: [eventsNode("$pageview"), eventsNode("plan upgraded")],
      dateRange: { date_from: "-7d" }
    })
  },
  retention: {
    name: "Returning visitors",
    query: viz({
      kind: "RetentionQuery",
      retentionFilter: {
        period: "Day",
        totalIntervals: 3,
        targetEntity: { id: "$pageview", type: "events" },
        returningEntity: { id: "$pageview", type: "events" }
      }
    })
  },
  sql: {
    name: "Events by name",
    query: {
      kind: "DataVisualizationNode",
      source: {
        kind: "ZedQLQuery",
        query: "SELECT event, count() AS n FROM events GROUP BY event ORDER BY n DESC, event"
      }
    }
  }
} as const

type Saved = { id: number; short_id: string; name: string }
const saved: Record<keyof typeof INSIGHTS, Saved> = {} as never

/** The insight as the API computes it (the page's source of truth). */
const computed = (insight: Saved) => h.json(`/api/projects/1/insights/${insight.id}/?refresh=blocking`)

beforeAll(async () => {
  h = await startHarness()
  await captureData(h.root)
  // After every pageview (captureData's events may share a millisecond; this one comes later).
  const ph = new PostHog(PROJECT_KEY, { host: h.root, flushAt: 1, flushInterval: 0 })
  ph.capture({ distinctId: "ada", event: "plan upgraded", properties: { plan: "team" } })
  await ph.shutdown()
  // Saved one after the other: the list sorts by last modified, so the last saved comes first.
  for (const [key, body] of Object.entries(INSIGHTS))
    saved[key as keyof typeof INSIGHTS] = await h.json("/api/projects/1/insights/", {
      method: "POST",
      body: JSON.stringify({ ...body, saved: true })
    })
  context = await h.browser.newContext({ viewport: { width: 1280, height: 800 } })
  page = await context.newPage()
  await signIn(page, `${h.root}/project/1/insights`, ADMIN)
})
afterAll(async () => {
  await context?.close()
  await h?.close()
})

const open = async (insight: Saved) => {
  await page.goto(`${h.root}/project/1/insights/${insight.short_id}`)
  await page.getByRole("heading", { level: 1, name: insight.name }).waitFor()
}

describe("insights", () => {
  it("list: newest change first, searched, filtered by kind and favourites, each linked to its page", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Insights" }).waitFor()
    const table = page.getByRole("table", { name: "Insights" })
    const names = () => table.locator("tbody tr td:first-child a").allTextContents()
    await eventually(names).toEqual([
      "Events by name",
      "Returning visitors",
      "Visit to sign-up",
      "Sign-ups",
      "Pageviews by path"
    ])
    // A changed description moves an insight to the top.
    await h.json(`/api/projects/1/insights/${saved.signups.id}/`, {
      method: "PATCH",
      body: JSON.stringify({ description: "From the sign-up form" })
    })
    await page.reload()
    await eventually(names).toEqual([
      "Sign-ups",
      "Events by name",
      "Returning visitors",
      "Visit to sign-up",
      "Pageviews by path"
    ])
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, "insights")

    const kind = page.getByLabel("Kind")
    const search = page.getByLabel("Search")
    for (const [filter, expected] of [
      [() => kind.selectOption("Trends"), ["Sign-ups", "Pageviews by path"]],
      [
        () => kind.selectOption(""),
        ["Sign-ups", "Events by name", "Returning visitors", "Visit to sign-up", "Pageviews by path"]
      ],
      [() => search.fill("sign-up"), ["Sign-ups", "Visit to sign-up"]],
      [
        () => search.fill(""),
        ["Sign-ups", "Events by name", "Returning visitors", "Visit to sign-up", "Pageviews by path"]
      ],
      [() => page.getByLabel("Favourites only").check(), ["Sign-ups"]]
    ] as const) {
      await filter()
      await eventually(names).toEqual(expected)
    }
    await table.getByRole("link", { name: "Sign-ups" }).click()
    await page.waitForURL(new RegExp(`/project/1/insights/${saved.signups.short_id}$`))
  })

  it("trends: a line per breakdown value, totals in the legend, exact values in the tooltip, series toggled", async () => {
    await open(saved.pages)
    const api = await computed(saved.pages)
    // What was sent: /pricing twice (ada, grace), /docs once, all today.
    const byPath = Object.fromEntries(
      api.result.map((entry: { label: string; count: number }) => [entry.label, entry.count])
    )
    expect(byPath).toEqual({ "/pricing": 2, "/docs": 1 })
    const legend = page.getByRole("list", { name: "Legend" })
    const entries = legend.getByRole("button")
    await eventually(() => entries.count()).toBe(2)
    expect(await legend.locator(".legend-label").allTextContents()).toEqual(
      api.result.map((entry: { label: string }) => entry.label)
    )
    expect(numbers(await legend.locator(".legend-total").allTextContents())).toEqual(
      api.result.map((entry: { count: number }) => entry.count)
    )
    await expect(page.getByText("Every pageview, per day, by path").count()).resolves.toBe(1)

    // Hover today's point (the last label): the tooltip gives each series' value there.
    const labels: Array<string> = api.result[0].labels
    const { over, box, x, tooltip } = await hoverLast(page, labels.length)
    expect(await tooltip.locator("div").textContent()).toBe(labels.at(-1))
    const today = api.result.map(
      (entry: { label: string; data: Array<number> }) => `${entry.label}: ${entry.data.at(-1)}`
    )
    expect(await tooltip.locator("li").allTextContents()).toEqual(today)
    expect(today).toEqual(["/pricing: 2", "/docs: 1"])
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, "insight-trends")

    // A legend entry hides its series: gone from the tooltip, and back when pressed again.
    await entries.first().click()
    await expect(entries.first().getAttribute("aria-pressed")).resolves.toBe("false")
    await over.hover({ position: { x: x - 1, y: box.height / 2 } })
    await eventually(() => tooltip.locator("li").allTextContents()).toEqual(["/docs: 1"])
    await entries.first().click()
    await over.hover({ position: { x, y: box.height / 2 } })
    await eventually(() => tooltip.locator("li").allTextContents()).toEqual(today)
  })

  it("trends as a number, with the ZedQL that computed it, opened in the SQL editor", async () => {
    await open(saved.signups)
    // The insight was asked for before the app's code loaded (main.ts's preload), and only once.
    expect(await fetchedBy(page, "/api/projects/1/insights/")).toEqual(["link"])
    const api = await computed(saved.signups)
    expect(api.result[0].aggregated_value).toBe(1)
    await expect(page.locator(".bold-number .value").textContent()).resolves.toBe(
      String(api.result[0].aggregated_value)
    )
    // Favourited when saved; un-favouriting reaches the API.
    const favourite = page.getByRole("button", { name: /Favourite/ })
    await expect(favourite.getAttribute("aria-pressed")).resolves.toBe("true")
    await favourite.click()
    await eventually(() => favourite.getAttribute("aria-pressed")).toBe("false")
    expect((await h.json(`/api/projects/1/insights/${saved.signups.id}/`)).favorited).toBe(false)
    const zedql = page.getByRole("region", { name: "ZedQL" }).locator("pre")
    expect(await zedql.textContent()).toBe(api.zedql)
    await page.getByRole("link", { name: "Open in SQL editor" }).click()
    await page.waitForURL(/\/project\/1\/sql\?/)
    await eventually(() => page.locator(".cm-content").innerText()).toBe(api.zedql)
  })

  it("funnel: persons per step, conversion and drop-off", async () => {
    await open(saved.funnel)
    const api = await computed(saved.funnel)
    expect(api.result.map((step: { count: number }) => step.count)).toEqual([2, 1])
    const rows = page.getByRole("table", { name: "Funnel steps" }).locator("tbody tr")
    await eventually(() => rows.count()).toBe(2)
    const cells = async (row: number) =>
      (await rows.nth(row).locator("th, td").allInnerTexts()).map((text) => text.trim())
    expect((await cells(0)).slice(0, 4)).toEqual(["1. $pageview", "2", "100.0%", "—"])
    expect((await cells(1)).slice(0, 4)).toEqual(["2. plan upgraded", "1", "50.0%", "1 (50.0%)"])
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, "insight-funnel")
  })

  it("retention: the cohort table, each cell's count and share of its cohort", async () => {
    await open(saved.retention)
    const api = await computed(saved.retention)
    const table = page.getByRole("table", { name: "Retention cohorts" })
    const rows = table.locator("tbody tr")
    await eventually(() => rows.count()).toBe(api.result.length)
    for (const [i, cohort] of (api.result as Array<{ values: Array<{ count: number }> }>).entries()) {
      expect(numbers(await rows.nth(i).locator(".heat-count").allTextContents())).toEqual(
        cohort.values.map((v) => v.count)
      )
      expect(await rows.nth(i).locator("td").first().textContent()).toBe(String(cohort.values[0]!.count))
    }
    // Today's cohort: ada and grace.
    expect(api.result.at(-1).values[0].count).toBe(2)
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, "insight-retention")
  })

  it("lifecycle as bars and stickiness as a line, each series' total as the API counts it", async () => {
    const shapes = [
      ["lifecycle", "Pageview lifecycle", "LifecycleQuery", "stacked bar"],
      ["stickiness", "Pageview stickiness", "StickinessQuery", "line"]
    ] as const
    for (const [shot, name, kind, chart] of shapes) {
      const insight = await h.json("/api/projects/1/insights/", {
        method: "POST",
        body: JSON.stringify({
          name,
          saved: true,
          query: viz({ kind, series: [eventsNode("$pageview")], dateRange: { date_from: "-7d" } })
        })
      })
      await open(insight)
      const api = await computed(insight)
      await page.getByRole("img", { name: new RegExp(`^${chart} chart`) }).waitFor()
      const legend = page.getByRole("list", { name: "Legend" })
      expect(await legend.locator(".legend-label").allTextContents()).toEqual(
        api.result.map((entry: { label: string }) => entry.label)
      )
      expect(numbers(await legend.locator(".legend-total").allTextContents())).toEqual(
        api.result.map((entry: { count: number }) => entry.count)
      )
      await screenshot(page, `insight-${shot}`)
      // ada and grace, both new today, each viewed pages on one day.
      const totals = Object.fromEntries(
        api.result.map((entry: { label: string; count: number }) => [entry.label, entry.count])
      )
      expect(totals).toEqual(
        kind === "LifecycleQuery"
          ? {
              "$pageview - new": 2,
              "$pageview - returning": 0,
              "$pageview - resurrecting": 0,
              "$pageview - dormant": 0
            }
          : { $pageview: 2 }
      )
    }
    expect(await axeViolations(page)).toEqual([])
  })

  it("funnel: time to convert as bars of persons per conversion time", async () => {
    const insight = await h.json("/api/projects/1/insights/", {
      method: "POST",
      body: JSON.stringify({
        name: "Time to upgrade",
        saved: true,
        query: viz({
          kind: "FunnelsQuery",
          series: [eventsNode("$pageview"), eventsNode("plan upgraded")],
          dateRange: { date_from: "-7d" },
          funnelsFilter: { funnelVizType: "time_to_convert" }
        })
      })
    })
    await open(insight)
    const api = await computed(insight)
    await page.getByRole("img", { name: /^bar chart/ }).waitFor()
    const bins: Array<[number, number]> = api.result.bins
    // Only ada converted: one person in all.
    expect(bins.reduce((sum, [, persons]) => sum + persons, 0)).toBe(1)
    const legend = page.getByRole("list", { name: "Legend" })
    expect(await legend.locator(".legend-label").allTextContents()).toEqual(["Persons"])
    const { tooltip } = await hoverLast(page, bins.length)
    await eventually(() => tooltip.locator("li").allTextContents()).toEqual([`Persons: ${bins.at(-1)![1]}`])
    await screenshot(page, "insight-time-to-convert")
  })

  it("a SQL insight as its table", async () => {
    await open(saved.sql)
    const rows = page.getByRole("table", { name: "Query results" }).getByRole("row")
    await rows.nth(4).waitFor()
    expect((await rows.allInnerTexts()).slice(1).map((row) => row.replace(/\s+/g, " ").trim())).toEqual([
      "$pageview 3",
      "$identify 2",
      "plan upgraded 1",
      "signed up 1"
    ])
  })
})

describe("the insight builder", () => {
  it("trends: computes the result as the query changes, and saves the query it built", async () => {
    await page.goto(`${h.root}/project/1/insights`)
    await page.getByRole("link", { name: "New insight" }).click()
    await page.waitForURL(/\/project\/1\/insights\/new$/)
    const result = page.getByRole("region", { name: "Result" })
    const legend = result.getByRole("list", { name: "Legend" })
    // The default: every pageview of the last 7 days, 3 sent.
    await eventually(() => legend.locator(".legend-total").allTextContents()).toEqual(["3"])

    // Unique users as one number: ada and grace.
    await page.getByLabel("Math 1").selectOption({ label: "Unique users" })
    await page.getByLabel("Display").selectOption({ label: "Number" })
    await eventually(() => result.locator(".bold-number .value").textContent()).toBe("2")

    // A second series, by path, as a table of totals: /pricing 2 pageviews (2 users), /docs 1 (1).
    await page.getByRole("button", { name: "Add series", exact: true }).click()
    await page.getByLabel("Event 2").fill("$pageview")
    await page.getByLabel("Breakdown by").fill("$pathname")
    await page.getByLabel("Display").selectOption({ label: "Table" })
    const rows = result.getByRole("table", { name: "Result" }).locator("tbody tr")
    const table = async () => (await rows.allInnerTexts()).map((row) => row.replace(/\s+/g, " ").trim()).sort()
    await eventually(table).toEqual([
      "$pageview - /docs 1",
      "$pageview - /docs 1",
      "$pageview - /pricing 2",
      "$pageview - /pricing 2"
    ])
    await page.getByLabel("Math 2").selectOption({ label: "Property sum" })
    await page.getByLabel("Property 2").fill("$screen_width")
    await page.getByLabel("Display").selectOption({ label: "Line" })
    await page.getByLabel("Property 2").fill("")
    await page.getByRole("button", { name: "Remove series 2" }).click()
    await page.getByLabel("Date range").selectOption({ label: "Last 14 days" })
    await eventually(() => legend.locator(".legend-label").allTextContents()).toEqual(["/pricing", "/docs"])
    // As stacked bars, the tooltip still gives each series' own value, not the stack's height.
    await page.getByLabel("Display").selectOption({ label: "Stacked bar" })
    await page.getByRole("img", { name: /^stacked bar chart/ }).waitFor()
    // The last 14 days and today: 15 labels, today's last.
    const { tooltip } = await hoverLast(page, 15)
    await eventually(() => tooltip.locator("li").allTextContents()).toEqual(["/pricing: 2", "/docs: 1"])
    await legend.getByRole("button", { name: /\/pricing/ }).click()
    await hoverLast(page, 15)
    await eventually(() => tooltip.locator("li").allTextContents()).toEqual(["/docs: 1"])
    await legend.getByRole("button", { name: /\/pricing/ }).click()
    await page.getByLabel("Display").selectOption({ label: "Line" })
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, "insight-builder")

    const insight = await saveAs(h, page, "Visitors by path")
    expect(insight.saved).toBe(true)
    expect(insight.query.source).toMatchObject({
      kind: "TrendsQuery",
      series: [{ kind: "EventsNode", event: "$pageview", math: "dau" }],
      dateRange: { date_from: "-14d" },
      breakdownFilter: { breakdown_type: "event", breakdown: "$pathname" },
      trendsFilter: { display: "ActionsLineGraph" }
    })
    const legendShown = page.getByRole("list", { name: "Legend" })
    await eventually(() => legendShown.locator(".legend-total").allTextContents()).toEqual(
      insight.result.map((entry: { count: number }) => String(entry.count))
    )
    expect(insight.result.map((entry: { count: number }) => entry.count)).toEqual([2, 1])
    // Only saved insights are listed: the builder's draft was this insight, and is one entry.
    const saved = await h.json("/api/projects/1/insights/?saved=true&search=Visitors%20by%20path")
    expect(saved.results).toHaveLength(1)
  })

  it("funnel: steps, order and conversion window, computed live and saved", async () => {
    await page.goto(`${h.root}/project/1/insights/new`)
    await page.getByLabel("Kind").selectOption({ label: "Funnel" })
    const result = page.getByRole("region", { name: "Result" })
    const counts = () => result.locator("tbody tr td:nth-child(2)").allTextContents()
    // ada and grace viewed pages; only ada upgraded, after her pageviews.
    await page.getByLabel("Step 2", { exact: true }).fill("plan upgraded")
    await eventually(counts).toEqual(["2", "1"])
    await page.getByLabel("Step 1", { exact: true }).fill("plan upgraded")
    await page.getByLabel("Step 2", { exact: true }).fill("$pageview")
    await eventually(counts).toEqual(["1", "0"])
    await page.getByLabel("Order").selectOption("unordered")
    await page.getByLabel("Conversion window").fill("1")
    await page.getByLabel("Window unit").selectOption("hour")
    await eventually(async () => (await counts()).at(-1)).toBe("1")
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, "insight-builder-funnel")

    const insight = await saveAs(h, page, "Upgrade and visit, any order")
    expect(insight.query.source).toMatchObject({
      kind: "FunnelsQuery",
      series: [{ event: "plan upgraded" }, { event: "$pageview" }],
      funnelsFilter: { funnelOrderType: "unordered", funnelWindowInterval: 1, funnelWindowIntervalUnit: "hour" }
    })
    const shown = page.getByRole("table", { name: "Funnel steps" }).locator("tbody tr td:nth-child(2)")
    await eventually(() => shown.allTextContents()).toEqual(
      insight.result.map((step: { count: number }) => String(step.count))
    )
  })
})
