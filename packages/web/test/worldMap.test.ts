import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { Page } from "playwright-core"
import { axeViolations } from "./harness.js"
import { eventually, insightsSession, queryResult, type Sent, saveAs, screenshots } from "./insightHelpers.js"

// The trends world map (`display: "WorldMap"`, a breakdown by `$geoip_country_code`) in Chromium:
// each country's shade, label and tooltip against the counts the test sent and the query API's
// answer; its shapes fetched only when a map is drawn.

/** Pageviews per country code sent: Singapore is too small for the 1:110m map, "" has no country. */
const VIEWS: Record<string, number> = { DE: 3, FR: 1, US: 5, BR: 2, SG: 2 }
const EVENTS: ReadonlyArray<Sent> = Object.entries(VIEWS).flatMap(([country, views]) =>
  Array.from({ length: views }, (_, i) => ({
    who: `${country}-${i % 2}`,
    event: "$pageview",
    day: i % 3,
    properties: { $geoip_country_code: country }
  }))
)
const names = new Intl.DisplayNames(["en-US"], { type: "region" })

let session: Awaited<ReturnType<typeof insightsSession>>
beforeAll(async () => void (session = await insightsSession(EVENTS)))
afterAll(() => session?.close())

/** Each shaded country's code and accessible label, and its fill's accent share (from its style). */
const shaded = (page: Page) =>
  page.locator("path.country.valued").evaluateAll((paths) =>
    paths.map((path) => ({
      code: path.getAttribute("data-code")!,
      label: path.getAttribute("aria-label")!,
      shade: Number.parseFloat((path as SVGElement).style.getPropertyValue("--shade"))
    }))
  )

describe("the trends world map", () => {
  it("shades each country by its value, with exact values in tooltips, legend and table; shapes load lazily", async () => {
    const { h, page } = session
    const scripts: Array<string> = []
    page.on("request", (request) => {
      if (request.resourceType() === "script") scripts.push(new URL(request.url()).pathname)
    })
    await page.goto(`${h.root}/project/1/insights/new`)
    await page.getByLabel("Breakdown by").fill("$geoip_country_code")
    const result = page.getByRole("region", { name: "Result" })
    await result.getByRole("list", { name: "Legend" }).waitFor()
    // A line chart needs no country shapes.
    expect(scripts.filter((path) => path.includes("WorldMapDrawing"))).toEqual([])

    await page.getByLabel("Display").selectOption({ label: "World map" })
    const map = result.getByRole("group", { name: /^world map/ })
    await map.waitFor()
    expect(scripts.filter((path) => path.includes("WorldMapDrawing"))).toHaveLength(1)
    const max = Math.max(...Object.values(VIEWS))
    const drawn = Object.entries(VIEWS).filter(([code]) => code !== "SG")
    const expected = drawn
      .map(([code, views]) => ({ code, label: `${names.of(code)}: ${views}`, shade: 15 + (85 * views) / max }))
      .sort((a, b) => a.code.localeCompare(b.code))
    const byCode = async () => (await shaded(page)).sort((a, b) => a.code.localeCompare(b.code))
    await eventually(byCode).toEqual(expected)
    // Singapore has no shape at this scale: listed under the map with its value.
    expect(await result.locator(".map-elsewhere").allTextContents()).toEqual([`${names.of("SG")}: ${VIEWS["SG"]}`])
    // The screen readers' table has every value.
    const table = result.getByRole("table", { name: /values by country/ })
    const rows = await table.locator("tbody tr").allInnerTexts()
    expect(rows.map((row) => row.replace(/\s+/g, " ").trim()).sort()).toEqual(
      Object.entries(VIEWS)
        .map(([code, views]) => `${names.of(code)} ${views}`)
        .sort()
    )

    // Hovered, then reached by keyboard: the tooltip names the country and its exact value.
    const tooltip = result.getByRole("tooltip")
    await map.locator('path[data-code="US"]').hover()
    await eventually(() => tooltip.textContent()).toBe(`${names.of("US")}: ${VIEWS["US"]}`)
    // Tab goes from one country with a value to the next, in the map's order.
    const [first, second] = (await shaded(page)).map((country) => country.code)
    await map.locator(`path[data-code="${first}"]`).focus()
    await eventually(() => tooltip.textContent()).toBe(`${names.of(first!)}: ${VIEWS[first!]}`)
    await page.keyboard.press("Tab")
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-code"))).toBe(second)
    await eventually(() => tooltip.textContent()).toBe(`${names.of(second!)}: ${VIEWS[second!]}`)
    expect(await axeViolations(page)).toEqual([])

    // Saved, its page draws the same map; every value is the query API's for the stored query.
    const insight = await saveAs(h, page, "Views by country")
    expect(insight.query.source).toMatchObject({
      trendsFilter: { display: "WorldMap" },
      breakdownFilter: { breakdown: "$geoip_country_code" }
    })
    const api: Array<{ breakdown_value: string; aggregated_value: number }> = await queryResult(h, insight.query.source)
    expect(Object.fromEntries(api.map((entry) => [entry.breakdown_value, entry.aggregated_value]))).toEqual(VIEWS)
    await page.getByRole("group", { name: "world map: Views by country" }).waitFor()
    await eventually(byCode).toEqual(
      api
        .filter((entry) => entry.breakdown_value !== "SG")
        .map((entry) => ({
          code: entry.breakdown_value,
          label: `${names.of(entry.breakdown_value)}: ${entry.aggregated_value}`,
          shade: 15 + (85 * entry.aggregated_value) / max
        }))
        .sort((a, b) => a.code.localeCompare(b.code))
    )
    await page.locator('path[data-code="BR"]').hover()
    await eventually(() => page.getByRole("tooltip").textContent()).toBe(`${names.of("BR")}: ${VIEWS["BR"]}`)
    expect(await axeViolations(page)).toEqual([])
    await screenshots(page, "insight-world-map")
  })
})
