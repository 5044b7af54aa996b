import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { Zed } from "../src/index.js"
import { call, issueKey, memoryZed, PROJECT_KEY } from "./support.js"

let zed: Zed
beforeAll(async () => {
  zed = await memoryZed()
})
afterAll(() => zed.close())

const post = (path: string, body: unknown) => call(zed, path, { method: "POST", body: JSON.stringify(body) })
const patch = (path: string, body: unknown) => call(zed, path, { method: "PATCH", body: JSON.stringify(body) })

const multivariate = {
  groups: [
    {
      properties: [{ key: "email", type: "person", operator: "icontains", value: "@acme.com" }],
      rollout_percentage: 50
    }
  ],
  multivariate: {
    variants: [
      { key: "control", rollout_percentage: 50 },
      { key: "test", rollout_percentage: 50 }
    ]
  },
  payloads: { control: '{"color":"blue"}' }
}

describe("feature flag definitions", () => {
  it("are created, listed, retrieved and updated under both project prefixes", async () => {
    const created = await post("/api/projects/1/feature_flags/", {
      key: "checkout-experiment",
      name: "Checkout",
      filters: multivariate
    })
    expect(created.status).toBe(201)
    expect(created.json).toMatchObject({
      key: "checkout-experiment",
      name: "Checkout",
      active: true,
      deleted: false,
      version: 1,
      filters: multivariate,
      is_simple_flag: false,
      rollout_percentage: null,
      created_by: { email: "admin@localhost" }
    })
    const id = created.json.id
    expect((await call(zed, `/api/environments/1/feature_flags/${id}`)).json).toEqual(created.json)
    const list = (await call(zed, "/api/projects/1/feature_flags/?search=checkout")).json
    expect(list.results.map((f: { key: string }) => f.key)).toEqual(["checkout-experiment"])
    const updated = await patch(`/api/projects/1/feature_flags/${id}/`, { active: false, name: "Renamed" })
    expect(updated.json).toMatchObject({
      active: false,
      name: "Renamed",
      version: 2,
      last_modified_by: { email: "admin@localhost" }
    })
  })

  it("reports a one-condition percentage flag as simple", async () => {
    const created = await post("/api/projects/1/feature_flags/", {
      key: "simple-rollout",
      filters: { groups: [{ properties: [], rollout_percentage: 30 }] }
    })
    expect(created.json).toMatchObject({ is_simple_flag: true, rollout_percentage: 30 })
  })

  it("refuse bad rollout percentages, variant sums, unknown operators and bad keys, naming the field", async () => {
    const bad = async (filters: unknown, key = "bad-flag") =>
      (await post("/api/projects/1/feature_flags/", { key, filters })).json
    expect(await bad({ groups: [{ rollout_percentage: 150 }] })).toMatchObject({
      type: "validation_error",
      attr: "filters__groups__0__rollout_percentage"
    })
    expect(await bad({ groups: [{ rollout_percentage: -1 }] })).toMatchObject({
      attr: "filters__groups__0__rollout_percentage"
    })
    expect(
      await bad({
        multivariate: {
          variants: [
            { key: "a", rollout_percentage: 50 },
            { key: "b", rollout_percentage: 40 }
          ]
        }
      })
    ).toMatchObject({ attr: "filters", detail: expect.stringMatching(/must sum to 100/) })
    expect(
      await bad({ groups: [{ properties: [{ key: "plan", operator: "sounds_like", value: "x" }] }] })
    ).toMatchObject({ attr: "filters__groups__0__properties__0__operator", detail: 'Unknown operator "sounds_like".' })
    expect(
      await bad({ groups: [{ variant: "nope" }], multivariate: { variants: [{ key: "a", rollout_percentage: 100 }] } })
    ).toMatchObject({ attr: "filters" })
    expect(await bad({ payloads: { orange: "{}" } })).toMatchObject({ attr: "filters" })
    expect(await bad({}, "has spaces")).toMatchObject({ code: "invalid_key", attr: "key" })
    expect(await bad({ groups: [{ properties: [{ key: "id", type: "cohort", value: 9999 }] }] })).toMatchObject({
      attr: "filters",
      detail: "Cohort with id 9999 does not exist."
    })
    expect((await post("/api/projects/1/feature_flags/", { filters: {} })).json).toMatchObject({
      code: "required",
      attr: "key"
    })
  })

  it("keep keys unique among live flags, and free a key when its flag is deleted (softly)", async () => {
    const first = await post("/api/projects/1/feature_flags/", { key: "unique-key" })
    const twin = await post("/api/projects/1/feature_flags/", { key: "unique-key" })
    expect(twin.status).toBe(400)
    expect(twin.json).toMatchObject({ code: "unique", attr: "key" })
    const deleting = await call(zed, `/api/projects/1/feature_flags/${first.json.id}/`, { method: "DELETE" })
    expect(deleting.status).toBe(405)
    expect(deleting.text).toBe("")
    expect((await patch(`/api/projects/1/feature_flags/${first.json.id}/`, { deleted: true })).json).toMatchObject({
      deleted: true
    })
    expect((await call(zed, `/api/projects/1/feature_flags/${first.json.id}/`)).status).toBe(404)
    expect((await post("/api/projects/1/feature_flags/", { key: "unique-key" })).status).toBe(201)
  })

  it("refuse dependencies on missing flags and dependency cycles", async () => {
    const a = await post("/api/projects/1/feature_flags/", { key: "dep-a" })
    const b = await post("/api/projects/1/feature_flags/", {
      key: "dep-b",
      filters: {
        groups: [{ properties: [{ key: String(a.json.id), type: "flag", operator: "flag_evaluates_to", value: true }] }]
      }
    })
    expect(b.status).toBe(201)
    const cycle = await patch(`/api/projects/1/feature_flags/${a.json.id}/`, {
      filters: {
        groups: [{ properties: [{ key: String(b.json.id), type: "flag", operator: "flag_evaluates_to", value: true }] }]
      }
    })
    expect(cycle.json).toMatchObject({ attr: "filters", detail: expect.stringMatching(/Circular dependency/) })
    const missing = await post("/api/projects/1/feature_flags/", {
      key: "dep-c",
      filters: { groups: [{ properties: [{ key: "424242", type: "flag", value: true }] }] }
    })
    expect(missing.json.detail).toMatch(/does not exist/)
  })

  it("need feature_flag:read to read and feature_flag:write to change", async () => {
    const reader = await issueKey(zed, ["feature_flag:read"])
    expect((await call(zed, "/api/projects/1/feature_flags/", { key: reader })).status).toBe(200)
    const denied = await call(zed, "/api/projects/1/feature_flags/", {
      key: reader,
      method: "POST",
      body: '{"key":"x"}'
    })
    expect(denied.json.detail).toBe("API key missing required scope 'feature_flag:write'")
  })
})

describe("definitions for local evaluation", () => {
  it("list every live flag with dependencies named by key, and answer 304 to a matching ETag", async () => {
    const reader = await issueKey(zed, ["feature_flag:read"])
    const res = await call(zed, "/api/projects/1/feature_flags/local_evaluation/?send_cohorts", { key: reader })
    expect(res.status).toBe(200)
    const keys = res.json.flags.map((f: { key: string }) => f.key)
    expect(keys).toContain("checkout-experiment")
    expect(keys).not.toContain("unique-key-deleted")
    const inactive = res.json.flags.find((f: { key: string }) => f.key === "checkout-experiment")
    expect(inactive.active).toBe(false)
    const dependent = res.json.flags.find((f: { key: string }) => f.key === "dep-b")
    expect(dependent.filters.groups[0].properties[0]).toMatchObject({ key: "dep-a", dependency_chain: ["dep-a"] })
    expect(res.json).toMatchObject({ group_type_mapping: {}, cohorts: {}, property_matching_version: 1 })

    const etag = res.headers.get("etag")!
    expect(etag).toMatch(/^W\/"[0-9a-f]{40}"$/)
    const again = await call(zed, "/api/projects/1/feature_flags/local_evaluation/?send_cohorts", {
      key: reader,
      headers: { "if-none-match": etag }
    })
    expect(again.status).toBe(304)
    expect(again.text).toBe("")
    // If-None-Match as HTTP has it: a list, weak or strong forms of the tag, or `*`.
    const revalidate = async (ifNoneMatch: string) =>
      (
        await call(zed, "/api/projects/1/feature_flags/local_evaluation/?send_cohorts", {
          key: reader,
          headers: { "if-none-match": ifNoneMatch }
        })
      ).status
    expect(await revalidate(`W/"other", ${etag}`)).toBe(304)
    expect(await revalidate(etag.slice(2))).toBe(304)
    expect(await revalidate("*")).toBe(304)
    expect(await revalidate(`W/"other"`)).toBe(200)
  })

  it("are served by project API key at /flags/definitions and the legacy path, to keys that reach the project", async () => {
    const reader = await issueKey(zed, ["feature_flag:read"])
    const modern = await call(zed, `/flags/definitions?token=${PROJECT_KEY}&send_cohorts`, { key: reader })
    const legacy = await call(zed, `/api/feature_flag/local_evaluation?token=${PROJECT_KEY}&send_cohorts`, {
      key: reader
    })
    expect(modern.status).toBe(200)
    expect(legacy.json).toEqual(modern.json)
    expect((await call(zed, `/flags/definitions?token=${PROJECT_KEY}`, { key: null })).status).toBe(401)
    const elsewhere = await issueKey(zed, ["feature_flag:read"], [])
    expect((await call(zed, `/flags/definitions?token=${PROJECT_KEY}`, { key: elsewhere })).status).toBe(403)
    // An unknown project key is a credential error, so SDKs back off rather than poll on.
    expect(await call(zed, "/flags/definitions?token=phc_nobody", { key: reader })).toMatchObject({
      status: 401,
      json: { type: "authentication_error" }
    })
  })
})

describe("cohorts", () => {
  it("are dynamic, by person properties, or static, listing persons", async () => {
    const dynamic = await post("/api/projects/1/cohorts/", {
      name: "Paying",
      filters: {
        properties: {
          type: "OR",
          values: [
            { type: "AND", values: [{ key: "plan", type: "person", operator: "exact", value: ["pro", "enterprise"] }] }
          ]
        }
      }
    })
    expect(dynamic.status).toBe(201)
    expect(dynamic.json).toMatchObject({ name: "Paying", is_static: false, count: null })
    const bad = await post("/api/projects/1/cohorts/", {
      name: "Bad",
      filters: { properties: { type: "AND", values: [{ key: "x", operator: "nope" }] } }
    })
    expect(bad.json).toMatchObject({ attr: "filters__properties__values__0__operator" })

    await zed.handler(
      new Request("http://zed.test/batch/", {
        method: "POST",
        body: JSON.stringify({
          api_key: PROJECT_KEY,
          batch: [
            { event: "$identify", distinct_id: "member-1" },
            { event: "$identify", distinct_id: "member-2" }
          ]
        })
      })
    )
    const persons = (await call(zed, "/api/projects/1/persons/")).json.results as Array<{
      uuid: string
      distinct_ids: Array<string>
    }>
    const uuids = persons.filter((p) => p.distinct_ids[0]!.startsWith("member-")).map((p) => p.uuid)
    const fixed = await post("/api/projects/1/cohorts/", { name: "Beta testers", is_static: true })
    const added = await patch(`/api/projects/1/cohorts/${fixed.json.id}/add_persons_to_static_cohort/`, {
      person_ids: [...uuids, uuids[0]]
    })
    expect(added.json).toEqual({ success: true, added: 2 })
    const members = (await call(zed, `/api/projects/1/cohorts/${fixed.json.id}/persons/`)).json
    expect(members.count).toBe(2)
    expect((await call(zed, `/api/projects/1/cohorts/${fixed.json.id}/`)).json.count).toBe(2)
    expect(
      (await patch(`/api/projects/1/cohorts/${dynamic.json.id}/add_persons_to_static_cohort/`, { person_ids: uuids }))
        .status
    ).toBe(400)
  })

  it("refuse references to cohorts the project does not have, another project's among them, as flags do", async () => {
    const other = await post("/api/projects/", { name: "Other" })
    const theirs = await post(`/api/projects/${other.json.id}/cohorts/`, { name: "Theirs", is_static: true })
    const ours = await post("/api/projects/1/cohorts/", { name: "Ours", is_static: true })
    const nested = (value: unknown) => ({
      properties: { type: "OR", values: [{ type: "AND", values: [{ key: "id", type: "cohort", value }] }] }
    })
    for (const [i, value] of [theirs.json.id, 2147483648, 1e20, "x", null].entries()) {
      const detail = `Cohort with id ${String(value)} does not exist.`
      expect((await post("/api/projects/1/cohorts/", { name: "Refers", filters: nested(value) })).json).toEqual({
        type: "validation_error",
        code: "invalid_input",
        detail,
        attr: "filters__properties__values__0__values__0__value"
      })
      expect((await patch(`/api/projects/1/cohorts/${theirs.json.id}/`, { filters: nested(value) })).status).toBe(404)
      expect(
        (
          await post("/api/projects/1/feature_flags/", {
            key: `refers-${i}`,
            filters: { groups: [{ properties: [{ key: "id", type: "cohort", value }] }] }
          })
        ).json
      ).toEqual({ type: "validation_error", code: "invalid_input", detail, attr: "filters" })
    }
    const referring = await post("/api/projects/1/cohorts/", { name: "Refers", filters: nested(ours.json.id) })
    expect(referring.status).toBe(201)
    expect(
      (await patch(`/api/projects/1/cohorts/${referring.json.id}/`, { filters: nested(theirs.json.id) })).json
    ).toMatchObject({ attr: "filters__properties__values__0__values__0__value" })
    expect((await call(zed, `/api/projects/1/cohorts/${referring.json.id}/`)).json.filters).toEqual(
      nested(ours.json.id)
    )
  })

  it("serve referenced dynamic cohorts to SDKs, and inline a simple one when cohorts are not asked for", async () => {
    const cohorts = (await call(zed, "/api/projects/1/cohorts/")).json.results as Array<{ id: number; name: string }>
    const paying = cohorts.find((c) => c.name === "Paying")!
    await post("/api/projects/1/feature_flags/", {
      key: "cohort-flag",
      filters: { groups: [{ properties: [{ key: "id", type: "cohort", operator: "in", value: paying.id }] }] }
    })
    const served = (await call(zed, "/api/projects/1/feature_flags/local_evaluation/?send_cohorts")).json
    expect(Object.keys(served.cohorts)).toEqual([String(paying.id)])
    const inlined = (await call(zed, "/api/projects/1/feature_flags/local_evaluation/")).json
    const flag = inlined.flags.find((f: { key: string }) => f.key === "cohort-flag")
    expect(flag.filters.groups[0].properties).toEqual([
      { key: "plan", type: "person", operator: "exact", value: ["pro", "enterprise"] }
    ])
  })
})

describe("organization", () => {
  it("is read and given a flag evaluation quota at @current", async () => {
    const org = await call(zed, "/api/organizations/@current/")
    expect(org.json).toMatchObject({ name: "Default organization", flag_evaluation_quota: null })
    expect(
      (await patch("/api/organizations/@current/", { flag_evaluation_quota: 1000 })).json.flag_evaluation_quota
    ).toBe(1000)
    expect((await patch("/api/organizations/@current/", { flag_evaluation_quota: -1 })).json).toMatchObject({
      attr: "flag_evaluation_quota"
    })
    expect((await call(zed, "/api/organizations/00000000-0000-4000-8000-000000000000/")).status).toBe(404)
    expect(
      (await patch("/api/organizations/@current/", { flag_evaluation_quota: null })).json.flag_evaluation_quota
    ).toBeNull()
  })
})
