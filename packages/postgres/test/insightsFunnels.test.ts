import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  BREAKDOWN_OTHER,
  planFunnels,
  type FunnelsQuery,
  type TimeToConvert
} from "../../core/src/insights/planners/funnels.js"
import type { DemoModel, Event } from "./corpus/model.js"
import { demoZed, mean, median } from "./demoZed.js"

// Funnels planned into ZedQL and run on both SQL stores over the demo data, against what the
// generated events say: each person's path worked out here, step by step, from the raw events.

const DEMO = { events: 6000, seed: 11, end: new Date("2026-03-20T00:00:00.000Z"), days: 28 }
const FROM = "2026-02-25T00:00:00Z"
const TO = "2026-03-19T12:00:00Z"
// Steps are bounded by instants; conversion over time counts the project's days, here with a
// clock change (8 March) inside the range.
const TIME_ZONE = "America/New_York"
const CTX = { timezone: TIME_ZONE, now: DEMO.end, weekStartDay: 0 as const }
const STEPS = ["$pageview", "signed_up", "document_created"]
const WINDOW_UNIT_MS = { second: 1e3, minute: 60e3, hour: 3600e3, day: 86400e3 } as const

type Order = "ordered" | "strict" | "unordered"
interface Options {
  readonly steps: ReadonlyArray<string>
  readonly order: Order
  readonly window: number
  readonly unit: keyof typeof WINDOW_UNIT_MS
  readonly breakdown?: string
  readonly breakdownType?: "event" | "person"
  readonly breakdownLimit?: number
  readonly exclusions?: ReadonlyArray<{ readonly event: string; readonly from: number; readonly to: number }>
  readonly timeToConvert?: boolean
}

const query = (o: Options): FunnelsQuery => ({
  kind: "FunnelsQuery",
  series: o.steps.map((event) => ({ kind: "EventsNode", event })),
  dateRange: { date_from: FROM, date_to: TO },
  funnelsFilter: {
    funnelOrderType: o.order,
    funnelWindowInterval: o.window,
    funnelWindowIntervalUnit: o.unit,
    ...(o.timeToConvert ? { funnelVizType: "time_to_convert" } : {}),
    ...(o.exclusions
      ? {
          exclusions: o.exclusions.map((x) => ({
            kind: "EventsNode",
            event: x.event,
            funnelFromStep: x.from,
            funnelToStep: x.to
          }))
        }
      : {})
  },
  ...(o.breakdown
    ? {
        breakdownFilter: {
          breakdown_type: o.breakdownType ?? "event",
          breakdown: o.breakdown,
          breakdown_limit: o.breakdownLimit ?? null
        }
      }
    : {})
})

const seconds = (a: number, b: number) => Math.floor(b / 1000) - Math.floor(a / 1000)
const byTime = (a: Event, b: Event) => a.ms - b.ms || (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0)

/** Every path through the funnel a person's events in range start: one per start. */
const candidatePaths = (events: ReadonlyArray<Event>, o: Options): Array<Array<number>> => {
  const n = o.steps.length
  const window = o.window * WINDOW_UNIT_MS[o.unit]
  const paths: Array<Array<number>> = []
  events.forEach((start, i) => {
    if (o.order === "unordered") {
      if (!o.steps.includes(start.event)) return
      const firsts = o.steps.map(
        (step) => events.find((e) => e.event === step && e.ms >= start.ms && e.ms <= start.ms + window)?.ms
      )
      paths.push(firsts.filter((t): t is number => t !== undefined).sort((a, b) => a - b))
      return
    }
    if (start.event !== o.steps[0]) return
    const path = [start.ms]
    for (let k = 1; k < n; k++) {
      const next =
        o.order === "strict"
          ? [events[i + k]].find((e) => e !== undefined && e.event === o.steps[k] && e.ms <= start.ms + window)
          : events.find((e) => e.event === o.steps[k] && e.ms > path[k - 1]! && e.ms <= start.ms + window)
      if (next === undefined) break
      path.push(next.ms)
    }
    paths.push(path)
  })
  return paths
}

/** A person's path through the funnel, from their events in range. */
const bestPath = (events: ReadonlyArray<Event>, o: Options): Array<number> | undefined => {
  // The furthest; among those, the first to get there; among those, the latest start.
  const better = (p: Array<number>, best: Array<number>) =>
    p.length - best.length || best.at(-1)! - p.at(-1)! || p[0]! - best[0]!
  return candidatePaths(events, o).reduce<Array<number> | undefined>(
    (best, p) => (best === undefined || better(p, best) > 0 ? p : best),
    undefined
  )
}

/** Whether an exclusion event drops the person: after the path's `from` step, before its `to` step (or within the window). */
const excluded = (events: ReadonlyArray<Event>, path: ReadonlyArray<number>, o: Options) =>
  (o.exclusions ?? []).some((x) => {
    const end = path[x.to] ?? path[0]! + o.window * WINDOW_UNIT_MS[o.unit]
    const inclusive = path[x.to] === undefined
    return (
      path[x.from] !== undefined &&
      events.some((e) => e.event === x.event && e.ms > path[x.from]! && (inclusive ? e.ms <= end : e.ms < end))
    )
  })

/** Per person their events from `from` to `to` (by time), the funnel's among them and the breakdown value. */
const persons = (m: DemoModel, o: Options, inRange: (ms: number) => boolean) => {
  const perPerson = new Map<unknown, Array<Event>>()
  for (const e of m.events) {
    if (!inRange(e.ms)) continue
    const person = m.personOf(e.distinctId)
    perPerson.set(person, [...(perPerson.get(person) ?? []), e])
  }
  return [...perPerson.values()].map((all) => {
    all.sort(byTime)
    const events = o.order === "strict" ? all : all.filter((e) => o.steps.includes(e.event))
    const first = o.order === "unordered" ? events[0] : events.find((e) => e.event === o.steps[0])
    // First touch: the value on the event that entered the funnel; a person's is the same on all.
    const properties = o.breakdownType === "person" ? m.personOf(all[0]!.distinctId).properties : first?.properties
    return { all, events, value: o.breakdown === undefined ? "" : String(properties?.[o.breakdown] ?? "") }
  })
}

/** Each person's best path and breakdown value, from the generated events. */
const paths = (m: DemoModel, o: Options) => {
  const [from, to] = [Date.parse(FROM), Date.parse(TO)]
  return persons(m, o, (ms) => ms >= from && ms <= to).flatMap(({ all, events, value }) => {
    const path = bestPath(events, o)
    return path === undefined || excluded(all, path, o) ? [] : [{ value, path }]
  })
}

const byCountThenValue = ([a, pa]: [string, Array<unknown>], [b, pb]: [string, Array<unknown>]) =>
  pb.length - pa.length || (a < b ? -1 : 1)

/** Items by breakdown value, the values past the limit (fewest items) merged into "other". */
const limited = <T>(items: ReadonlyArray<{ value: string; item: T }>, o: Options) => {
  const groups = new Map<string, Array<T>>()
  for (const { value, item } of items) groups.set(value, [...(groups.get(value) ?? []), item])
  const kept = new Set(
    [...groups]
      .sort(byCountThenValue)
      .slice(0, o.breakdownLimit ?? 25)
      .map(([value]) => value)
  )
  const merged = new Map<string, Array<T>>()
  for (const [value, list] of groups) {
    const key = kept.has(value) ? value : BREAKDOWN_OTHER
    merged.set(key, [...(merged.get(key) ?? []), ...list])
  }
  return merged
}

/** The steps result, computed from the generated events. */
const expected = (m: DemoModel, o: Options) => {
  const merged = limited(
    paths(m, o).map(({ value, path }) => ({ value, item: path })),
    o
  )
  const lists = [...merged].sort(byCountThenValue).map(([value, paths]) =>
    o.steps.map((step, k) => {
      const converted = paths.filter((p) => p.length > k)
      const times = converted.map((p) => seconds(p[k - 1]!, p[k]!))
      const close = (v: number | null) => (v === null ? null : expect.closeTo(v, 6))
      return {
        action_id: step,
        name: step,
        custom_name: null,
        order: k,
        type: "events",
        count: converted.length,
        people: [],
        average_conversion_time: k === 0 ? null : close(mean(times)),
        median_conversion_time: k === 0 ? null : close(median(times)),
        ...(o.breakdown === undefined ? {} : { breakdown: value, breakdown_value: value })
      }
    })
  )
  return o.breakdown === undefined ? lists[0] : lists
}

const SEARCH = ["$pageview", "search_performed", "$pageview"]

// Conversion over time runs over the project's whole days, 25 February to 19 March.
const TREND_DAYS = Array.from({ length: 23 }, (_, i) => new Date(Date.UTC(2026, 1, 25 + i)))
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

interface TrendOptions extends Options {
  readonly fromStep?: number
  readonly toStep?: number
}

const trendQuery = (o: TrendOptions): FunnelsQuery => ({
  ...query(o),
  dateRange: { date_from: "2026-02-25", date_to: "2026-03-19" },
  interval: "day",
  funnelsFilter: {
    ...query(o).funnelsFilter,
    funnelVizType: "trends",
    ...(o.fromStep === undefined ? {} : { funnelFromStep: o.fromStep }),
    ...(o.toStep === undefined ? {} : { funnelToStep: o.toStep })
  }
})

/**
 * Conversion over time from the generated events: every start of every person, its furthest step;
 * per day of the start, each person's furthest, and the share of those reaching the from step
 * that reach the to step.
 */
const expectedTrend = (m: DemoModel, o: TrendOptions) => {
  const [fromStep, toStep] = [o.fromStep ?? 0, o.toStep ?? o.steps.length - 1]
  const days = TREND_DAYS
  const [from, end] = [m.tz.at(2026, 2, 25), m.tz.at(2026, 3, 20)]
  const personDays = persons(m, o, (ms) => ms >= from && ms < end).flatMap(({ all, events, value }) => {
    const furthest = new Map<string, number>()
    for (const path of candidatePaths(events, o)) {
      if (excluded(all, path, o)) continue
      const day = m.tz.date(path[0]!)
      furthest.set(day, Math.max(furthest.get(day) ?? 0, path.length))
    }
    return [...furthest].map(([day, reached]) => ({ value, item: { day, reached } }))
  })
  const trends = [...limited(personDays, o)].sort(([a], [b]) => (a < b ? -1 : 1))
  return trends.map(([value, list]) => ({
    count: days.length,
    data: days.map((d) => {
      const reached = list.filter((x) => x.day === d.toISOString().slice(0, 10)).map((x) => x.reached)
      const entered = reached.filter((r) => r > fromStep).length
      const converted = reached.filter((r) => r > toStep).length
      return entered === 0 ? 0 : Math.round((converted / entered) * 10_000) / 100
    }),
    days: days.map((d) => d.toISOString().slice(0, 10)),
    labels: days.map((d) => `${d.getUTCDate()}-${MONTHS[d.getUTCMonth()]}-${d.getUTCFullYear()}`),
    ...(o.breakdown === undefined ? {} : { breakdown_value: value })
  }))
}

const TREND_SCENARIOS: ReadonlyArray<TrendOptions & { readonly label: string }> = [
  { label: "ordered, 1 day", steps: STEPS, order: "ordered", window: 1, unit: "day" },
  { label: "from step 2 to 3, strict", steps: SEARCH, order: "strict", window: 1, unit: "hour", fromStep: 1 },
  { label: "unordered, first two steps", steps: STEPS, order: "unordered", window: 1, unit: "day", toStep: 1 },
  {
    label: "by $browser, the top 2 and other, with an exclusion",
    steps: STEPS,
    order: "ordered",
    window: 1,
    unit: "day",
    breakdown: "$browser",
    breakdownLimit: 2,
    exclusions: [{ event: "search_performed", from: 0, to: 2 }]
  }
]

const SCENARIOS: ReadonlyArray<Options & { readonly label: string }> = [
  { label: "ordered, 1 hour", steps: STEPS, order: "ordered", window: 1, unit: "hour" },
  { label: "ordered, 14 days", steps: STEPS, order: "ordered", window: 14, unit: "day" },
  { label: "ordered, 10 minutes, a step repeated", steps: SEARCH, order: "ordered", window: 10, unit: "minute" },
  { label: "strict, 1 hour", steps: SEARCH, order: "strict", window: 1, unit: "hour" },
  { label: "unordered, 1 hour", steps: STEPS, order: "unordered", window: 1, unit: "hour" },
  { label: "by $browser", steps: STEPS, order: "ordered", window: 1, unit: "day", breakdown: "$browser" },
  {
    label: "by $browser, the top 2 and other",
    steps: STEPS,
    order: "ordered",
    window: 1,
    unit: "day",
    breakdown: "$browser",
    breakdownLimit: 2
  },
  {
    label: "by the person's plan",
    steps: STEPS,
    order: "unordered",
    window: 1,
    unit: "day",
    breakdown: "plan",
    breakdownType: "person"
  },
  {
    label: "with an exclusion",
    steps: STEPS,
    order: "ordered",
    window: 1,
    unit: "day",
    exclusions: [{ event: "search_performed", from: 0, to: 2 }]
  }
]

describe.each(["pglite", "postgres", "chdb"])("funnels on %s", (name) => {
  const demo = demoZed(name, DEMO, TIME_ZONE)

  it.each(SCENARIOS)("$label", async (o) => {
    const want = expected(demo.model, o)
    // Each funnel must say something: persons at its last step.
    const last = (o.breakdown === undefined ? [want] : want) as Array<Array<{ count: number }>>
    expect(last.some((steps) => steps.at(-1)!.count > 0)).toBe(true)
    expect(await demo.run(Effect.runSync(planFunnels(query(o), CTX)))).toEqual(want)
  })

  it("drops persons with an exclusion event inside their path, and only those", () => {
    const o = SCENARIOS.at(-1)!
    const [kept, all] = [paths(demo.model, o), paths(demo.model, { ...o, exclusions: [] })]
    expect(kept.length).toBeLessThan(all.length)
    expect(kept.length).toBeGreaterThan(0)
  })

  it.each(TREND_SCENARIOS)("conversion over time: $label", async (o) => {
    const want = expectedTrend(demo.model, o)
    // Each says something: days with conversions, and days without.
    const rates = want.flatMap((t) => t.data)
    expect(rates.some((r) => r > 0 && r < 100)).toBe(true)
    // The node as sent to the query API, bare and inside an InsightVizNode, and saved as an insight.
    const node = trendQuery(o)
    for (const sent of [node, { kind: "InsightVizNode", source: node }]) {
      const { status, json } = await demo.request("POST", "/api/environments/1/query/", {
        query: sent,
        refresh: "force_blocking"
      })
      expect(status, JSON.stringify(json)).toBe(200)
      expect(json.results).toEqual(want)
    }
  })

  it("computes a saved conversion-over-time insight", async () => {
    const o = TREND_SCENARIOS[0]!
    const saved = await demo.request("POST", "/api/projects/1/insights/", {
      name: "Conversion over time",
      query: { kind: "InsightVizNode", source: trendQuery(o) }
    })
    expect(saved.status, JSON.stringify(saved.json)).toBe(201)
    const computed = await demo.request("GET", `/api/projects/1/insights/${saved.json.id}/?refresh=blocking`, undefined)
    expect(computed.json.result).toEqual(expectedTrend(demo.model, o))
  })

  it("bins the times to convert from the first to the last step", async () => {
    const o: Options = { steps: STEPS, order: "ordered", window: 14, unit: "day", timeToConvert: true }
    const times = paths(demo.model, o)
      .filter((p) => p.path.length === STEPS.length)
      .map((p) => seconds(p.path[0]!, p.path.at(-1)!))
    expect(times.length).toBeGreaterThan(1)
    const result = (await demo.run(Effect.runSync(planFunnels(query(o), CTX)))) as TimeToConvert
    expect(result.average_conversion_time).toBeCloseTo(mean(times)!, 6)
    expect(result.bins[0]![0]).toBe(Math.min(...times))
    result.bins.forEach(([start, count], i) => {
      const end = result.bins[i + 1]?.[0] ?? Infinity
      expect(count).toBe(times.filter((t) => t >= start && t < end).length)
    })
  })
})
