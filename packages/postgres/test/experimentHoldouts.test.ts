import { createHash } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { uuidv7 } from "@zed/core/storage"
import { ADMIN_KEY, call, importEvents, PROJECT_KEY } from "../../core/test/support.js"
import { backends } from "./backends.js"

// Experiment holdouts, `has_experiment` and the hypothesis on real stores: the holdouts API under
// both prefixes and its 400s; the flag of an experiment with a holdout putting exactly the persons
// whose holdout hash falls within the share into `holdout-<id>` (through /flags, /decide and the
// local-evaluation definitions); the results counting them as a group of their own, compared with
// control; a started experiment fixing its holdout.

const HOUR = 3_600_000

/** PostHog's holdout hash, as the flags tests define it: sha1("holdout-" + id), 60 bits over 2⁶⁰ − 1. */
const holdoutHash = (id: string) =>
  Number(BigInt(`0x${createHash("sha1").update(`holdout-${id}`).digest("hex").slice(0, 15)}`)) / 0xfffffffffffffff

describe.each(["memory", "pglite", "postgres", "chdb"])("%s experiment holdouts", (name) => {
  const sql = name !== "memory"
  let zed: Zed
  let cleanup: () => Promise<void>

  beforeAll(async () => {
    const backend = await backends("experiment-holdouts")[name]!()
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

  const send = (method: string, path: string, body?: unknown, prefix = "/api/projects/1") =>
    call(zed, `${prefix}${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) })
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
    const listed = await send("GET", "/experiment_holdouts/", undefined, "/api/environments/1")
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
      const members = ids.map((id, i) => [i, values[i]] as const).filter(([, v]) => v === group)
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
})
