import { createHash } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { uuidv7 } from "@zed/core/storage"
import { ADMIN_KEY, call, importEvents, PROJECT_KEY } from "../../core/test/support.js"
import { backends } from "./backends.js"

// The experiments API on real stores: the life cycle and its 400s, the flag locked while an
// experiment runs, and each metric kind per variant through ZedQL, checked against sums the test
// computes from the events it sends (exposure first, persons with two variants left out, test
// accounts left out, events before exposure not counted). Holdouts: their API and 400s; the flag
// of an experiment with one putting exactly the persons whose holdout hash falls within the share
// into `holdout-<id>` (through /flags, /decide and the local-evaluation definitions); the results
// counting them as a group of their own against control; a started experiment fixing its holdout.
// `has_experiment`, `experiment_set` and the hypothesis.

const HOUR = 3_600_000

/** PostHog's holdout hash, as the flags tests define it: sha1("holdout-" + id), 60 bits over 2⁶⁰ − 1. */
const holdoutHash = (id: string) =>
  Number(BigInt(`0x${createHash("sha1").update(`holdout-${id}`).digest("hex").slice(0, 15)}`)) / 0xfffffffffffffff

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

  const flags = (distinctId: string, path = "/flags/?v=2") =>
    call(zed, path, {
      method: "POST",
      key: null,
      body: JSON.stringify({ token: PROJECT_KEY, distinct_id: distinctId })
    })
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

  it("keeps holdouts under both prefixes, naming their variant and refusing bad shares", async () => {
    const created = await send("POST", "/experiment_holdouts/", {
      name: "Global 10%",
      description: "Never sees an experiment",
      filters: [{ properties: [], rollout_percentage: 10 }]
    })
    expect(created.status, created.text).toBe(201)
    const id = created.json.id
    expect(created.json).toMatchObject({
      name: "Global 10%",
      description: "Never sees an experiment",
      filters: [{ properties: [], rollout_percentage: 10, variant: `holdout-${id}` }]
    })
    const listed = await call(zed, "/api/environments/1/experiment_holdouts/")
    expect(listed.json.results.map((h: { id: number }) => h.id)).toContain(id)
    const renamed = await send("PATCH", `/experiment_holdouts/${id}/`, { name: "Global" })
    expect(renamed.json).toMatchObject({ name: "Global", filters: [{ rollout_percentage: 10 }] })

    const tooMuch = await send("POST", "/experiment_holdouts/", {
      name: "Too much",
      filters: [{ properties: [], rollout_percentage: 150 }]
    })
    expect(tooMuch.status).toBe(400)
    expect(tooMuch.json).toMatchObject({ type: "validation_error", attr: "filters__0__rollout_percentage" })
    const targeted = await send("POST", "/experiment_holdouts/", {
      name: "Targeted",
      filters: [{ properties: [{ key: "plan", value: "pro" }], rollout_percentage: 5 }]
    })
    expect(targeted.status).toBe(400)
    expect(targeted.json.attr).toBe("filters__0__properties")
    const blank = await send("POST", "/experiment_holdouts/", { name: " ", filters: [{ rollout_percentage: 5 }] })
    expect(blank.json.attr).toBe("name")

    const onMissing = await send("POST", "/experiments/", {
      name: "Missing holdout",
      feature_flag_key: "missing-holdout",
      holdout_id: 9999
    })
    expect(onMissing.status).toBe(400)
    expect(onMissing.json.attr).toBe("holdout_id")

    expect((await send("DELETE", `/experiment_holdouts/${id}/`)).status).toBe(204)
    expect((await send("GET", `/experiment_holdouts/${id}/`)).status).toBe(404)
  })

  it("stores the hypothesis apart from the description", async () => {
    const created = await send("POST", "/experiments/", {
      name: "Hypothesis",
      description: "Shorter copy",
      hypothesis: "Shorter copy lifts sign-ups by 5 %",
      feature_flag_key: "hypothesis-exp"
    })
    expect(created.status, created.text).toBe(201)
    expect(created.json).toMatchObject({
      description: "Shorter copy",
      hypothesis: "Shorter copy lifts sign-ups by 5 %"
    })
    const changed = await send("PATCH", `/experiments/${created.json.id}/`, { hypothesis: "No change" })
    expect(changed.json.hypothesis).toBe("No change")
    expect((await send("GET", `/experiments/${created.json.id}/`)).json).toMatchObject({
      description: "Shorter copy",
      hypothesis: "No change"
    })
    const none = await send("POST", "/experiments/", { name: "No hypothesis", feature_flag_key: "no-hypothesis-exp" })
    expect(none.json.hypothesis).toBeNull()
  })

  it("marks a flag used by a live experiment with has_experiment, until it is archived or deleted", async () => {
    const plain = await send("POST", "/feature_flags/", {
      key: "plain-for-has-exp",
      filters: { groups: [{ rollout_percentage: 100 }] }
    })
    const created = await send("POST", "/experiments/", { name: "Has experiment", feature_flag_key: "has-exp" })
    const metadata = async (key: string) => (await flags("someone")).json.flags[key].metadata.has_experiment
    expect(await metadata("has-exp")).toBe(true)
    expect(await metadata(plain.json.key)).toBe(false)
    const local = await send("GET", "/feature_flags/local_evaluation/")
    const served = (key: string) => local.json.flags.find((f: { key: string }) => f.key === key).has_experiment
    expect(served("has-exp")).toBe(true)
    expect(served(plain.json.key)).toBe(false)

    await send("PATCH", `/experiments/${created.json.id}/`, { archived: true })
    expect(await metadata("has-exp")).toBe(false)
    await send("PATCH", `/experiments/${created.json.id}/`, { archived: false })
    expect(await metadata("has-exp")).toBe(true)
    await send("PATCH", `/experiments/${created.json.id}/`, { deleted: true })
    expect(await metadata("has-exp")).toBe(false)
  })

  it("lists a flag's live experiments in experiment_set, on the list and the flag alike", async () => {
    const variants = [
      { key: "control", rollout_percentage: 50 },
      { key: "test", rollout_percentage: 50 }
    ]
    const existing = await send("POST", "/feature_flags/", {
      key: "set-existing",
      filters: { groups: [{ rollout_percentage: 100 }], multivariate: { variants } }
    })
    const plain = await send("POST", "/feature_flags/", {
      key: "set-plain",
      filters: { groups: [{ rollout_percentage: 100 }] }
    })
    const onNew = await send("POST", "/experiments/", { name: "Set new", feature_flag_key: "set-new" })
    const onExisting = await send("POST", "/experiments/", { name: "Set existing", feature_flag_key: "set-existing" })
    expect(onExisting.status, onExisting.text).toBe(201)
    const expected: Record<string, Array<number>> = {
      "set-new": [onNew.json.id],
      "set-existing": [onExisting.json.id],
      "set-plain": []
    }
    const listed = await send("GET", "/feature_flags/?search=set-&limit=100")
    expect(
      Object.fromEntries(
        listed.json.results.map((f: { key: string; experiment_set: Array<number> }) => [f.key, f.experiment_set])
      )
    ).toEqual(expected)
    expect((await send("GET", `/feature_flags/${existing.json.id}/`)).json.experiment_set).toEqual([onExisting.json.id])
    expect((await send("GET", `/feature_flags/${plain.json.id}/`)).json.experiment_set).toEqual([])
    // A deleted experiment no longer uses its flag.
    await send("PATCH", `/experiments/${onExisting.json.id}/`, { deleted: true })
    expect((await send("GET", `/feature_flags/${existing.json.id}/`)).json.experiment_set).toEqual([])
    expect((await send("GET", `/feature_flags/${onNew.json.feature_flag.id}/`)).json.experiment_set).toEqual([
      onNew.json.id
    ])
  })

  it("puts the persons within the holdout's share into holdout-<id>, and counts them as a group", async () => {
    const key = "holdout-exp"
    const share = 20
    const holdout = (
      await send("POST", "/experiment_holdouts/", {
        name: "Fifth",
        filters: [{ properties: [], rollout_percentage: share }]
      })
    ).json
    const variant = `holdout-${holdout.id}`
    await importEvents(zed, PROJECT_KEY, [event("seed", "purchase", now - 10 * HOUR)])
    const created = await send("POST", "/experiments/", {
      name: "With holdout",
      feature_flag_key: key,
      holdout_id: holdout.id,
      metrics: [
        { kind: "ExperimentMetric", metric_type: "funnel", series: [{ kind: "EventsNode", event: "purchase" }] }
      ]
    })
    expect(created.status, created.text).toBe(201)
    expect(created.json).toMatchObject({ holdout_id: holdout.id, holdout: { id: holdout.id, name: "Fifth" } })
    const flag = (await send("GET", `/feature_flags/${created.json.feature_flag.id}/`)).json
    expect(flag.filters.holdout).toEqual({ id: holdout.id, exclusion_percentage: share })

    // Evaluation: exactly the persons whose holdout hash is within the share are held out.
    const ids = Array.from({ length: 120 }, (_, i) => `person-${i}`)
    const expected = (id: string) => holdoutHash(id) <= share / 100
    const values = await Promise.all(ids.map(async (id) => (await flags(id)).json.flags[key].variant))
    ids.forEach((id, i) =>
      expected(id) ? expect(values[i], id).toBe(variant) : expect(["control", "test"], id).toContain(values[i])
    )
    const held = ids.filter(expected).length
    expect(held).toBeGreaterThan(10)
    expect(held).toBeLessThan(40)
    const decided = await Promise.all(
      ids.slice(0, 30).map(async (id) => (await flags(id, "/decide/?v=3")).json.featureFlags[key])
    )
    expect(decided).toEqual(values.slice(0, 30))
    // The definitions posthog-node evaluates locally carry the holdout.
    const local = await send("GET", "/feature_flags/local_evaluation/")
    expect(local.json.flags.find((f: { key: string }) => f.key === key).filters.holdout).toEqual({
      id: holdout.id,
      exclusion_percentage: share
    })

    // A draft follows a new share; a started experiment fixes it.
    await send("PATCH", `/experiment_holdouts/${holdout.id}/`, {
      filters: [{ properties: [], rollout_percentage: 25 }]
    })
    expect((await send("GET", `/feature_flags/${flag.id}/`)).json.filters.holdout.exclusion_percentage).toBe(25)
    await send("PATCH", `/experiment_holdouts/${holdout.id}/`, {
      filters: [{ properties: [], rollout_percentage: share }]
    })
    const start = now - 5 * HOUR
    const running = await send("PATCH", `/experiments/${created.json.id}/`, {
      start_date: new Date(start).toISOString()
    })
    expect(running.json.status).toBe("running")
    const locked = await send("PATCH", `/experiment_holdouts/${holdout.id}/`, {
      filters: [{ properties: [], rollout_percentage: 50 }]
    })
    expect(locked.status).toBe(400)
    expect(locked.json.attr).toBe("filters")
    expect((await send("DELETE", `/experiment_holdouts/${holdout.id}/`)).status).toBe(400)
    expect((await send("PATCH", `/experiments/${created.json.id}/`, { holdout_id: null })).json.attr).toBe("holdout_id")
    const unheld = await send("PATCH", `/feature_flags/${flag.id}/`, { filters: { ...flag.filters, holdout: null } })
    expect(unheld.json.attr).toBe("filters")

    if (!sql) return
    // Exposures as the SDKs report them, the held-out persons' included; every third converts.
    const events = ids.flatMap((id, i) => [
      event(id, "$feature_flag_called", start + (i + 1) * 1000, {
        $feature_flag: key,
        $feature_flag_response: values[i]
      }),
      ...(i % 3 === 0 ? [event(id, "purchase", start + HOUR + i * 1000)] : [])
    ])
    await importEvents(zed, PROJECT_KEY, events)
    const res = await send("GET", `/experiments/${created.json.id}/results/?refresh=blocking`)
    expect(res.status, res.text).toBe(200)
    expect(res.json.variants.map((v: { key: string }) => v.key)).toEqual(["control", "test", variant])
    const result = res.json.primary[0].results
    for (const group of ["control", "test", variant]) {
      const members = values.map((v, i) => [i, v] as const).filter(([, v]) => v === group)
      const got = result.variants.find((v: { key: string }) => v.key === group)
      expect(got.exposures, group).toBe(members.length)
      expect(got.sum, group).toBe(members.filter(([i]) => i % 3 === 0).length)
    }
    // The holdout is compared with control like any variant.
    const heldOut = result.variants.find((v: { key: string }) => v.key === variant)
    expect(typeof heldOut.frequentist.p_value).toBe("number")
    // The planned split: the holdout's share, the variants the rest between them (50/50 of 80 %).
    const planned = res.json.variants.map((v: { rollout_percentage: number }) => v.rollout_percentage)
    expect(planned).toEqual([40, 40, 20])
    const expectedCounts = result.sample_ratio_mismatch.expected.map((e: { expected: number }) => e.expected)
    expect(expectedCounts.map((n: number) => n.toFixed(6))).toEqual(
      [0.4, 0.4, 0.2].map((share) => (ids.length * share).toFixed(6))
    )
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
