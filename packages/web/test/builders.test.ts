import { readFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { BrowserContext, Page } from "playwright-core"
import { signIn } from "../../node/test/browser.js"
import { ADMIN, axeViolations, type Harness, startHarness } from "./harness.js"
import {
  dayAgo,
  drillIntoToday,
  screenshots,
  eventually,
  hoverLast,
  numbers,
  queryResult,
  type Sent,
  saveAs,
  send
} from "./insightHelpers.js"

// The insight builder for every kind, on events posthog-node sent on chosen days: what the page
// shows is checked against what the test computes from those events, and against the query API's
// answer for the query the builder saved.

const PEOPLE = {
  u1: { email: "u1@example.com", plan: "pro" },
  u2: { email: "u2@example.com", plan: "free" },
  u3: { email: "u3@example.com", plan: "pro" },
  u4: { email: "u4@example.com", plan: "free" }
}
const COUNTRY: Record<string, string> = { u1: "DE", u2: "FR", u3: "US", u4: "US" }
/** Days (before today) each person viewed a page on. */
const VISITS: Record<string, ReadonlyArray<number>> = { u1: [3, 2, 1, 0], u2: [3, 1], u3: [2, 0], u4: [0] }
const PURCHASES: ReadonlyArray<Sent> = [
  { who: "u1", event: "purchase", day: 1, properties: { price: 30 } },
  { who: "u1", event: "purchase", day: 0, properties: { price: 50 } },
  { who: "u3", event: "purchase", day: 0, properties: { price: 12 } }
]
const SIGNUPS: ReadonlyArray<Sent> = [
  { who: "u1", event: "signed up", day: 2 },
  { who: "u2", event: "signed up", day: 1 },
  { who: "u3", event: "signed up", day: 0 }
]
const PAGEVIEWS: ReadonlyArray<Sent> = Object.entries(VISITS).flatMap(([who, days]) =>
  days.map((day) => ({
    who,
    event: "$pageview",
    day,
    properties: { $pathname: day % 2 === 0 ? "/home" : "/pricing", $geoip_country_code: COUNTRY[who] }
  }))
)
/** Earliest first, so that each person's events keep their order. */
const EVENTS = [...PAGEVIEWS, ...SIGNUPS, ...PURCHASES].sort((a, b) => b.day - a.day)

/** Persons who did `event` on day `day` (days before today). */
const didOn = (event: string, day: number) =>
  new Set(EVENTS.filter((sent) => sent.event === event && sent.day === day).map((sent) => sent.who))

/** Recurring retention over the last `cohorts` days, as counts: [cohort size, returned 1 day later, …]. */
const retention = (start: string, returning: string, cohorts: number) =>
  Array.from({ length: cohorts }, (_, c) => {
    const day = cohorts - 1 - c
    const cohort = didOn(start, day)
    return Array.from({ length: day + 1 }, (_, j) =>
      j === 0 ? cohort.size : [...didOn(returning, day - j)].filter((who) => cohort.has(who)).length
    )
  })

let h: Harness
let context: BrowserContext
let page: Page

beforeAll(async () => {
  h = await startHarness()
  await send(h, PEOPLE, EVENTS)
  context = await h.browser.newContext({ viewport: { width: 1280, height: 900 } })
  page = await context.newPage()
  await signIn(page, `${h.root}/project/1/insights`, ADMIN)
})
afterAll(async () => {
  await context?.close()
  await h?.close()
})

const newInsight = async (kind: string) => {
  await page.goto(`${h.root}/project/1/insights/new`)
  await page.getByLabel("Kind").selectOption({ label: kind })
  return page.getByRole("region", { name: "Result" })
}

describe("the insight builder's other kinds", () => {
  it("retention: start and returning events, the cohort heat map and the curve, live and saved", async () => {
    const result = await newInsight("Retention")
    await page.getByLabel("Cohorts").fill("4")
    const rows = result.getByRole("table", { name: "Retention cohorts" }).locator("tbody tr")
    const shown = async () =>
      Promise.all((await rows.all()).map(async (row) => numbers(await row.locator(".heat-count").allTextContents())))
    await eventually(shown).toEqual(retention("$pageview", "$pageview", 4))
    // The curve: of all persons in cohorts old enough, the share back j days later.
    const expected = retention("$pageview", "$pageview", 4)
    const curve = Array.from({ length: 4 }, (_, j) => {
      const old = expected.filter((cohort) => cohort.length > j)
      const size = old.reduce((sum, cohort) => sum + cohort[0]!, 0)
      return Math.round((1000 * old.reduce((sum, cohort) => sum + cohort[j]!, 0)) / size) / 10
    })
    const legend = result.getByRole("list", { name: "Legend" })
    await eventually(() => legend.locator(".legend-label").allTextContents()).toEqual(["Retained %"])
    await result.getByRole("img", { name: "line chart: Retention curve" }).waitFor()
    expect(curve[0]).toBe(100)
    // Three days on, only the first cohort counts.
    const { tooltip } = await hoverLast(page, 4)
    await eventually(() => tooltip.locator("li").allTextContents()).toEqual([`Retained %: ${curve[3]}`])

    // Coming back to buy: computed again as the returning event changes.
    await page.getByLabel("Returning event").fill("purchase")
    await eventually(shown).toEqual(retention("$pageview", "purchase", 4))
    expect(await axeViolations(page)).toEqual([])
    await screenshots(page, "insight-builder-retention")

    const insight = await saveAs(h, page, "Visitors who buy")
    expect(insight.query.source).toMatchObject({
      kind: "RetentionQuery",
      retentionFilter: {
        period: "Day",
        totalIntervals: 4,
        targetEntity: { id: "$pageview", type: "events" },
        returningEntity: { id: "purchase", type: "events" }
      }
    })
    const api = await queryResult(h, insight.query.source)
    expect(api.map((row: { values: Array<{ count: number }> }) => row.values.map((v) => v.count))).toEqual(
      retention("$pageview", "purchase", 4)
    )
    const saved = page.getByRole("table", { name: "Retention cohorts" }).locator("tbody tr")
    await eventually(() => saved.count()).toBe(4)
  })

  it("stickiness: persons per number of active days, per series, live and saved", async () => {
    const result = await newInsight("Stickiness")
    const legend = result.getByRole("list", { name: "Legend" })
    // Every person viewed a page on some day: 4.
    await eventually(() => legend.locator(".legend-total").allTextContents()).toEqual(["4"])
    await page.getByRole("button", { name: "Add series", exact: true }).click()
    await page.getByLabel("Event 2").fill("purchase")
    await eventually(() => legend.locator(".legend-label").allTextContents()).toEqual(["$pageview", "purchase"])
    await eventually(() => legend.locator(".legend-total").allTextContents()).toEqual(["4", "2"])
    await page.getByLabel("Count persons active").selectOption("cumulative")
    await result.getByRole("img", { name: /^line chart/ }).waitFor()
    expect(await axeViolations(page)).toEqual([])
    await screenshots(page, "insight-builder-stickiness")

    const insight = await saveAs(h, page, "Sticky visitors")
    expect(insight.query.source).toMatchObject({
      kind: "StickinessQuery",
      series: [{ event: "$pageview" }, { event: "purchase" }],
      interval: "day",
      stickinessFilter: { computedAs: "cumulative" }
    })
    // At least k active days, by the test's own count of each person's days.
    const days = (event: string) =>
      Object.keys(PEOPLE).map(
        (who) => new Set(EVENTS.filter((e) => e.who === who && e.event === event).map((e) => e.day)).size
      )
    const api = await queryResult(h, insight.query.source)
    for (const [i, event] of ["$pageview", "purchase"].entries()) {
      const atLeast = api[i].data.map((_: number, k: number) => days(event).filter((n) => n >= k + 1).length)
      expect(api[i].data).toEqual(atLeast)
    }
    expect(api[0].data.slice(0, 4)).toEqual([4, 3, 1, 1])
  })

  it("lifecycle: one event's statuses as bars, a status left out when unticked", async () => {
    const result = await newInsight("Lifecycle")
    const legend = result.getByRole("list", { name: "Legend" })
    const statuses = ["new", "returning", "resurrecting", "dormant"]
    await eventually(() => legend.locator(".legend-label").allTextContents()).toEqual(
      statuses.map((status) => `$pageview - ${status}`)
    )
    await page.getByRole("checkbox", { name: "dormant" }).uncheck()
    await eventually(() => legend.locator(".legend-label").allTextContents()).toHaveLength(3)
    await result.getByRole("img", { name: /^stacked bar chart/ }).waitFor()
    expect(await axeViolations(page)).toEqual([])
    await screenshots(page, "insight-builder-lifecycle")

    const insight = await saveAs(h, page, "Visitor lifecycle")
    expect(insight.query.source).toMatchObject({
      kind: "LifecycleQuery",
      series: [{ event: "$pageview" }],
      lifecycleFilter: { toggledLifecycles: ["new", "returning", "resurrecting"] }
    })
    const api = await queryResult(h, insight.query.source)
    const shown = page.getByRole("list", { name: "Legend" })
    await eventually(async () => numbers(await shown.locator(".legend-total").allTextContents())).toEqual(
      api.map((entry: { count: number }) => entry.count)
    )
    // Every active day of every person is new, returning or resurrecting.
    const active = Object.values(VISITS).reduce((sum, days) => sum + days.length, 0)
    expect(api.reduce((sum: number, entry: { count: number }) => sum + entry.count, 0)).toBe(active)
  })
})

/** The emails of the persons who did `event` on day `day`, or of `who`, sorted. */
const emails = (who: Iterable<string>) => [...who].map((p) => PEOPLE[p as keyof typeof PEOPLE].email).sort()

describe("the trends builder in full", () => {
  it("property math with filters, top-N breakdown with other, formula, pie, each computed from the events", async () => {
    const result = await newInsight("Trends")
    const legend = result.getByRole("list", { name: "Legend" })
    const totals = async () => numbers(await legend.locator(".legend-total").allTextContents())
    const sum = (events: ReadonlyArray<Sent>) => events.reduce((total, e) => total + Number(e.properties!["price"]), 0)

    // The sum of purchase prices, then only purchases above 20, then only pro persons' (all of them).
    await page.getByLabel("Event 1").fill("purchase")
    await page.getByLabel("Math 1").selectOption({ label: "Property sum" })
    await page.getByLabel("Property 1").fill("price")
    await eventually(totals).toEqual([sum(PURCHASES)])
    await page.getByRole("button", { name: "Add series 1 filter" }).click()
    await page.getByLabel("Series 1 filter 1 property").fill("price")
    await page.getByLabel("Series 1 filter 1 operator").selectOption("gt")
    await page.getByLabel("Series 1 filter 1 value").fill("20")
    await eventually(totals).toEqual([sum(PURCHASES.filter((e) => Number(e.properties!["price"]) > 20))])
    await page.getByRole("button", { name: "Remove series 1 filter 1" }).click()
    await page.getByRole("button", { name: "Add filter" }).click()
    await page.getByLabel("Filter 1 type").selectOption("person")
    await page.getByLabel("Filter 1 property").fill("plan")
    await page.getByLabel("Filter 1 value").fill("free")
    const free = PURCHASES.filter((e) => PEOPLE[e.who as keyof typeof PEOPLE].plan === "free")
    await eventually(totals).toEqual([sum(free)])
    await page.getByRole("button", { name: "Remove filter 1" }).click()

    // Pageviews by country, the top 1 and the rest as other.
    await page.getByLabel("Event 1").fill("$pageview")
    await page.getByLabel("Math 1").selectOption({ label: "Total count" })
    await page.getByLabel("Breakdown by").fill("$geoip_country_code")
    await page.getByLabel("Top values").fill("1")
    const byCountry = new Map<string, number>()
    for (const e of PAGEVIEWS) {
      const country = String(e.properties!["$geoip_country_code"])
      byCountry.set(country, (byCountry.get(country) ?? 0) + 1)
    }
    const top = [...byCountry.entries()].sort((a, b) => b[1] - a[1])[0]!
    await eventually(totals).toEqual([top[1], PAGEVIEWS.length - top[1]])
    expect((await legend.locator(".legend-label").allTextContents())[0]).toBe(top[0])
    await page.getByLabel("Display").selectOption({ label: "Pie" })
    await result.getByRole("img", { name: /^pie chart/ }).waitFor()
    expect(await axeViolations(page)).toEqual([])
    await screenshots(page, "insight-pie")

    // Purchases per pageview, as one number: B / A.
    await page.getByLabel("Breakdown by").fill("")
    await page.getByRole("button", { name: "Add series", exact: true }).click()
    await page.getByLabel("Event 2").fill("purchase")
    await page.getByLabel("Formula").fill("B / A")
    await page.getByLabel("Display").selectOption({ label: "Number" })
    const ratio = PURCHASES.length / PAGEVIEWS.length
    await eventually(async () => Number(await result.locator(".bold-number .value").textContent())).toBeCloseTo(
      ratio,
      3
    )
    await page.getByLabel("Formula").fill("")
    await page.getByLabel("Compare to previous period").check()
    await page.getByLabel("Display").selectOption({ label: "Area" })
    await eventually(() => legend.locator(".legend-label").allTextContents()).toEqual([
      "$pageview (current)",
      "purchase (current)",
      "$pageview (previous)",
      "purchase (previous)"
    ])
    const insight = await saveAs(h, page, "Pageviews and purchases")
    expect(insight.query.source).toMatchObject({
      series: [{ event: "$pageview", math: "total" }, { event: "purchase" }],
      compareFilter: { compare: true },
      trendsFilter: { display: "ActionsAreaGraph" }
    })
    const api = await queryResult(h, insight.query.source)
    const shown = page.getByRole("list", { name: "Legend" })
    await eventually(async () => numbers(await shown.locator(".legend-total").allTextContents())).toEqual(
      api.map((entry: { count: number }) => entry.count)
    )
    expect(api.slice(0, 2).map((entry: { count: number }) => entry.count)).toEqual([PAGEVIEWS.length, PURCHASES.length])
  })
})

describe("the funnel builder's breakdown and time to convert", () => {
  it("steps per person property value, then the conversion times' persons", async () => {
    const result = await newInsight("Funnel")
    await page.getByLabel("Step 2", { exact: true }).fill("purchase")
    await page.getByLabel("Breakdown type").selectOption("person")
    await page.getByLabel("Breakdown by").fill("plan")
    // Per plan: who viewed a page, and who of them bought after.
    const buyers = new Set(PURCHASES.map((e) => e.who))
    for (const plan of ["pro", "free"]) {
      const people = Object.entries(PEOPLE).filter(([, person]) => person.plan === plan)
      const counts = result.getByRole("table", { name: `Funnel steps: ${plan}` }).locator("tbody tr td:nth-child(2)")
      await eventually(() => counts.allTextContents()).toEqual([
        String(people.length),
        String(people.filter(([who]) => buyers.has(who)).length)
      ])
    }
    await screenshots(page, "insight-builder-funnel-breakdown")
    await page.getByLabel("Breakdown by").fill("")
    await page.getByLabel("Show").selectOption("time_to_convert")
    await result.getByRole("img", { name: /^bar chart/ }).waitFor()
    const insight = await saveAs(h, page, "Time to buy")
    expect(insight.query.source.funnelsFilter).toMatchObject({ funnelVizType: "time_to_convert" })
    const bins: Array<[number, number]> = (await queryResult(h, insight.query.source)).bins
    expect(bins.reduce((sum, [, persons]) => sum + persons, 0)).toBe(buyers.size)
  })
})

describe("the funnel builder's conversion over time", () => {
  it("a line of the daily conversion rate, as the test counts it and the API answers", async () => {
    // Per day (-7d: 8 days, today last), of the persons who viewed a page that day, the share (%)
    // who bought after it; a day's pageviews come before its purchases.
    const rates = Array.from({ length: 8 }, (_, i) => {
      const day = 7 - i
      const entered = didOn("$pageview", day)
      const bought = [...entered].filter((who) => PURCHASES.some((p) => p.who === who && p.day <= day))
      return entered.size === 0 ? 0 : Math.round((bought.length / entered.size) * 10_000) / 100
    })
    expect(rates.some((r) => r > 0 && r < 100)).toBe(true)
    const result = await newInsight("Funnel")
    await page.getByLabel("Step 2", { exact: true }).fill("purchase")
    await page.getByLabel("Show").selectOption({ label: "Conversion over time" })
    await expect.poll(() => page.getByLabel("Interval").inputValue()).toBe("day")
    await result.getByRole("img", { name: /^line chart/ }).waitFor()
    const legend = result.getByRole("list", { name: "Legend" })
    await eventually(() => legend.locator(".legend-label").allTextContents()).toEqual(["Conversion rate (%)"])
    const { tooltip } = await hoverLast(page, 8)
    await eventually(() => tooltip.locator("li").allTextContents()).toEqual([`Conversion rate (%): ${rates[7]}`])
    expect(await axeViolations(page)).toEqual([])
    await screenshots(page, "insight-builder-funnel-trends")

    const insight = await saveAs(h, page, "Buyers by day")
    expect(insight.query.source).toMatchObject({ interval: "day", funnelsFilter: { funnelVizType: "trends" } })
    expect(insight.result[0].data).toEqual(rates)
    expect(await queryResult(h, insight.query.source)).toEqual(insight.result)
  })
})

describe("drill-down", () => {
  it("a trend's point lists the persons behind it", async () => {
    const { insight, persons } = await drillIntoToday(h, page, "Daily visitors")
    const api = await queryResult(h, (await h.json(`/api/projects/1/insights/${insight.id}/`)).query.source)
    const today = api[0].data.at(-1)
    await eventually(async () => (await persons.getByRole("link").allTextContents()).sort()).toEqual(
      emails(didOn("$pageview", 0))
    )
    expect(today).toBe(didOn("$pageview", 0).size)
    expect(await axeViolations(page)).toEqual([])
    await screenshots(page, "insight-drill-down")
  })

  it("a funnel step lists the persons who converted, or who dropped off", async () => {
    const insight = await h.json("/api/projects/1/insights/", {
      method: "POST",
      body: JSON.stringify({
        name: "Visit to purchase",
        saved: true,
        query: {
          kind: "InsightVizNode",
          source: {
            kind: "FunnelsQuery",
            series: [
              { kind: "EventsNode", event: "$pageview" },
              { kind: "EventsNode", event: "purchase" }
            ]
          }
        }
      })
    })
    await page.goto(`${h.root}/project/1/insights/${insight.short_id}`)
    // A purchase after a pageview (every purchaser viewed a page before buying).
    const visitors = new Set(PAGEVIEWS.map((e) => e.who))
    const buyers = new Set(PURCHASES.map((e) => e.who))
    const persons = page.getByRole("region", { name: /^Persons: / })
    await page.getByRole("button", { name: /persons who reached step 2/ }).click()
    await eventually(async () => (await persons.getByRole("link").allTextContents()).sort()).toEqual(emails(buyers))
    await page.getByRole("button", { name: /persons who dropped off before step 2/ }).click()
    await eventually(async () => (await persons.getByRole("link").allTextContents()).sort()).toEqual(
      emails([...visitors].filter((who) => !buyers.has(who)))
    )
    await persons.getByRole("button", { name: "Close" }).click()
    await eventually(() => persons.count()).toBe(0)
  })
})

describe("insight actions", () => {
  it("rename, describe, tag, share by link and revoke it, activity, duplicate, delete", async () => {
    const insight = await h.json("/api/projects/1/insights/", {
      method: "POST",
      body: JSON.stringify({
        name: "Pageviews",
        saved: true,
        query: {
          kind: "InsightVizNode",
          source: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }] }
        }
      })
    })
    await page.goto(`${h.root}/project/1/insights/${insight.short_id}`)
    await page.getByRole("heading", { level: 1, name: "Pageviews" }).waitFor()
    // Opened with refresh=blocking: computed as the page asked.
    await eventually(() => page.locator("p.muted time").first().textContent()).toBe("just now")
    await page.getByText("Edit, share, history").click()

    await page.getByLabel("Insight name").fill("Page views")
    await page.getByLabel("Description").fill("Every pageview")
    await page.getByLabel("Tags").fill("web, daily")
    await page.getByRole("button", { name: "Save details" }).click()
    await page.getByRole("heading", { level: 1, name: "Page views" }).waitFor()
    expect(await h.json(`/api/projects/1/insights/${insight.id}/`)).toMatchObject({
      name: "Page views",
      description: "Every pageview",
      tags: ["web", "daily"]
    })
    const activity = page.getByRole("region", { name: "Activity" }).getByRole("listitem")
    await eventually(() => activity.first().textContent()).toMatch(/updated.*name: Pageviews → Page views/)

    // Shared: the link answers without credentials; revoked, it stops, and the new one answers.
    await page.getByLabel("Anyone with the link can see this insight").click()
    const sharing = page.getByRole("region", { name: "Sharing" })
    const link = sharing.getByRole("link")
    await link.waitFor()
    const first = (await link.getAttribute("href"))!
    expect((await h.json(`/api/projects/1/insights/${insight.id}/sharing/`)).enabled).toBe(true)
    const open = (url: string) => fetch(url, { headers: { accept: "application/json" } })
    expect((await (await open(first)).json()).name).toBe("Page views")
    await sharing.getByRole("button", { name: "Revoke link and make a new one" }).click()
    await eventually(() => link.getAttribute("href")).not.toBe(first)
    expect((await open(first)).status).toBe(404)
    expect((await open((await link.getAttribute("href"))!)).status).toBe(200)
    await eventually(() => activity.first().textContent()).toMatch(/access token refreshed/)
    expect(await axeViolations(page)).toEqual([])
    await screenshots(page, "insight-actions")

    await page.getByRole("button", { name: "Duplicate" }).click()
    await page.getByRole("heading", { level: 1, name: "Page views (copy)" }).waitFor()
    const copy = (await h.json("/api/projects/1/insights/?search=Page%20views%20(copy)")).results[0]
    expect(copy.query).toEqual((await h.json(`/api/projects/1/insights/${insight.id}/`)).query)

    await page.getByText("Edit, share, history").click()
    await page.getByRole("button", { name: "Delete" }).click()
    await page.getByRole("button", { name: "Really delete" }).click()
    await page.waitForURL(/\/project\/1\/insights$/)
    expect((await h.json(`/api/projects/1/insights/?short_id=${copy.short_id}`)).results).toEqual([])
  })
})

describe("charts", () => {
  it("annotations on the time axis, PNG and CSV export", async () => {
    const marker = new Date(dayAgo(2).getTime() + 10 * 3_600_000).toISOString()
    await h.json("/api/projects/1/annotations/", {
      method: "POST",
      body: JSON.stringify({ content: "Pricing launch", date_marker: marker })
    })
    const insight = await h.json("/api/projects/1/insights/", {
      method: "POST",
      body: JSON.stringify({
        name: "Pageviews a day",
        saved: true,
        query: {
          kind: "InsightVizNode",
          source: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }] }
        }
      })
    })
    await page.goto(`${h.root}/project/1/insights/${insight.short_id}`)
    const api = await queryResult(h, insight.query.source)
    // Marked on the day two days ago, the third label from the end.
    const note = page.getByRole("list", { name: "Annotations" }).getByRole("listitem")
    await eventually(() => note.allInnerTexts()).toEqual([`${api[0].labels.at(-3)} Pricing launch`])
    await expect(page.locator(".annotation-marker").count()).resolves.toBe(1)
    expect(await axeViolations(page)).toEqual([])
    await screenshots(page, "insight-annotations")

    const [csv] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Export CSV" }).click()
    ])
    const text = readFileSync((await csv.path())!, "utf8")
    expect(text.split("\n")).toEqual([
      ",$pageview",
      ...api[0].labels.map((label: string, i: number) => `${label},${api[0].data[i]}`)
    ])
    const [png] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Export PNG" }).click()
    ])
    expect(png.suggestedFilename()).toBe("Pageviews a day.png")
    // PNG's signature.
    expect([...readFileSync((await png.path())!).subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47])
  })

  it("100 series × 365 days: drawn, each series in the legend, and how long it took", async () => {
    // One event per value of `n`, 100 values: 100 series over the last 365 days.
    await send(
      h,
      {},
      Array.from({ length: 100 }, (_, n) => ({ who: "u1", event: "load", day: n % 300, properties: { n: `v${n}` } }))
    )
    const insight = await h.json("/api/projects/1/insights/", {
      method: "POST",
      body: JSON.stringify({
        name: "Loads by n",
        saved: true,
        query: {
          kind: "InsightVizNode",
          source: {
            kind: "TrendsQuery",
            series: [{ kind: "EventsNode", event: "load" }],
            dateRange: { date_from: "-364d" },
            breakdownFilter: { breakdown_type: "event", breakdown: "n", breakdown_limit: 100 }
          }
        }
      })
    })
    await h.json(`/api/projects/1/insights/${insight.id}/?refresh=blocking`)
    await page.goto(`${h.root}/project/1/insights/${insight.short_id}`)
    await page.getByRole("img", { name: /^line chart/ }).waitFor()
    const legend = page.getByRole("list", { name: "Legend" }).getByRole("button")
    await eventually(() => legend.count()).toBe(100)
    const drawn = await page.evaluate(() => performance.getEntriesByName("chart-draw").at(-1)?.duration)
    expect(drawn).toBeGreaterThan(0)
    console.log(`100 series × 365 points drawn in ${drawn!.toFixed(0)} ms`)
    // Toggling a series redraws at once.
    const started = Date.now()
    await legend.first().click()
    await eventually(() => legend.first().getAttribute("aria-pressed")).toBe("false")
    console.log(`a series toggled in ${Date.now() - started} ms`)
    await screenshots(page, "insight-100-series")
  })
})
