import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { BrowserContext, Page } from "playwright-core"
import { PostHog } from "posthog-node"
import { signIn } from "../../node/test/browser.js"
import {
  ADMIN,
  axeViolations,
  captureData,
  type Harness,
  PERSONAL_KEY,
  PROJECT_KEY,
  screenshot,
  startHarness
} from "./harness.js"

// Dashboards in the app, on data posthog-node sent (captureData: ada views /pricing and /docs and
// signs up in Firefox, grace views /pricing, all in Chrome): made, renamed, duplicated and deleted
// from the list; tiles added, dragged and resized, their layout kept over a reload; the numbers on
// the tiles, on the dashboard's filter and on its public link (opened signed out) compared with
// the API's answer for the same dashboard.

let h: Harness
let context: BrowserContext
let page: Page

const viz = (source: Record<string, unknown>) => ({ kind: "InsightVizNode", source })
const INSIGHTS = {
  views: {
    name: "Pageviews",
    query: viz({
      kind: "TrendsQuery",
      series: [{ kind: "EventsNode", event: "$pageview" }],
      interval: "day",
      dateRange: { date_from: "-7d" }
    })
  },
  signups: {
    name: "Sign-ups",
    query: viz({
      kind: "TrendsQuery",
      series: [{ kind: "EventsNode", event: "signed up" }],
      trendsFilter: { display: "BoldNumber" }
    })
  }
} as const

const numbers = (texts: ReadonlyArray<string>) => texts.map((text) => Number(text.replace(/[^\d.-]/g, "")))

interface Box {
  readonly x: number
  readonly y: number
  readonly w: number
  readonly h: number
}
const overlap = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h

let board: { id: number; name: string }

beforeAll(async () => {
  h = await startHarness()
  await captureData(h.root)
  for (const body of Object.values(INSIGHTS))
    await h.json("/api/projects/1/insights/", { method: "POST", body: JSON.stringify({ ...body, saved: true }) })
  context = await h.browser.newContext({ viewport: { width: 1280, height: 900 } })
  page = await context.newPage()
  await signIn(page, `${h.root}/project/1/dashboards`, ADMIN)
})
afterAll(async () => {
  await context?.close()
  await h?.close()
})

const dashboardApi = (refresh = "blocking") => h.json(`/api/projects/1/dashboards/${board.id}/?refresh=${refresh}`)
const tiles = () => page.locator(".tile-grid article")
/** Each tile's name and layout as the page shows it: its grid cells, from where it is drawn. */
const drawn = async () => {
  const grid = (await page.locator(".tile-grid").boundingBox())!
  const column = (grid.width + 12) / 12
  const row = 80 + 12
  const all = await tiles().all()
  const out: Record<string, Box> = {}
  for (const tile of all) {
    const box = (await tile.boundingBox())!
    out[(await tile.getAttribute("aria-label"))!] = {
      x: Math.round((box.x - grid.x) / column),
      y: Math.round((box.y - grid.y) / row),
      w: Math.round((box.width + 12) / column),
      h: Math.round((box.height + 12) / row)
    }
  }
  return out
}
/** Each tile's saved `sm` layout, by the name the page gives it. */
const savedLayouts = async () => {
  const answer = await h.json(`/api/projects/1/dashboards/${board.id}/`)
  return Object.fromEntries(
    answer.tiles.map((t: { insight: { name: string } | null; text: { body: string } | null; layouts: { sm: Box } }) => [
      t.insight?.name ?? t.text!.body,
      t.layouts.sm
    ])
  )
}

/** Drags `handle` by `dx`, `dy` pixels with the mouse, in steps as a hand would. */
const drag = async (handle: ReturnType<Page["locator"]>, dx: number, dy: number) => {
  // The mouse reaches only what is in the viewport.
  await handle.scrollIntoViewIfNeeded()
  const box = (await handle.boundingBox())!
  const x = box.x + box.width / 2
  const y = box.y + box.height / 2
  await page.mouse.move(x, y)
  await page.mouse.down()
  await page.mouse.move(x + dx, y + dy, { steps: 8 })
  await page.mouse.up()
}

describe("dashboards", () => {
  it("list: create, rename, duplicate and delete", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Dashboards" }).waitFor()
    const table = page.getByRole("table", { name: "Dashboards" })
    const names = () => table.locator("tbody tr td:first-child a").allTextContents()
    // A new project's template is not here: project 1 was made by the bootstrap.
    await expect.poll(names).toEqual([])
    await page.getByLabel("Name", { exact: true }).fill("Weekly numbers")
    await page.getByRole("button", { name: "New dashboard" }).click()
    await page.waitForURL(/\/project\/1\/dashboard\/\d+$/)
    board = { id: Number(page.url().split("/").at(-1)), name: "Weekly numbers" }
    await page.getByRole("heading", { level: 1, name: "Weekly numbers" }).waitFor()

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Dashboards" }).click()
    await expect.poll(names).toEqual(["Weekly numbers"])
    await page.getByRole("button", { name: "Rename Weekly numbers" }).click()
    await page.getByLabel("New name").fill("Weekly KPIs")
    await page.getByRole("button", { name: "Save" }).click()
    await expect.poll(names).toEqual(["Weekly KPIs"])
    board = { ...board, name: "Weekly KPIs" }
    expect((await h.json(`/api/projects/1/dashboards/${board.id}/`)).name).toBe("Weekly KPIs")

    await page.getByRole("button", { name: "Duplicate Weekly KPIs" }).click()
    await page.getByRole("heading", { level: 1, name: "Weekly KPIs (Copy)" }).waitFor()
    const copy = Number(page.url().split("/").at(-1))
    expect(copy).not.toBe(board.id)
    await page.goBack()
    await expect.poll(names).toEqual(["Weekly KPIs (Copy)", "Weekly KPIs"])
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, "dashboards")
    await page.getByRole("button", { name: "Delete Weekly KPIs (Copy)" }).click()
    await expect.poll(names).toEqual(["Weekly KPIs"])
    expect((await h.json(`/api/projects/1/dashboards/${copy}/`)).deleted).toBe(true)
  })

  it("tiles: added, dragged and resized; the layout is saved and survives a reload", async () => {
    await page.getByRole("link", { name: "Weekly KPIs" }).click()
    await page.waitForURL(new RegExp(`/project/1/dashboard/${board.id}$`))
    await page.getByRole("heading", { level: 1, name: "Weekly KPIs" }).waitFor()
    for (const name of ["Pageviews", "Sign-ups"]) {
      await page.getByRole("combobox", { name: /^Insight/ }).selectOption({ label: name })
      await page.getByRole("button", { name: "Add insight" }).click()
      await page.getByRole("article", { name }).waitFor()
    }
    await page.getByRole("textbox", { name: "Text card" }).fill("Numbers for Monday")
    await page.getByRole("button", { name: "Add text" }).click()
    await page.getByRole("article", { name: "Numbers for Monday" }).waitFor()
    await expect.poll(() => tiles().count()).toBe(3)

    const before = await drawn()
    // Two by two, in the order added.
    expect(before).toEqual({
      Pageviews: { x: 0, y: 0, w: 6, h: 5 },
      "Sign-ups": { x: 6, y: 0, w: 6, h: 5 },
      "Numbers for Monday": { x: 0, y: 5, w: 6, h: 5 }
    })
    const grid = (await page.locator(".tile-grid").boundingBox())!
    const column = (grid.width + 12) / 12

    // Sign-ups dragged six columns left, onto Pageviews' place: it takes it, the others make room.
    await drag(page.getByRole("button", { name: "Move Sign-ups", exact: true }), -6 * column, 0)
    await expect.poll(async () => (await drawn())["Sign-ups"]).toEqual({ x: 0, y: 0, w: 6, h: 5 })
    // Pageviews' corner dragged to the grid's right edge and one row down: 12 wide, 6 high.
    await drag(page.getByRole("button", { name: "Resize Pageviews", exact: true }), 6 * column, 92)
    await expect
      .poll(async () => ({ ...(await drawn())["Pageviews"], x: 0, y: 0 }))
      .toEqual({ x: 0, y: 0, w: 12, h: 6 })
    const after = await drawn()
    const boxes = Object.values(after)
    for (const [i, a] of boxes.entries())
      for (const b of boxes.slice(i + 1)) expect(overlap(a, b), JSON.stringify(after)).toBe(false)
    expect(after).not.toEqual(before)

    // Saved as drawn, and drawn the same after a reload.
    await expect.poll(savedLayouts).toEqual(after)
    await page.reload()
    await page.getByRole("article", { name: "Numbers for Monday" }).waitFor()
    await expect.poll(drawn).toEqual(after)

    // Each tile's numbers are the API's for the same dashboard.
    const api = await dashboardApi()
    const result = (name: string) =>
      api.tiles.find((t: { insight: { name: string } | null }) => t.insight?.name === name).insight.result
    const views = page.getByRole("article", { name: "Pageviews" })
    await expect
      .poll(async () => numbers(await views.locator(".legend-total").allTextContents()))
      .toEqual([result("Pageviews")[0].count])
    expect(result("Pageviews")[0].count).toBe(3)
    const signups = page.getByRole("article", { name: "Sign-ups" }).locator(".bold-number .value")
    await expect.poll(() => signups.textContent()).toBe(String(result("Sign-ups")[0].aggregated_value))
    expect(result("Sign-ups")[0].aggregated_value).toBe(1)
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, "dashboard")
  })

  it("refresh all and the dashboard's property filter: every tile as the API computes it", async () => {
    const views = page.getByRole("article", { name: "Pageviews" }).locator(".legend-total")
    // One more pageview; the cached result stays until the dashboard is refreshed.
    const ph = new PostHog(PROJECT_KEY, { host: h.root, flushAt: 1, flushInterval: 0 })
    ph.capture({ distinctId: "grace", event: "$pageview", properties: { $pathname: "/docs", $browser: "Firefox" } })
    await ph.shutdown()
    // Stored (ingestion may finish after the SDK's request).
    await expect
      .poll(async () => (await h.json("/api/projects/1/events/?event=%24pageview")).results.length, { timeout: 30_000 })
      .toBe(4)
    await page.getByRole("button", { name: "Refresh all" }).click()
    await expect.poll(async () => numbers(await views.allTextContents())).toEqual([4])
    expect((await dashboardApi()).tiles[0].insight.result[0].count).toBe(4)

    await page.getByLabel("Property").fill("$browser=Firefox")
    await page.getByRole("button", { name: "Apply filters" }).click()
    // Firefox: grace's last pageview, and ada's sign-up.
    await expect.poll(async () => numbers(await views.allTextContents())).toEqual([1])
    const api = await dashboardApi()
    expect(api.filters.properties).toEqual([{ key: "$browser", value: "Firefox", operator: "exact", type: "event" }])
    const signups = page.getByRole("article", { name: "Sign-ups" }).locator(".bold-number .value")
    await expect
      .poll(() => signups.textContent())
      .toBe(
        String(
          api.tiles.find((t: { insight: { name: string } | null }) => t.insight?.name === "Sign-ups").insight.result[0]
            .aggregated_value
        )
      )
    await page.getByLabel("Property").fill("")
    await page.getByRole("button", { name: "Apply filters" }).click()
    await expect.poll(async () => numbers(await views.allTextContents())).toEqual([4])
    await page.getByLabel("Auto refresh").selectOption({ label: "Every minute" })
  })

  it("a shared link opens signed out and shows the same numbers as the API", async () => {
    await page.getByRole("button", { name: "Share by link" }).click()
    const link = await page.getByLabel("Public link").inputValue()
    expect((await h.json(`/api/projects/1/dashboards/${board.id}/`)).is_shared).toBe(true)
    const api = await dashboardApi()
    const stranger = await h.browser.newContext({ viewport: { width: 1280, height: 900 } })
    try {
      const publicPage = await stranger.newPage()
      await publicPage.goto(link)
      await publicPage.getByRole("heading", { level: 1, name: "Weekly KPIs" }).waitFor()
      const headings = await publicPage.getByRole("heading", { level: 2 }).allTextContents()
      const shown = api.tiles.filter((t: { insight: unknown }) => t.insight !== null)
      expect(headings).toEqual(shown.map((t: { insight: { name: string } }) => t.insight.name))
      // Each series' total, in the order of the tiles.
      expect(numbers(await publicPage.locator("li b").allTextContents())).toEqual(
        shown.map((t: { insight: { result: Array<{ count: number; aggregated_value?: number }> } }) => {
          const [series] = t.insight.result
          return series!.aggregated_value ?? series!.count
        })
      )
      await publicPage.getByText("Numbers for Monday").waitFor()
      expect(await axeViolations(publicPage)).toEqual([])
      await screenshot(publicPage, "dashboard-shared")
    } finally {
      await stranger.close()
    }
    await page.getByRole("button", { name: "Stop sharing" }).click()
    await expect.poll(async () => (await fetch(link)).status).toBe(404)
  })

  it("on a phone, tiles stack in grid order", async () => {
    await page.setViewportSize({ width: 390, height: 844 })
    await expect.poll(() => page.getByRole("button", { name: /^Move / }).count()).toBe(0)
    const order = await tiles().evaluateAll((all) => all.map((t) => t.getAttribute("aria-label")))
    const saved = Object.entries(await savedLayouts()) as Array<[string, Box]>
    expect(order).toEqual(saved.sort(([, a], [, b]) => a.y - b.y || a.x - b.x).map(([name]) => name))
    const width = await page.evaluate(() => document.documentElement.scrollWidth)
    expect(width).toBeLessThanOrEqual(390)
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, "dashboard-phone")
    await page.setViewportSize({ width: 1280, height: 900 })
  })

  it("a tile whose insight cannot be computed shows its error; the other tiles their results", async () => {
    const mixed = await h.json("/api/projects/1/dashboards/", {
      method: "POST",
      body: JSON.stringify({ name: "One broken tile" })
    })
    const broken = { kind: "DataTableNode", source: { kind: "ZedQLQuery", query: "SELECT nope FROM events" } }
    for (const [name, query] of [
      ["Views here", INSIGHTS.views.query],
      ["Broken", broken]
    ] as const)
      await h.json("/api/projects/1/insights/", {
        method: "POST",
        body: JSON.stringify({ name, query, saved: true, dashboards: [mixed.id] })
      })
    await page.goto(`${h.root}/project/1/dashboard/${mixed.id}`)
    await page.getByRole("heading", { level: 1, name: "One broken tile" }).waitFor()
    const api = await h.json(`/api/projects/1/dashboards/${mixed.id}/?refresh=blocking`)
    const insightOf = (name: string) =>
      api.tiles.find((t: { insight: { name: string } }) => t.insight.name === name).insight
    // The error the insight's own request answers, in its tile only.
    const alone = await fetch(`${h.root}/api/projects/1/insights/${insightOf("Broken").id}/?refresh=blocking`, {
      headers: { authorization: `Bearer ${PERSONAL_KEY}` }
    })
    expect(alone.status).toBe(400)
    const { detail } = await alone.json()
    expect(insightOf("Broken")).toMatchObject({ result: null, error: { detail } })
    const alert = page.getByRole("article", { name: "Broken" }).getByRole("alert")
    await expect.poll(() => alert.textContent()).toBe(`Could not compute: ${detail}`)
    await expect.poll(() => page.locator(".tile-grid").getByRole("alert").count()).toBe(1)
    const views = page.getByRole("article", { name: "Views here" }).locator(".legend-total")
    await expect
      .poll(async () => numbers(await views.allTextContents()))
      .toEqual([insightOf("Views here").result[0].count])
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, "dashboard-tile-error")
  })
})
