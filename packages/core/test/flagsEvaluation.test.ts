import { gzipSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { makeApp } from "../src/api/handler.js"
import { routes } from "../src/api/routes/index.js"
import { fromWebRequest } from "../src/api/web.js"
import type { AppServices } from "../src/app.js"
import { flagHash } from "../src/flags/hash.js"
import { createZed, GeoIp, memoryStorage, type Zed, type ZedOptions } from "../src/index.js"
import { FlagInputs, StorageError } from "../src/storage.js"
import { ADMIN_KEY, call, PROJECT_KEY } from "./support.js"

// Every test runs twice: with the fast path, each request sent twice so that the second finds
// everything in memory and is answered without a fiber where it can be (both answers must agree),
// and with every request through the Effect pipeline.

const capture = (z: Zed, batch: ReadonlyArray<Record<string, unknown>>) =>
  z.handler(
    new Request("http://zed.test/batch/", { method: "POST", body: JSON.stringify({ api_key: PROJECT_KEY, batch }) })
  )

for (const fastPaths of [true, false]) {
  describe(fastPaths ? "from memory (fast path)" : "through the Effect pipeline", () => {
    let zed: Zed

    const zedWith = (options: Partial<ZedOptions> = {}) =>
      createZed({
        storage: memoryStorage(),
        bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY },
        ...options,
        fastPaths
      })

    const define = (z: Zed, key: string, filters: unknown, extra: Record<string, unknown> = {}) =>
      call(z, "/api/projects/1/feature_flags/", {
        method: "POST",
        body: JSON.stringify({ key, filters, ...extra })
      }).then((r) => {
        expect(r.status).toBe(201)
        return r.json as { id: number; version: number }
      })

    /** The answer without what differs between two calls. */
    const comparable = (json: Record<string, unknown>) => ({ ...json, requestId: undefined, evaluatedAt: undefined })

    const ask = async (
      z: Zed,
      path: string,
      body: unknown,
      init: { headers?: Record<string, string>; raw?: BodyInit } = {}
    ) => {
      const send = async () => {
        const res = await z.handler(
          new Request(`http://zed.test${path}`, {
            method: "POST",
            body: init.raw ?? JSON.stringify(body),
            headers: { "content-type": "application/json", ...init.headers }
          })
        )
        return { status: res.status, headers: res.headers, json: await res.json() }
      }
      const answer = await send()
      if (!fastPaths) return answer
      const again = await send()
      expect(again.status).toBe(answer.status)
      expect(comparable(again.json)).toEqual(comparable(answer.json))
      return again
    }

    const decide = (z: Zed, body: Record<string, unknown>, path = "/decide/?v=3") =>
      ask(z, path, { token: PROJECT_KEY, ...body })

    let checkout: { id: number; version: number }

    beforeAll(async () => {
      zed = await zedWith()
      await define(zed, "beta-feature", { groups: [{ properties: [], rollout_percentage: 50 }] })
      checkout = await define(
        zed,
        "checkout-experiment",
        {
          groups: [{ properties: [], rollout_percentage: 100 }],
          multivariate: {
            variants: [
              { key: "control", rollout_percentage: 50 },
              { key: "test", rollout_percentage: 50 }
            ]
          },
          payloads: { control: '{"color":"blue"}' }
        },
        { name: "Checkout test" }
      )
      await define(zed, "pro-users", {
        groups: [
          { properties: [{ key: "plan", type: "person", operator: "exact", value: "pro" }], rollout_percentage: 100 }
        ]
      })
      await define(zed, "switched-off", { groups: [{ rollout_percentage: 100 }] }, { active: false })
    })
    afterAll(() => zed.close())

    describe("answer shapes by endpoint and version", () => {
      it("/decide without v lists the enabled keys; v2 maps them to values", async () => {
        const v1 = (await decide(zed, { distinct_id: "user-0" }, "/decide/")).json
        expect(v1.featureFlags.sort()).toEqual(["beta-feature", "checkout-experiment"])
        const v2 = (await decide(zed, { distinct_id: "user-1" }, "/decide/?v=2")).json
        expect(v2.featureFlags).toEqual({ "checkout-experiment": "control" })
      })

      it("/decide v3 and /flags v1 give every active flag with payloads of the matched ones", async () => {
        for (const path of ["/decide/?v=3", "/flags/", "/flags/?v=1"]) {
          const body = (await decide(zed, { distinct_id: "user-1" }, path)).json
          expect(body.featureFlags).toEqual({
            "beta-feature": false,
            "checkout-experiment": "control",
            "pro-users": false
          })
          expect(body.featureFlagPayloads).toEqual({ "checkout-experiment": '{"color":"blue"}' })
          expect(body.errorsWhileComputingFlags).toBe(false)
          expect(body.requestId).toMatch(/^[0-9a-f-]{36}$/)
        }
      })

      it("/decide v4 and /flags v2 give each flag's value, reason and metadata", async () => {
        for (const path of ["/decide/?v=4", "/flags/?v=2"]) {
          const body = (await decide(zed, { distinct_id: "user-1" }, path)).json
          expect(body.flags["checkout-experiment"]).toEqual({
            key: "checkout-experiment",
            enabled: true,
            variant: "control",
            reason: { code: "condition_match", condition_index: 0, description: "Matched condition set 1" },
            metadata: {
              id: checkout.id,
              version: checkout.version,
              description: "Checkout test",
              payload: '{"color":"blue"}',
              has_experiment: false
            }
          })
          expect(body.flags["beta-feature"]).toMatchObject({
            enabled: false,
            variant: null,
            reason: { code: "out_of_rollout_bound", condition_index: 0 }
          })
          expect(body.flags["pro-users"].reason.code).toBe("no_condition_match")
          expect(body.flags).not.toHaveProperty("switched-off")
        }
      })

      it("carries the remote config keys on /decide, and on /flags only with config=true", async () => {
        const decided = (await decide(zed, { distinct_id: "u" }, "/decide/?v=3")).json
        expect(decided).toMatchObject({
          supportedCompression: ["gzip", "gzip-js"],
          hasFeatureFlags: true,
          isAuthenticated: false,
          config: { enable_collect_everything: true }
        })
        expect(decided).not.toHaveProperty("token")
        expect((await decide(zed, { distinct_id: "u" }, "/flags/?v=2")).json).not.toHaveProperty("supportedCompression")
        expect((await decide(zed, { distinct_id: "u" }, "/flags/?v=2&config=true")).json).toHaveProperty(
          "supportedCompression"
        )
      })
    })

    describe("what the flags see", () => {
      it("stored person properties, overridden by the request's", async () => {
        await capture(zed, [{ event: "$identify", distinct_id: "paying", properties: { $set: { plan: "pro" } } }])
        expect((await decide(zed, { distinct_id: "paying" })).json.featureFlags["pro-users"]).toBe(true)
        expect(
          (await decide(zed, { distinct_id: "paying", person_properties: { plan: "free" } })).json.featureFlags[
            "pro-users"
          ]
        ).toBe(false)
        expect(
          (await decide(zed, { distinct_id: "someone", person_properties: { plan: "pro" } })).json.featureFlags[
            "pro-users"
          ]
        ).toBe(true)
        const overridesOnly = await decide(
          zed,
          { distinct_id: "paying" },
          "/decide/?v=3&only_use_override_person_properties=true"
        )
        expect(overridesOnly.json.featureFlags["pro-users"]).toBe(false)
      })

      it("the same answer however the request is encoded, with PostHog's field aliases", async () => {
        const body = { api_key: PROJECT_KEY, $distinct_id: "user-1", $properties: { plan: "pro" } }
        const json = await ask(zed, "/decide/?v=3", body)
        const gzip = await ask(zed, "/decide/?v=3", undefined, {
          raw: gzipSync(JSON.stringify(body)),
          headers: { "content-type": "text/plain" }
        })
        const form = await ask(zed, "/decide/?v=3", undefined, {
          raw: `data=${encodeURIComponent(Buffer.from(JSON.stringify(body)).toString("base64"))}`,
          headers: { "content-type": "application/x-www-form-urlencoded" }
        })
        for (const res of [gzip, form]) expect(res.json.featureFlags).toEqual(json.json.featureFlags)
        expect(json.json.featureFlags["pro-users"]).toBe(true)
      })

      it("refuse a missing or unknown project key (401) and a missing distinct id (400)", async () => {
        expect((await ask(zed, "/flags/?v=2", { distinct_id: "u" })).status).toBe(401)
        expect((await ask(zed, "/flags/?v=2", { token: "phc_unknown", distinct_id: "u" })).json).toMatchObject({
          code: "invalid_api_key"
        })
        expect((await ask(zed, "/flags/?v=2", { token: PROJECT_KEY })).json).toMatchObject({
          code: "invalid_payload",
          detail: "distinct_id is required"
        })
        expect((await ask(zed, "/flags/?v=2", undefined, { raw: "{nope" })).status).toBe(400)
      })

      it("answer browsers' preflights and echo their origin", async () => {
        const res = await zed.handler(
          new Request("http://zed.test/flags/?v=2", { method: "OPTIONS", headers: { origin: "https://shop.example" } })
        )
        expect(res.status).toBe(200)
        expect(res.headers.get("access-control-allow-origin")).toBe("https://shop.example")
      })
    })

    describe("cohorts, groups, continuity", () => {
      it("match dynamic and static cohorts", async () => {
        const paying = await call(zed, "/api/projects/1/cohorts/", {
          method: "POST",
          body: JSON.stringify({
            name: "Paying",
            filters: {
              properties: {
                type: "OR",
                values: [{ type: "AND", values: [{ key: "plan", type: "person", value: ["pro", "enterprise"] }] }]
              }
            }
          })
        })
        await define(zed, "cohort-flag", {
          groups: [{ properties: [{ key: "id", type: "cohort", value: paying.json.id }] }]
        })
        expect(
          (await decide(zed, { distinct_id: "x", person_properties: { plan: "Enterprise" } })).json.featureFlags[
            "cohort-flag"
          ]
        ).toBe(true)
        expect(
          (await decide(zed, { distinct_id: "x", person_properties: { plan: "free" } })).json.featureFlags[
            "cohort-flag"
          ]
        ).toBe(false)

        await capture(zed, [
          { event: "$identify", distinct_id: "insider" },
          { event: "$identify", distinct_id: "outsider" }
        ])
        const people = (await call(zed, "/api/projects/1/persons/?distinct_id=insider")).json.results
        const beta = await call(zed, "/api/projects/1/cohorts/", {
          method: "POST",
          body: '{"name":"Beta","is_static":true}'
        })
        await call(zed, `/api/projects/1/cohorts/${beta.json.id}/add_persons_to_static_cohort/`, {
          method: "PATCH",
          body: JSON.stringify({ person_ids: [people[0].uuid] })
        })
        await define(zed, "beta-cohort-flag", {
          groups: [{ properties: [{ key: "id", type: "cohort", value: beta.json.id }] }]
        })
        expect((await decide(zed, { distinct_id: "insider" })).json.featureFlags["beta-cohort-flag"]).toBe(true)
        expect((await decide(zed, { distinct_id: "outsider" })).json.featureFlags["beta-cohort-flag"]).toBe(false)
      })

      it("bucket group flags on the group key with its stored properties", async () => {
        await capture(zed, [
          {
            event: "$groupidentify",
            distinct_id: "u",
            properties: { $group_type: "company", $group_key: "initech", $group_set: { seats: 25 } }
          },
          {
            event: "$groupidentify",
            distinct_id: "u",
            properties: { $group_type: "company", $group_key: "acme-inc", $group_set: { seats: 25 } }
          }
        ])
        await define(zed, "company-flag", {
          aggregation_group_type_index: 0,
          groups: [
            {
              properties: [{ key: "seats", type: "group", group_type_index: 0, operator: "gte", value: 10 }],
              rollout_percentage: 50
            }
          ]
        })
        const flag = async (body: Record<string, unknown>) =>
          (await decide(zed, { distinct_id: "anyone", ...body })).json.featureFlags["company-flag"]
        expect(await flag({ groups: { company: "initech" } })).toBe(true)
        expect(await flag({ groups: { company: "acme-inc" } })).toBe(false)
        expect(await flag({ groups: { company: "initech" }, group_properties: { company: { seats: 5 } } })).toBe(false)
        expect(await flag({})).toBe(false)
      })

      it("keep a person's bucket across identify with experience continuity", async () => {
        // Ids whose own hashes fall on opposite sides of the rollout, so only continuity keeps the value.
        const key = "continuous"
        let anon = ""
        let user = ""
        for (let i = 0; anon === "" || user === ""; i++) {
          const h = flagHash(key, `id-${i}`)
          if (h <= 0.5 && anon === "") anon = `id-${i}`
          if (h > 0.5 && user === "") user = `id-${i}`
        }
        await define(zed, key, { groups: [{ rollout_percentage: 50 }] }, { ensure_experience_continuity: true })
        await capture(zed, [{ event: "$pageview", distinct_id: anon }])
        expect((await decide(zed, { distinct_id: anon })).json.featureFlags[key]).toBe(true)
        await capture(zed, [{ event: "$identify", distinct_id: user, properties: { $anon_distinct_id: anon } }])
        expect((await decide(zed, { distinct_id: user, $anon_distinct_id: anon })).json.featureFlags[key]).toBe(true)
        // The override is stored: later requests keep the bucket without the anonymous id.
        expect((await decide(zed, { distinct_id: user })).json.featureFlags[key]).toBe(true)
        expect((await decide(zed, { distinct_id: "stranger-" + user })).json.featureFlags).toHaveProperty(key)
      })
    })

    describe("limits and failures", () => {
      it("answer quotaLimited with no flags once the organization's quota is used", async () => {
        const own = await zedWith()
        await define(own, "always", { groups: [{ rollout_percentage: 100 }] })
        // Sent once each: this test counts them.
        const once = (path: string) =>
          own
            .handler(
              new Request(`http://zed.test${path}`, {
                method: "POST",
                body: JSON.stringify({ token: PROJECT_KEY, distinct_id: "q" })
              })
            )
            .then((r) => r.json())
        await call(own, "/api/organizations/@current/", { method: "PATCH", body: '{"flag_evaluation_quota": 2}' })
        const answers = []
        for (let i = 0; i < 3; i++) answers.push(await once("/decide/?v=3"))
        expect(answers[1].featureFlags).toEqual({ always: true })
        expect(answers[2]).toMatchObject({ quotaLimited: ["feature_flags"], featureFlags: {}, featureFlagPayloads: {} })
        expect((await decide(own, { distinct_id: "q" }, "/flags/?v=2")).json).toMatchObject({
          quotaLimited: ["feature_flags"],
          flags: {}
        })
        await own.close()
      })

      it("still answer the other flags when a person's data cannot be read", async () => {
        const timeout = new StorageError({ message: "statement timeout" })
        const failing = Layer.succeed(
          FlagInputs,
          FlagInputs.of({ load: () => Effect.fail(timeout), persons: () => Effect.fail(timeout) })
        )
        const own = await zedWith({ storage: Layer.merge(memoryStorage(), failing) })
        await define(own, "rollout", { groups: [{ rollout_percentage: 100 }] })
        await define(own, "needs-person", { groups: [{ properties: [{ key: "plan", type: "person", value: "pro" }] }] })
        const body = (await decide(own, { distinct_id: "nobody-cached" }, "/flags/?v=2")).json
        expect(body.errorsWhileComputingFlags).toBe(true)
        expect(body.flags.rollout).toMatchObject({ enabled: true })
        expect(body.flags["needs-person"]).toMatchObject({ enabled: false, failed: true })
        await own.close()
      })

      it("read $geoip_* from the client address (X-Forwarded-For), unless disabled", async () => {
        const geoip = Layer.succeed(
          GeoIp,
          GeoIp.of({ lookup: (ip) => (ip === "81.2.69.160" ? { $geoip_country_code: "GB" } : {}) })
        )
        const own = await zedWith({ geoip })
        await define(own, "uk-only", {
          groups: [{ properties: [{ key: "$geoip_country_code", type: "person", value: "GB" }] }]
        })
        const ukOnly = async (body: Record<string, unknown>, ip: string) =>
          (
            await ask(
              own,
              "/decide/?v=3",
              { token: PROJECT_KEY, distinct_id: "g", ...body },
              { headers: { "x-forwarded-for": ip } }
            )
          ).json.featureFlags["uk-only"]
        expect(await ukOnly({}, "81.2.69.160")).toBe(true)
        expect(await ukOnly({}, "192.0.2.1")).toBe(false)
        expect(await ukOnly({ geoip_disable: true }, "81.2.69.160")).toBe(false)
        expect(await ukOnly({ person_properties: { $geoip_country_code: "FR" } }, "81.2.69.160")).toBe(false)
        await own.close()
      })
    })
  })
}

describe("the fast path", () => {
  it("answers person-only requests from memory once they are known, and sends the others on", async () => {
    const own = await createZed({
      storage: memoryStorage(),
      bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY }
    })
    const fast = makeApp(routes).fast(await own.run(Effect.context<AppServices>()))
    const request = (body: Record<string, unknown>) =>
      fromWebRequest(
        new Request("http://zed.test/flags/?v=2", {
          method: "POST",
          body: JSON.stringify({ token: PROJECT_KEY, ...body })
        })
      )!
    const fromMemory = async (body: Record<string, unknown>) => {
      const reply = await fast(request(body))
      return reply === undefined ? undefined : JSON.parse(String(reply.body))
    }
    await capture(own, [
      { event: "$groupidentify", distinct_id: "u", properties: { $group_type: "company", $group_key: "acme" } }
    ])
    await call(own, "/api/projects/1/feature_flags/", {
      method: "POST",
      body: JSON.stringify({
        key: "pro",
        filters: { groups: [{ properties: [{ key: "plan", type: "person", value: "pro" }] }] }
      })
    })
    const ask = (body: Record<string, unknown>) =>
      own.handler(
        new Request("http://zed.test/flags/?v=2", {
          method: "POST",
          body: JSON.stringify({ token: PROJECT_KEY, ...body })
        })
      )
    await ask({ distinct_id: "first" })
    await capture(own, [{ event: "$identify", distinct_id: "stored", properties: { $set: { plan: "pro" } } }])
    // The process that stored the person knows it; of others it knows nothing before their first request.
    expect((await fromMemory({ distinct_id: "stored" })).flags.pro.enabled).toBe(true)
    const asks = [{ distinct_id: "stranger" }, { distinct_id: "visitor", person_properties: { plan: "pro" } }]
    for (const body of asks) expect(await fromMemory(body)).toBeUndefined()
    for (const body of asks) await ask(body)
    expect((await fromMemory(asks[0]!)).flags.pro.enabled).toBe(false)
    expect((await fromMemory(asks[1]!)).flags.pro.enabled).toBe(true)
    // Group properties are read from storage every time.
    expect(await fromMemory({ distinct_id: "stored", groups: { company: "acme" } })).toBeUndefined()
    // A person created by ingestion replaces the absence at once.
    await capture(own, [{ event: "$identify", distinct_id: "stranger", properties: { $set: { plan: "pro" } } }])
    expect((await fromMemory(asks[0]!)).flags.pro.enabled).toBe(true)
    await own.close()
  })
})
