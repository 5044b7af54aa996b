import { describe, expect, it } from "@effect/vitest"
import { demoEvents } from "@zed/core"
import { Effect } from "effect"
import type { DemoPerson } from "../../core/test/demoModel.js"
import type { InsightContext, InsightPlan } from "../../core/src/insights/plan.js"
import { planLifecycle } from "../../core/src/insights/planners/lifecycle.js"
import { planStickiness } from "../../core/src/insights/planners/stickiness.js"
import { BREAKDOWN_OTHER, planTrends } from "../../core/src/insights/planners/trends.js"
import { formatSelect } from "../../core/src/zedql/format.js"
import { demoModel, type Event } from "./corpus/model.js"
import { demoZed, lifecycleCounts } from "./demoZed.js"

// Trends, stickiness and lifecycle insights on the demo data, in a time zone whose clocks change
// (8 March 2026) inside the data: each plan's statements run through the query API as ZedQL, and
// the shaped result must be what the generated events say, worked out here without Zed.

const TIME_ZONE = "America/New_York"
const DEMO = { events: 6000, seed: 5, end: new Date("2026-03-20T00:00:00.000Z"), days: 28 }
const CTX: InsightContext = { timezone: TIME_ZONE, now: DEMO.end, weekStartDay: 0 }
const DAY = 86_400_000
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

const model = demoModel([...demoEvents(DEMO)], TIME_ZONE)
const { tz } = model
const now = DEMO.end.getTime()

/** Calendar dates from `first` to `last`, by `step` days. */
const dates = (first: string, last: string, step = 1): Array<string> => {
  const out: Array<string> = []
  for (let at = Date.parse(`${first}T00:00:00Z`); at <= Date.parse(`${last}T00:00:00Z`); at += step * DAY)
    out.push(new Date(at).toISOString().slice(0, 10))
  return out
}
const addDays = (date: string, n: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10)
const startOf = (date: string) => tz.at(Number(date.slice(0, 4)), Number(date.slice(5, 7)), Number(date.slice(8, 10)))
const label = (date: string) =>
  `${Number(date.slice(8, 10))}-${MONTHS[Number(date.slice(5, 7)) - 1]}-${date.slice(0, 4)}`

/** The days of a `-Nd` range by day, ending today (in the zone). */
const lastDays = (n: number) => dates(tz.date(now - n * DAY), tz.date(now))
const within = (days: ReadonlyArray<string>, e: Event) =>
  e.ms >= startOf(days[0]!) && e.ms < startOf(addDays(days.at(-1)!, 1))
const pageviews = (days: ReadonlyArray<string>) =>
  model.events.filter((e) => e.event === "$pageview" && within(days, e))
const persons = (events: ReadonlyArray<Event>) => new Set(events.map((e) => model.personOf(e.distinctId)))
const onDay = (events: ReadonlyArray<Event>, day: string) => events.filter((e) => tz.date(e.ms) === day)

/** When each person was created: their first event. */
const createdAt = new Map<DemoPerson, number>()
for (const e of model.events) {
  const person = model.personOf(e.distinctId)
  createdAt.set(person, Math.min(createdAt.get(person) ?? Infinity, e.ms))
}

type Series = Record<string, unknown> & { data: Array<number>; days: Array<string>; labels: Array<string> }

describe.each(["pglite", "postgres", "chdb"])("trends, stickiness and lifecycle insights on %s", (name) => {
  const { request } = demoZed(name, DEMO, TIME_ZONE)

  /** The plan's statements run as ZedQL queries, their rows shaped. */
  const run = async (planned: Effect.Effect<InsightPlan, unknown>): Promise<Array<Series>> => {
    const plan = await Effect.runPromise(planned)
    const results = []
    for (const query of plan.queries) {
      const { json, status } = await request("POST", "/api/environments/1/query/", {
        query: { kind: "ZedQLQuery", query: formatSelect(query), values: plan.values },
        refresh: "force_blocking"
      })
      expect(status, JSON.stringify(json)).toBe(200)
      results.push(json.results)
    }
    return plan.shape(results) as Array<Series>
  }

  it("counts daily active users over 30 days, by the zone's days", async () => {
    const days = lastDays(30)
    const [series, ...rest] = await run(
      planTrends(
        {
          kind: "TrendsQuery",
          series: [{ kind: "EventsNode", event: "$pageview", math: "dau" }],
          dateRange: { date_from: "-30d" }
        },
        CTX
      )
    )
    expect(rest).toEqual([])
    expect(series!.days).toEqual(days)
    expect(series!.labels).toEqual(days.map(label))
    const events = pageviews(days)
    expect(series!.data).toEqual(days.map((d) => persons(onDay(events, d)).size))
    expect(series!.count).toBe(series!.data.reduce((a, b) => a + b, 0))
    expect(series!.data.filter((v) => v > 0).length).toBeGreaterThan(20)
  })

  it("counts weekly pageviews by browser, the top 3 and the others", async () => {
    const weeks = dates(tz.startOfWeek(now - 28 * DAY), tz.startOfWeek(now), 7)
    const result = await run(
      planTrends(
        {
          kind: "TrendsQuery",
          series: [{ kind: "EventsNode", event: "$pageview" }],
          interval: "week",
          dateRange: { date_from: "-28d" },
          breakdownFilter: { breakdown_type: "event", breakdown: "$browser", breakdown_limit: 3 }
        },
        CTX
      )
    )
    const events = model.events.filter(
      (e) => e.event === "$pageview" && e.ms >= startOf(weeks[0]!) && e.ms < startOf(addDays(weeks.at(-1)!, 7))
    )
    const browserOf = (e: Event) => String(e.properties["$browser"] ?? "")
    const totals = new Map<string, number>()
    for (const e of events) totals.set(browserOf(e), (totals.get(browserOf(e)) ?? 0) + 1)
    const top = [...totals]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, 3)
      .map(([b]) => b)
    const bucketOf = (e: Event) => (top.includes(browserOf(e)) ? browserOf(e) || "none" : BREAKDOWN_OTHER)
    const expected = [...top.map((b) => b || "none"), BREAKDOWN_OTHER].map((value) => ({
      breakdown_value: value,
      label: value,
      days: weeks,
      data: weeks.map((w) => events.filter((e) => bucketOf(e) === value && tz.startOfWeek(e.ms) === w).length)
    }))
    expect(totals.size).toBeGreaterThan(4)
    expect(result.map(({ breakdown_value, data, days, label }) => ({ breakdown_value, label, days, data }))).toEqual(
      expected
    )
  })

  it("counts hour by hour on the day the clocks go forward, with a group of property filters", async () => {
    const [series] = await run(
      planTrends(
        {
          kind: "TrendsQuery",
          series: [{ kind: "EventsNode", event: "$pageview" }],
          interval: "hour",
          dateRange: { date_from: "2026-03-08", date_to: "2026-03-08" },
          properties: {
            type: "AND",
            values: [
              {
                type: "OR",
                values: [
                  { key: "$browser", value: ["Chrome"], operator: "exact", type: "event" },
                  { key: "$browser", value: "safari", operator: "icontains", type: "event" }
                ]
              }
            ]
          }
        },
        CTX
      )
    )
    const hours = [...Array(24).keys()].filter((h) => h !== 2)
    expect(series!.days).toEqual(hours.map((h) => `2026-03-08 ${String(h).padStart(2, "0")}:00:00`))
    const events = model.events.filter(
      (e) =>
        e.event === "$pageview" &&
        tz.date(e.ms) === "2026-03-08" &&
        (e.properties["$browser"] === "Chrome" || /safari/i.test(String(e.properties["$browser"])))
    )
    expect(series!.data).toEqual(hours.map((h) => events.filter((e) => tz.wall(e.ms).hour === h).length))
    expect(series!.count).toBeGreaterThan(0)
  })

  it("counts daily visitors by a person property, as persons have it now", async () => {
    const days = lastDays(27)
    const result = await run(
      planTrends(
        {
          kind: "TrendsQuery",
          series: [{ kind: "EventsNode", event: "$pageview", math: "dau" }],
          dateRange: { date_from: "-27d" },
          breakdownFilter: { breakdown_type: "person", breakdown: "plan" }
        },
        CTX
      )
    )
    const planOf = (e: Event) => String(model.personOf(e.distinctId).properties["plan"] ?? "") || "none"
    const events = pageviews(days)
    const expected = [...new Set(events.map(planOf))]
      .map((value) => {
        const data = days.map((d) => persons(onDay(events, d).filter((e) => planOf(e) === value)).size)
        return { breakdown_value: value, data, count: data.reduce((a, b) => a + b, 0) }
      })
      .sort((a, b) => b.count - a.count || (a.breakdown_value < b.breakdown_value ? -1 : 1))
    expect(expected.length).toBeGreaterThan(2)
    expect(result.map(({ breakdown_value, count, data }) => ({ breakdown_value, data, count }))).toEqual(expected)
  })

  it("sums a numeric property, and averages events per person, per day", async () => {
    const days = lastDays(27)
    const result = await run(
      planTrends(
        {
          kind: "TrendsQuery",
          series: [
            { kind: "EventsNode", event: "invoice_paid", math: "sum", math_property: "price" },
            { kind: "EventsNode", event: "$pageview", math: "avg_count_per_actor" },
            { kind: "EventsNode", event: "invoice_paid", math: "p90", math_property: "price" }
          ],
          dateRange: { date_from: "-27d" }
        },
        CTX
      )
    )
    const invoices = model.events.filter((e) => e.event === "invoice_paid" && within(days, e))
    const sums = days.map((d) => onDay(invoices, d).reduce((sum, e) => sum + Number(e.properties["price"]), 0))
    expect(sums.filter((s) => s > 0).length).toBeGreaterThan(3)
    expect(result[0]!.data).toEqual(sums)
    const views = pageviews(days)
    const perPerson = days.map((d) => {
      const today = onDay(views, d)
      return today.length === 0 ? 0 : today.length / persons(today).size
    })
    result[1]!.data.forEach((v, i) => expect(v).toBeCloseTo(perPerson[i]!, 9))
    // Linear interpolation between the closest ranks (0 for a day without any).
    const p90 = days.map((d) => {
      const prices = onDay(invoices, d)
        .map((e) => Number(e.properties["price"]))
        .sort((a, b) => a - b)
      if (prices.length === 0) return 0
      const rank = 0.9 * (prices.length - 1)
      const low = Math.floor(rank)
      return prices[low]! + (rank - low) * ((prices[low + 1] ?? prices[low]!) - prices[low]!)
    })
    result[2]!.data.forEach((v, i) => expect(v).toBeCloseTo(p90[i]!, 6))
    expect(result.map((s) => s["label"])).toEqual(["invoice_paid", "$pageview", "invoice_paid"])
  })

  it("compares a week's pageviews with the week before", async () => {
    const days = lastDays(7)
    const before = dates(addDays(days[0]!, -8), addDays(days[0]!, -1))
    const result = await run(
      planTrends(
        {
          kind: "TrendsQuery",
          series: [{ kind: "EventsNode", event: "$pageview" }],
          dateRange: { date_from: "-7d" },
          compareFilter: { compare: true }
        },
        CTX
      )
    )
    const count = (list: ReadonlyArray<string>) => list.map((d) => onDay(pageviews(list), d).length)
    expect(result.map(({ compare, compare_label, data, days }) => ({ compare, compare_label, days, data }))).toEqual([
      { compare: true, compare_label: "current", days, data: count(days) },
      { compare: true, compare_label: "previous", days: before, data: count(before) }
    ])
  })

  it("computes a formula over two series: pageviews per visitor", async () => {
    const days = lastDays(14)
    const result = await run(
      planTrends(
        {
          kind: "TrendsQuery",
          series: [
            { kind: "EventsNode", event: "$pageview" },
            { kind: "EventsNode", event: "$pageview", math: "dau" }
          ],
          dateRange: { date_from: "-14d" },
          trendsFilter: { formulaNodes: [{ formula: "A / B", custom_name: "per visitor" }] }
        },
        CTX
      )
    )
    expect(result.length).toBe(1)
    expect(result[0]!["label"]).toBe("per visitor")
    const views = pageviews(days)
    const ratios = days.map((d) =>
      persons(onDay(views, d)).size === 0 ? 0 : onDay(views, d).length / persons(onDay(views, d)).size
    )
    result[0]!.data.forEach((v, i) => expect(v).toBeCloseTo(ratios[i]!, 9))
  })

  it("counts weekly active users on each day, and visitors over the whole range as a number", async () => {
    const days = lastDays(10)
    const [wau] = await run(
      planTrends(
        {
          kind: "TrendsQuery",
          series: [{ kind: "EventsNode", event: "$pageview", math: "weekly_active" }],
          dateRange: { date_from: "-10d" }
        },
        CTX
      )
    )
    const all = model.events.filter((e) => e.event === "$pageview")
    expect(wau!.data).toEqual(days.map((d) => persons(all.filter((e) => within(dates(addDays(d, -6), d), e))).size))
    const [bold] = await run(
      planTrends(
        {
          kind: "TrendsQuery",
          series: [{ kind: "EventsNode", event: "$pageview", math: "dau" }],
          dateRange: { date_from: "-10d" },
          trendsFilter: { display: "BoldNumber" }
        },
        CTX
      )
    )
    expect(bold).toMatchObject({
      data: [],
      days: [],
      labels: [],
      count: 0,
      aggregated_value: persons(pageviews(days)).size
    })
  })

  it("counts persons by the number of days they viewed pages (stickiness)", async () => {
    const days = lastDays(14)
    const [series] = await run(
      planStickiness(
        {
          kind: "StickinessQuery",
          series: [{ kind: "EventsNode", event: "$pageview" }],
          dateRange: { date_from: "-14d" }
        },
        CTX
      )
    )
    const activeDays = new Map<DemoPerson, Set<string>>()
    for (const e of pageviews(days)) {
      const person = model.personOf(e.distinctId)
      activeDays.set(person, (activeDays.get(person) ?? new Set()).add(tz.date(e.ms)))
    }
    const expected = days.map((_, i) => [...activeDays.values()].filter((s) => s.size === i + 1).length)
    expect(series!.days).toEqual(days.map((_, i) => i + 1))
    expect(series!.labels.slice(0, 2)).toEqual(["1 day", "2 days"])
    expect(series!.data).toEqual(expected)
    expect(expected.slice(1).some((n) => n > 0)).toBe(true)
  })

  it("splits each day's persons into new, returning, resurrecting and dormant (lifecycle)", async () => {
    const days = lastDays(14)
    const result = await run(
      planLifecycle(
        {
          kind: "LifecycleQuery",
          series: [{ kind: "EventsNode", event: "$pageview" }],
          dateRange: { date_from: "-14d" }
        },
        CTX
      )
    )
    const active = new Map<string, Set<DemoPerson>>()
    for (const e of pageviews(dates(addDays(days[0]!, -1), days.at(-1)!))) {
      const day = tz.date(e.ms)
      active.set(day, (active.get(day) ?? new Set()).add(model.personOf(e.distinctId)))
    }
    const statusCounts = (day: string) =>
      lifecycleCounts(
        active.get(day) ?? new Set<DemoPerson>(),
        active.get(addDays(day, -1)) ?? new Set(),
        (p) => tz.date(createdAt.get(p)!) === day
      )
    const expected = (["new", "returning", "resurrecting", "dormant"] as const).map((status) => ({
      status,
      days,
      data: days.map((d) => statusCounts(d)[status])
    }))
    expect(result.map(({ data, days, status }) => ({ status, days, data }))).toEqual(expected)
    expect(expected.every((s) => s.data.some((v) => v !== 0))).toBe(true)
  })
})
