import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { Page } from "playwright-core"
import { axeViolations } from "./harness.js"
import {
  eventually,
  insightsSession,
  hoverLast,
  numbers,
  queryResult,
  type Sent,
  screenshots
} from "./insightHelpers.js"

// Editing a saved insight's query in the builder, in Chromium: Edit opens the stored query, the
// result follows the changes, Save replaces the query of the same insight (its activity log says
// so), Cancel leaves it as it was.

const EVENTS: ReadonlyArray<Sent> = [
  ...[6, 5, 3, 1, 0].map((day) => ({ who: "ada", event: "$pageview", day })),
  ...[4, 0].map((day) => ({ who: "grace", event: "$pageview", day })),
  { who: "ada", event: "purchase", day: 3 },
  { who: "grace", event: "purchase", day: 0 }
].sort((a, b) => b.day - a.day)
const count = (event: string) => EVENTS.filter((sent) => sent.event === event).length

/** A trend of daily pageviews, as the builder makes it. */
const DAILY_VIEWS = {
  kind: "InsightVizNode",
  source: {
    kind: "TrendsQuery",
    series: [{ kind: "EventsNode", event: "$pageview", name: "$pageview", math: "total" }],
    interval: "day",
    dateRange: { date_from: "-7d" },
    trendsFilter: { display: "ActionsLineGraph" }
  }
}

let session: Awaited<ReturnType<typeof insightsSession>>
beforeAll(async () => void (session = await insightsSession(EVENTS)))
afterAll(() => session?.close())

const create = (name: string, query: unknown) =>
  session.h.json("/api/projects/1/insights/", { method: "POST", body: JSON.stringify({ name, query, saved: true }) })

const legendTotals = async (page: Page) =>
  numbers(await page.getByRole("list", { name: "Legend" }).locator(".legend-total").allTextContents())

describe("editing a saved insight", () => {
  it("opens its query in the builder, shows the change live, saves it to the same insight, and cancels", async () => {
    const { h, page } = session
    const insight = await create("Daily views", DAILY_VIEWS)
    const savedCount = (await h.json("/api/projects/1/insights/?saved=true")).count
    await page.goto(`${h.root}/project/1/insights/${insight.short_id}`)
    await page.getByRole("heading", { level: 1, name: "Daily views" }).waitFor()
    await page.getByRole("link", { name: "Edit", exact: true }).click()
    await page.waitForURL(`**/project/1/insights/${insight.short_id}/edit`)
    await page.getByRole("heading", { level: 1, name: "Edit Daily views" }).waitFor()

    // The stored query, field by field, and its result.
    expect(await page.getByLabel("Event 1").inputValue()).toBe("$pageview")
    expect(await page.getByLabel("Interval").inputValue()).toBe("day")
    expect(await page.getByLabel("Display").inputValue()).toBe("ActionsLineGraph")
    expect(await page.getByRole("note").count()).toBe(0)
    const result = page.getByRole("region", { name: "Result" })
    await eventually(() => legendTotals(page)).toEqual([count("$pageview")])

    // A second series and weekly buckets, computed as they change.
    await page.getByRole("button", { name: "Add series", exact: true }).click()
    await page.getByLabel("Event 2").fill("purchase")
    await page.getByLabel("Interval").selectOption("week")
    await eventually(() => legendTotals(page)).toEqual([count("$pageview"), count("purchase")])
    await result.getByRole("img", { name: /^line chart/ }).waitFor()
    expect(await axeViolations(page)).toEqual([])
    await screenshots(page, "insight-edit")

    await page.getByRole("button", { name: "Save" }).click()
    await page.waitForURL(`**/project/1/insights/${insight.short_id}`)
    await page.reload()
    await page.getByRole("heading", { level: 1, name: "Daily views" }).waitFor()
    const stored = await h.json(`/api/projects/1/insights/${insight.id}/`)
    expect(stored.short_id).toBe(insight.short_id)
    expect(stored.query).toEqual({
      ...DAILY_VIEWS,
      source: {
        ...DAILY_VIEWS.source,
        series: [
          ...DAILY_VIEWS.source.series,
          { kind: "EventsNode", event: "purchase", name: "purchase", math: "total" }
        ],
        interval: "week"
      }
    })
    // The same insight, not a new one.
    expect((await h.json("/api/projects/1/insights/?saved=true")).count).toBe(savedCount)
    const api: Array<{ label: string; count: number; labels: Array<string>; data: Array<number> }> = await queryResult(
      h,
      stored.query.source
    )
    expect(api.map((entry) => entry.count)).toEqual([count("$pageview"), count("purchase")])
    await eventually(() => legendTotals(page)).toEqual(api.map((entry) => entry.count))
    // Weekly buckets: the chart's last label and its values are the API's last week.
    const { tooltip } = await hoverLast(page, api[0]!.labels.length)
    await eventually(() => tooltip.locator("div").first().textContent()).toBe(api[0]!.labels.at(-1))
    expect(await tooltip.locator("li").allTextContents()).toEqual(
      api.map((entry) => `${entry.label}: ${entry.data.at(-1)}`)
    )
    await page.mouse.move(0, 0)
    await page.getByText("Edit, share, history").click()
    const activity = page.getByRole("region", { name: "Activity" }).getByRole("listitem")
    await eventually(() => activity.first().textContent()).toMatch(/updated.*query: /)

    // Cancelled, a change is not kept.
    await page.getByRole("link", { name: "Edit", exact: true }).click()
    await page.getByLabel("Interval").selectOption("month")
    await page.getByRole("button", { name: "Cancel" }).click()
    await page.waitForURL(`**/project/1/insights/${insight.short_id}`)
    expect((await h.json(`/api/projects/1/insights/${insight.id}/`)).query).toEqual(stored.query)
  })

  it("says when the stored query has parts the builder does not edit", async () => {
    const { h, page } = session
    const insight = await create("Views, test accounts filtered", {
      ...DAILY_VIEWS,
      source: { ...DAILY_VIEWS.source, filterTestAccounts: true }
    })
    await page.goto(`${h.root}/project/1/insights/${insight.short_id}/edit`)
    await expect(page.getByRole("note").textContent()).resolves.toMatch(/parts the builder does not show/)
    expect(await page.getByLabel("Event 1").inputValue()).toBe("$pageview")
  })
})
