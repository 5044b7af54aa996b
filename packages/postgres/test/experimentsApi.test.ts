import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { uuidv7 } from "@zed/core/storage"
import { ADMIN_KEY, call, importEvents, PROJECT_KEY } from "../../core/test/support.js"
import { backends } from "./backends.js"

// The experiments API on real stores: the life cycle and its 400s, the flag locked while an
// experiment runs, and each metric kind per variant through ZedQL, checked against sums the test
// computes from the events it sends (exposure first, persons with two variants left out, test
// accounts left out, events before exposure not counted).

const HOUR = 3_600_000

describe.each(["memory", "pglite", "postgres", "chdb"])("%s experiments", (name) => {
  // In-memory storage keeps experiments but runs no ZedQL: it has no results.
  const sql = name !== "memory"

  let zed: Zed
  let cleanup: () => Promise<void>

  beforeAll(async () => {
    const backend = await backends("experiments-api")[name]!()
    cleanup = backend.cleanup
    zed = await createZed({
      storage: backend.storage,
      bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY }
    })
  })
  afterAll(async () => {
    await zed.close()
    await cleanup()
  })

  const send = (method: string, path: string, body?: unknown) =>
    call(zed, `/api/projects/1${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) })

  const now = Date.now()
  const event = (who: string, name: string, at: number, properties: Record<string, unknown> = {}) => ({
    event: name,
    distinct_id: who,
    uuid: uuidv7(),
    timestamp: new Date(at).toISOString(),
    properties
  })

  it("goes draft → running → stopped → archived, refusing bad input with the field named", async () => {
    await importEvents(zed, PROJECT_KEY, [event("seed", "signed_up", now - 10 * HOUR)])
    const created = await send("POST", "/experiments/", { name: "Onboarding", feature_flag_key: "onboarding-exp" })
    expect(created.status, created.text).toBe(201)
    expect(created.json).toMatchObject({ status: "draft", feature_flag_key: "onboarding-exp", start_date: null })
    expect(created.json.parameters.feature_flag_variants.map((v: { key: string }) => v.key)).toEqual([
      "control",
      "test"
    ])
    const flag = await send("GET", `/feature_flags/${created.json.feature_flag.id}/`)
    expect(
      flag.json.filters.multivariate.variants.map((v: { rollout_percentage: number }) => v.rollout_percentage)
    ).toEqual([50, 50])

    const badSplit = await send("POST", "/experiments/", {
      name: "Split",
      feature_flag_key: "split-exp",
      parameters: {
        feature_flag_variants: [
          { key: "control", rollout_percentage: 50 },
          { key: "test", rollout_percentage: 40 }
        ]
      }
    })
    expect(badSplit.status).toBe(400)
    expect(badSplit.json.attr).toBe("parameters__feature_flag_variants")

    const unknownEvent = await send("POST", "/experiments/", {
      name: "Unknown",
      feature_flag_key: "unknown-exp",
      metrics: [{ kind: "ExperimentMetric", metric_type: "mean", source: { kind: "EventsNode", event: "never_sent" } }]
    })
    expect(unknownEvent.status).toBe(400)
    expect(unknownEvent.json).toMatchObject({ type: "validation_error", attr: "metrics__0__source__event" })

    const boolean = await send("POST", "/feature_flags/", {
      key: "plain-flag",
      filters: { groups: [{ rollout_percentage: 100 }] }
    })
    const onPlain = await send("POST", "/experiments/", { name: "Plain", feature_flag_key: boolean.json.key })
    expect(onPlain.status).toBe(400)
    expect(onPlain.json.attr).toBe("feature_flag_key")

    // Starting an experiment whose flag was turned off.
    await send("PATCH", `/feature_flags/${created.json.feature_flag.id}/`, { active: false })
    const start = new Date(now - 5 * HOUR).toISOString()
    const inactive = await send("PATCH", `/experiments/${created.json.id}/`, { start_date: start })
    expect(inactive.status).toBe(400)
    expect(inactive.json.attr).toBe("start_date")
    await send("PATCH", `/feature_flags/${created.json.feature_flag.id}/`, { active: true })
    const running = await send("PATCH", `/experiments/${created.json.id}/`, { start_date: start })
    expect(running.json.status).toBe("running")

    // While it runs, the flag keeps its variants, split, key and activity.
    const flagPath = `/feature_flags/${created.json.feature_flag.id}/`
    const resplit = await send("PATCH", flagPath, {
      filters: {
        groups: [{ rollout_percentage: 100 }],
        multivariate: {
          variants: [
            { key: "control", rollout_percentage: 20 },
            { key: "test", rollout_percentage: 80 }
          ]
        }
      }
    })
    expect(resplit.status).toBe(400)
    expect(resplit.json.attr).toBe("filters")
    expect((await send("PATCH", flagPath, { active: false })).json.attr).toBe("active")
    expect((await send("PATCH", flagPath, { deleted: true })).json.attr).toBe("deleted")
    expect((await send("PATCH", flagPath, { name: "Renamed" })).status).toBe(200)
    const archiveRunning = await send("PATCH", `/experiments/${created.json.id}/`, { archived: true })
    expect(archiveRunning.json.attr).toBe("archived")
    const variantsRunning = await send("PATCH", `/experiments/${created.json.id}/`, {
      parameters: {
        feature_flag_variants: [
          { key: "control", rollout_percentage: 30 },
          { key: "test", rollout_percentage: 70 }
        ]
      }
    })
    expect(variantsRunning.json.attr).toBe("parameters__feature_flag_variants")

    // Ship the test variant: the experiment stops, the flag serves it to everyone.
    const shipped = await send("POST", `/experiments/${created.json.id}/ship_variant/`, { variant_key: "test" })
    expect(shipped.status, shipped.text).toBe(200)
    expect(shipped.json.status).toBe("stopped")
    const served = await call(zed, "/flags/?v=2", {
      method: "POST",
      key: null,
      body: JSON.stringify({ token: PROJECT_KEY, distinct_id: "anyone-at-all" })
    })
    expect(served.json.flags["onboarding-exp"].variant).toBe("test")
    expect((await send("PATCH", `/experiments/${created.json.id}/`, { archived: true })).json.archived).toBe(true)
    expect((await send("GET", "/experiments/?archived=true")).json.count).toBe(1)
    expect((await send("PATCH", `/experiments/${created.json.id}/`, { deleted: true })).status).toBe(200)
    expect((await send("GET", `/experiments/${created.json.id}/`)).status).toBe(404)
    expect((await send("DELETE", `/experiments/${created.json.id}/`)).status).toBe(405)
    // Both project prefixes serve it.
    expect((await call(zed, "/api/environments/1/experiments/")).status).toBe(200)
  })

  it("sizes an experiment from its baseline and minimum detectable effect", async () => {
    const res = await send(
      "GET",
      "/experiments/sample_size/?baseline_rate=0.1&minimum_detectable_effect=20&daily_exposures=1000"
    )
    expect(res.status, res.text).toBe(200)
    // n = (z(0.975) + z(0.8))² (p₁q₁ + p₂q₂) / (p₂ − p₁)², z from the normal table.
    const z = 1.959963985 + 0.841621234
    const n = Math.ceil((z * z * (0.1 * 0.9 + 0.12 * 0.88)) / 0.02 ** 2)
    expect(res.json).toEqual({ per_variant: n, total: 2 * n, days: Math.ceil((2 * n) / 1000), alpha: 0.05, power: 0.8 })
    const missing = await send("GET", "/experiments/sample_size/?minimum_detectable_effect=20")
    expect(missing.status).toBe(400)
  })

  it.skipIf(!sql)(
    "counts a custom exposure event's variant, keeping persons with two variants in their first",
    async () => {
      const key = "banner-exp"
      const start = now - 4 * HOUR
      const events: Array<ReturnType<typeof event>> = []
      const first = new Map<string, string>()
      for (let i = 0; i < 12; i++) {
        const who = `viewer-${i}`
        const seen = i < 2 ? ["test", "control"] : [i % 3 === 0 ? "test" : "control"]
        first.set(who, seen[0]!)
        seen.forEach((v, k) =>
          events.push(
            event(who, "$pageview", start + (i + 1) * 60_000 + k * 1000, { [`$feature/${key}`]: v, $pathname: "/home" })
          )
        )
        // A page view elsewhere is not an exposure.
        events.push(event(who, "$pageview", start + 30_000, { [`$feature/${key}`]: "test", $pathname: "/other" }))
        for (let k = 0; k < i % 4; k++) events.push(event(who, "clicked_banner", start + (i + 2) * 60_000 + k))
      }
      await importEvents(zed, PROJECT_KEY, events)
      const metric = {
        kind: "ExperimentMetric",
        metric_type: "mean",
        source: { kind: "EventsNode", event: "clicked_banner" }
      }
      const created = await send("POST", "/experiments/", {
        name: "Banner",
        feature_flag_key: key,
        start_date: new Date(start).toISOString(),
        metrics: [metric],
        exposure_criteria: {
          filterTestAccounts: false,
          multiple_variant_handling: "first_seen",
          exposure_config: {
            kind: "ExperimentEventExposureConfig",
            event: "$pageview",
            properties: [{ key: "$pathname", value: "/home", operator: "exact", type: "event" }]
          }
        }
      })
      expect(created.status, created.text).toBe(201)
      const res = await send("GET", `/experiments/${created.json.id}/results/`)
      expect(res.status, res.text).toBe(200)
      const result = res.json.primary[0].results
      expect(result.multiple_variant_persons).toBe(2)
      for (const v of result.variants) {
        const whos = [...first].filter(([, f]) => f === v.key).map(([w]) => w)
        const clicks = whos.map((w) => events.filter((e) => e.distinct_id === w && e.event === "clicked_banner").length)
        expect(v.number_of_samples).toBe(whos.length)
        expect(v.sum).toBe(clicks.reduce((s, c) => s + c, 0))
        expect(v.sum_squares).toBe(clicks.reduce((s, c) => s + c * c, 0))
      }
    }
  )

  it.skipIf(!sql)("computes each metric kind per variant over the exposed persons", async () => {
    const key = "checkout-exp"
    const start = now - 6 * HOUR
    // Test accounts: events from localhost.
    await send("PATCH", "/", {
      test_account_filters: [{ key: "$host", value: ["localhost"], operator: "is_not", type: "event" }]
    })
    const events: Array<ReturnType<typeof event>> = []
    type Person = { who: string; variants: Array<string>; exposedAt: number; test: boolean }
    const persons: Array<Person> = []
    for (let i = 0; i < 40; i++) {
      const variant = i % 2 === 0 ? "control" : "test"
      const test = i >= 36
      const two = i === 34 || i === 35
      const p: Person = {
        who: `user-${i}`,
        variants: two ? ["control", "test"] : [variant],
        exposedAt: start + (i + 1) * 60_000,
        test
      }
      persons.push(p)
      const host = test ? "localhost" : "shop.example"
      p.variants.forEach((v, k) =>
        events.push(
          event(p.who, "$feature_flag_called", p.exposedAt + k * 1000, {
            $feature_flag: key,
            $feature_flag_response: v,
            $host: host
          })
        )
      )
      // Before exposure: not counted.
      if (i % 5 === 0) events.push(event(p.who, "purchase", p.exposedAt - 30_000, { revenue: 99, $host: host }))
      if (i % 3 !== 0) events.push(event(p.who, "add_to_cart", p.exposedAt + 60_000, { $host: host }))
      const purchases = variant === "control" ? i % 3 : i % 4
      for (let k = 0; k < purchases; k++) {
        // One early purchase (before the cart) for some: the funnel needs cart, then purchase.
        const at = i % 7 === 0 && k === 0 ? p.exposedAt + 30_000 : p.exposedAt + (2 + k) * 60_000
        events.push(event(p.who, "purchase", at, { revenue: 10 + i + k, $host: host }))
      }
    }
    // Another flag's calls are not exposures.
    events.push(
      event("user-0", "$feature_flag_called", start + HOUR, { $feature_flag: "other", $feature_flag_response: "test" })
    )
    await importEvents(zed, PROJECT_KEY, events)

    const source = (event: string, extra: Record<string, unknown> = {}) => ({ kind: "EventsNode", event, ...extra })
    const metrics = [
      { kind: "ExperimentMetric", metric_type: "funnel", series: [source("purchase")] },
      { kind: "ExperimentMetric", metric_type: "mean", source: source("purchase", { math: "total" }) },
      {
        kind: "ExperimentMetric",
        metric_type: "mean",
        source: source("purchase", { math: "sum", math_property: "revenue" })
      },
      {
        kind: "ExperimentMetric",
        metric_type: "ratio",
        numerator: source("purchase", { math: "sum", math_property: "revenue" }),
        denominator: source("purchase", { math: "total" })
      }
    ]
    const secondary = [
      { kind: "ExperimentMetric", metric_type: "funnel", series: [source("add_to_cart"), source("purchase")] }
    ]
    const created = await send("POST", "/experiments/", {
      name: "Checkout",
      feature_flag_key: key,
      start_date: new Date(start).toISOString(),
      metrics,
      metrics_secondary: secondary,
      exposure_criteria: { filterTestAccounts: true }
    })
    expect(created.status, created.text).toBe(201)
    const res = await send("GET", `/experiments/${created.json.id}/results/`)
    expect(res.status, res.text).toBe(200)

    // The reference: per counted person, their events after exposure.
    const counted = persons.filter((p) => !p.test && p.variants.length === 1)
    const after = (p: Person, name: string) =>
      events.filter((e) => e.distinct_id === p.who && e.event === name && Date.parse(e.timestamp) >= p.exposedAt)
    const perVariant = (value: (p: Person) => number, v: string) => {
      const xs = counted.filter((p) => p.variants[0] === v).map(value)
      return { n: xs.length, sum: xs.reduce((s, x) => s + x, 0), sq: xs.reduce((s, x) => s + x * x, 0) }
    }
    const revenue = (p: Person) => after(p, "purchase").reduce((s, e) => s + Number(e.properties.revenue), 0)
    const values: Array<(p: Person) => number> = [
      (p) => (after(p, "purchase").length > 0 ? 1 : 0),
      (p) => after(p, "purchase").length,
      revenue,
      revenue
    ]
    for (const [m, value] of values.entries()) {
      const result = res.json.primary[m].results
      for (const v of ["control", "test"]) {
        const expected = perVariant(value, v)
        const got = result.variants.find((r: { key: string }) => r.key === v)
        expect(got.number_of_samples, `metric ${m} ${v}`).toBe(expected.n)
        expect(got.sum, `metric ${m} ${v}`).toBeCloseTo(expected.sum, 6)
        expect(got.sum_squares, `metric ${m} ${v}`).toBeCloseTo(expected.sq, 6)
      }
    }
    const ratio = res.json.primary[3].results
    for (const v of ratio.variants) {
      const expected = perVariant((p) => after(p, "purchase").length, v.key)
      expect(v.denominator_sum).toBe(expected.sum)
      expect(v.denominator_sum_squares).toBe(expected.sq)
    }
    expect(res.json.primary[0].results.multiple_variant_persons).toBe(2)
    // Exposures count every person exposed (test accounts aside) in the variant they saw first.
    const exposed = (v: string) => persons.filter((p) => !p.test && p.variants[0] === v).length
    expect(res.json.primary[0].results.variants.map((v: { exposures: number }) => v.exposures)).toEqual([
      exposed("control"),
      exposed("test")
    ])
    // The two-step funnel: a cart, then a purchase at or after it.
    const converted = (p: Person) => {
      const cart = after(p, "add_to_cart").map((e) => Date.parse(e.timestamp))
      return cart.some((t) => after(p, "purchase").some((e) => Date.parse(e.timestamp) >= t)) ? 1 : 0
    }
    for (const v of res.json.secondary[0].results.variants) expect(v.sum).toBe(perVariant(converted, v.key).sum)
    const stats = res.json.primary[0].results.variants[1]
    expect(stats.bayesian.chance_to_win).toBeGreaterThan(0)
    expect(typeof stats.frequentist.p_value).toBe("number")

    // The same metric as an ExperimentQuery through /query/, answered from the cache the second time.
    const body = { query: { kind: "ExperimentQuery", experiment_id: created.json.id, metric: metrics[1] } }
    const first = await call(zed, "/api/environments/1/query/", { method: "POST", body: JSON.stringify(body) })
    expect(first.status, first.text).toBe(200)
    expect(first.json.results).toEqual(res.json.primary[1].results)
    const again = await call(zed, "/api/environments/1/query/", { method: "POST", body: JSON.stringify(body) })
    expect(again.json.is_cached).toBe(true)
    const unknown = await call(zed, "/api/environments/1/query/", {
      method: "POST",
      body: JSON.stringify({ query: { ...body.query, experiment_id: 999 } })
    })
    expect(unknown.status).toBe(400)
  })
})
