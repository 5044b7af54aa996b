import { createHash } from "node:crypto"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { pgliteStorage } from "@zed/postgres"
import { PostHog } from "posthog-node"

// An experiment end to end: the published posthog-node evaluates the experiment's flag for 2,000
// simulated users (sending `$feature_flag_called` as it does), each user then converts with a known
// probability that depends on the variant, and the experiment's result must show that lift inside
// its intervals. And a holdout: posthog-node, evaluating locally from Zed's definitions, holds out
// exactly the users whose holdout hash falls within its share.

const PROJECT_KEY = "phc_experiments_sdk_project_0001"
const PERSONAL_KEY = "phx_experiments_sdk_personal_0001"
const USERS = 2000
const RATES: Record<string, number> = { control: 0.2, test: 0.3 }
const LIFT = RATES.test! / RATES.control! - 1
/** How far ahead a conversion is stamped of its exposure, ms. */
const SKEW = 250

let zed: Zed
let server: Server
let host: string

const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${host}${path}`, {
    method,
    headers: { authorization: `Bearer ${PERSONAL_KEY}`, "content-type": "application/json" },
    body: body === undefined ? null : JSON.stringify(body)
  })
  const text = await res.text()
  return { status: res.status, json: text === "" ? undefined : JSON.parse(text), text }
}

/** A seeded uniform source (the conversions are the same each run). */
const uniform = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) >>> 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

beforeAll(async () => {
  zed = await createZed({
    storage: pgliteStorage(),
    bootstrap: { projectApiKey: PROJECT_KEY, personalApiKey: PERSONAL_KEY }
  })
  server = createServer((req, res) => void zed.nodeHandler(req, res))
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()))
  await zed.close()
})

describe("an experiment through posthog-node", () => {
  it("finds the known lift of 2,000 simulated users within its intervals", async () => {
    const created = await api("POST", "/api/projects/1/experiments/", {
      name: "Pricing page",
      feature_flag_key: "pricing-page",
      start_date: new Date(Date.now() - 60_000).toISOString()
    })
    expect(created.status, created.text).toBe(201)

    // Few, large batches: the ~2,500 events reach Zed in three requests.
    const ph = new PostHog(PROJECT_KEY, { host, personalApiKey: PERSONAL_KEY, flushAt: 1000, flushInterval: 60_000 })
    const random = uniform(26)
    const truth: Record<string, { n: number; converted: number }> = {
      control: { n: 0, converted: 0 },
      test: { n: 0, converted: 0 }
    }
    for (let i = 0; i < USERS; i++) {
      const distinctId = `visitor-${i}`
      const variant = await ph.getFeatureFlag("pricing-page", distinctId)
      expect(["control", "test"]).toContain(variant)
      truth[variant as string]!.n++
      if (random() < RATES[variant as string]!) {
        truth[variant as string]!.converted++
        // Just after seeing the page: batches sent apart may shift by the milliseconds between
        // their sending and arrival (Zed corrects the clock skew from `sent_at`).
        ph.capture({
          distinctId,
          event: "purchase",
          properties: { amount: 30 },
          timestamp: new Date(Date.now() + SKEW)
        })
      }
    }
    await ph.shutdown()
    // Results run up to now: let the last conversions' moment pass.
    await new Promise((resolve) => setTimeout(resolve, SKEW + 50))

    // The metric names an event Zed has now seen.
    const metric = {
      kind: "ExperimentMetric",
      metric_type: "funnel",
      series: [{ kind: "EventsNode", event: "purchase" }]
    }
    const patched = await api("PATCH", `/api/projects/1/experiments/${created.json.id}/`, { metrics: [metric] })
    expect(patched.status, patched.text).toBe(200)
    const res = await api("GET", `/api/projects/1/experiments/${created.json.id}/results/?refresh=force_blocking`)
    expect(res.status, res.text).toBe(200)
    const result = res.json.primary[0].results
    const [control, test] = result.variants
    // Every evaluation was an exposure, every conversion counted.
    expect(control.number_of_samples).toBe(truth.control!.n)
    expect(test.number_of_samples).toBe(truth.test!.n)
    expect(control.sum).toBe(truth.control!.converted)
    expect(test.sum).toBe(truth.test!.converted)
    expect(result.multiple_variant_persons).toBe(0)
    // The flag splits 50/50: no sample-ratio mismatch.
    expect(result.sample_ratio_mismatch.mismatch).toBe(false)
    // The true lift lies in the Bayesian credible interval and the frequentist confidence interval.
    const { credible_interval: credible } = test.bayesian
    expect(credible.lower).toBeLessThan(LIFT)
    expect(credible.upper).toBeGreaterThan(LIFT)
    const { relative_interval: confidence } = test.frequentist
    expect(confidence.lower).toBeLessThan(LIFT)
    expect(confidence.upper).toBeGreaterThan(LIFT)
    // And a lift this size on ~1,000 users a variant is found.
    expect(test.frequentist.significant).toBe(true)
    expect(test.bayesian.chance_to_win).toBeGreaterThan(0.95)
  }, 300_000)

  it("holds out, evaluating locally, exactly the users within the holdout's share", async () => {
    const holdout = await api("POST", "/api/projects/1/experiment_holdouts/", {
      name: "A quarter",
      filters: [{ properties: [], rollout_percentage: 25 }]
    })
    expect(holdout.status, holdout.text).toBe(201)
    const created = await api("POST", "/api/projects/1/experiments/", {
      name: "Checkout",
      feature_flag_key: "checkout-holdout",
      holdout_id: holdout.json.id
    })
    expect(created.status, created.text).toBe(201)
    const ph = new PostHog(PROJECT_KEY, { host, personalApiKey: PERSONAL_KEY, flushInterval: 60_000 })
    // PostHog's holdout hash, as the flags tests define it.
    const hash = (id: string) =>
      Number(BigInt(`0x${createHash("sha1").update(`holdout-${id}`).digest("hex").slice(0, 15)}`)) / 0xfffffffffffffff
    const ids = Array.from({ length: 200 }, (_, i) => `buyer-${i}`)
    const got = await Promise.all(
      ids.map((id) =>
        ph.getFeatureFlag("checkout-holdout", id, { onlyEvaluateLocally: true, sendFeatureFlagEvents: false })
      )
    )
    await ph.shutdown()
    ids.forEach((id, i) => {
      if (hash(id) <= 0.25) expect(got[i], id).toBe(`holdout-${holdout.json.id}`)
      else expect(["control", "test"], id).toContain(got[i])
    })
    // About a quarter of 200.
    expect(ids.filter((id) => hash(id) <= 0.25).length).toBeGreaterThan(30)
    expect(got.filter((v) => v === `holdout-${holdout.json.id}`).length).toBe(
      ids.filter((id) => hash(id) <= 0.25).length
    )
  })
})
