import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { Zed } from "../src/index.js"
import { call, memoryZed, PROJECT_KEY } from "./support.js"

// Early access features on in-memory storage: each with its flag, the stage deciding whether people
// may opt in, the public list posthog-js reads, and opting in as posthog-js does it (a
// `$feature_enrollment_update` event setting `$feature_enrollment/<key>`) turning the flag on.

let zed: Zed
beforeAll(async () => {
  zed = await memoryZed()
})
afterAll(() => zed.close())

const send = (method: string, path: string, body?: unknown) =>
  call(zed, `/api/projects/1${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) })

const publicList = (query = "") =>
  call(zed, `/api/early_access_features/?token=${PROJECT_KEY}${query}`, {
    key: null,
    headers: { origin: "https://app.example" }
  })

/** The flag's value for a person on the next `/flags` call, as posthog-js asks. */
const flagFor = async (distinctId: string, key: string) => {
  const res = await call(zed, "/flags/?v=2", {
    method: "POST",
    key: null,
    body: JSON.stringify({ token: PROJECT_KEY, distinct_id: distinctId })
  })
  expect(res.status, res.text).toBe(200)
  return res.json.flags[key]?.enabled
}

/** What posthog-js captures for `updateEarlyAccessFeatureEnrollment(key, enrolled)`. */
const enroll = async (distinctId: string, key: string, enrolled: boolean) => {
  const body = {
    api_key: PROJECT_KEY,
    batch: [
      {
        event: "$feature_enrollment_update",
        properties: {
          distinct_id: distinctId,
          $feature_flag: key,
          $feature_enrollment: enrolled,
          $set: { [`$feature_enrollment/${key}`]: enrolled }
        }
      }
    ]
  }
  const res = await call(zed, "/i/v0/e/", { method: "POST", key: null, body: JSON.stringify(body) })
  expect(res.status, res.text).toBe(200)
}

describe("early access features", () => {
  it("makes a flag with the feature, lists it publicly at its stage, and turns it on for whoever opts in", async () => {
    const created = await send("POST", "/early_access_feature/", {
      name: "Dark Mode!",
      description: "Easier on the eyes",
      stage: "beta",
      documentation_url: "https://docs.example/dark"
    })
    expect(created.status, created.text).toBe(201)
    const feature = created.json
    expect(feature).toMatchObject({
      name: "Dark Mode!",
      stage: "beta",
      description: "Easier on the eyes",
      documentation_url: "https://docs.example/dark"
    })
    expect(feature.feature_flag).toMatchObject({ key: "dark-mode", active: true })
    expect(feature.feature_flag.filters.super_groups).toEqual([
      {
        properties: [{ key: "$feature_enrollment/dark-mode", type: "person", operator: "exact", value: ["true"] }],
        rollout_percentage: 100
      }
    ])
    expect((await send("GET", `/feature_flags/${feature.feature_flag.id}/`)).json.name).toBe(
      "Feature Flag for Feature Dark Mode!"
    )

    const listed = await publicList()
    expect(listed.status).toBe(200)
    expect(listed.headers.get("access-control-allow-origin")).toBe("https://app.example")
    expect(listed.json.earlyAccessFeatures).toContainEqual({
      id: feature.id,
      name: "Dark Mode!",
      description: "Easier on the eyes",
      stage: "beta",
      documentationUrl: "https://docs.example/dark",
      flagKey: "dark-mode"
    })

    expect(await flagFor("ada", "dark-mode")).toBe(false)
    await enroll("ada", "dark-mode", true)
    expect(await flagFor("ada", "dark-mode")).toBe(true)
    expect(await flagFor("bob", "dark-mode")).toBe(false)
    await enroll("ada", "dark-mode", false)
    expect(await flagFor("ada", "dark-mode")).toBe(false)
  })

  it("filters the public list by stage, and moving a feature out of the release stages ends opting in", async () => {
    const alpha = (await send("POST", "/early_access_feature/", { name: "Inbox zero", stage: "alpha" })).json
    const concept = (await send("POST", "/early_access_feature/", { name: "Time travel", stage: "concept" })).json
    const draft = (await send("POST", "/early_access_feature/", { name: "Secret thing", stage: "draft" })).json
    expect(draft.feature_flag.filters.super_groups).toBeUndefined()
    const ids = async (query: string) =>
      (await publicList(query)).json.earlyAccessFeatures.map((f: { id: string }) => f.id)
    expect(await ids("")).not.toContain(alpha.id)
    expect(await ids("&stage=alpha&stage=concept")).toEqual([alpha.id, concept.id])
    expect(await ids("&stage=draft")).toEqual([draft.id])
    const unknown = await publicList("&stage=gamma")
    expect(unknown.status).toBe(400)

    await enroll("cy", "inbox-zero", true)
    expect(await flagFor("cy", "inbox-zero")).toBe(true)
    const archived = await send("PATCH", `/early_access_feature/${alpha.id}/`, { stage: "archived" })
    expect(archived.status, archived.text).toBe(200)
    expect(archived.json.feature_flag.filters.super_groups).toBeUndefined()
    expect(await flagFor("cy", "inbox-zero")).toBe(false)
    const back = await send("PATCH", `/early_access_feature/${alpha.id}/`, {
      stage: "general-availability",
      name: "Inbox Zero"
    })
    expect(back.json).toMatchObject({ name: "Inbox Zero", stage: "general-availability" })
    expect(await flagFor("cy", "inbox-zero")).toBe(true)

    expect((await send("DELETE", `/early_access_feature/${alpha.id}/`)).status).toBe(204)
    expect((await send("GET", `/early_access_feature/${alpha.id}/`)).status).toBe(404)
    // The flag stays, without the opt-in.
    const flag = (await send("GET", `/feature_flags/${alpha.feature_flag.id}/`)).json
    expect(flag.filters.super_groups).toBeUndefined()
    expect(await flagFor("cy", "inbox-zero")).toBe(false)
  })

  it("releases through an existing flag, and refuses what PostHog refuses with a 400 naming the field", async () => {
    const flag = (
      await send("POST", "/feature_flags/", { key: "new-editor", filters: { groups: [{ rollout_percentage: 10 }] } })
    ).json
    const linked = await send("POST", "/early_access_feature/", {
      name: "The new editor",
      stage: "beta",
      feature_flag_id: flag.id
    })
    expect(linked.status, linked.text).toBe(201)
    expect(linked.json.feature_flag).toMatchObject({
      id: flag.id,
      key: "new-editor",
      filters: { groups: [{ rollout_percentage: 10 }], super_groups: [expect.anything()] }
    })
    const multivariate = (
      await send("POST", "/feature_flags/", {
        key: "mv",
        filters: { multivariate: { variants: [{ key: "a", rollout_percentage: 100 }] } }
      })
    ).json

    const before = (await send("GET", "/early_access_feature/")).json.count
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ["unknown stage", { name: "X", stage: "gamma" }, "stage"],
      ["no name", { stage: "beta" }, "name"],
      ["blank name", { name: "  ", stage: "beta" }, "name"],
      ["a name with nothing to key", { name: "!!!", stage: "beta" }, "name"],
      ["a name whose key is taken", { name: "New editor", stage: "beta" }, "name"],
      ["unknown flag", { name: "Y", stage: "beta", feature_flag_id: 999_999 }, "feature_flag_id"],
      ["a flag with a feature", { name: "Z", stage: "beta", feature_flag_id: flag.id }, "feature_flag_id"],
      ["a multivariate flag", { name: "W", stage: "beta", feature_flag_id: multivariate.id }, "feature_flag_id"],
      ["documentation url", { name: "V", stage: "beta", documentation_url: "docs" }, "documentation_url"]
    ]
    for (const [what, body, attr] of cases) {
      const res = await send("POST", "/early_access_feature/", body)
      expect(res.status, `${what}: ${res.text}`).toBe(400)
      expect(res.json, what).toMatchObject({ type: "validation_error", detail: expect.any(String), attr })
    }
    expect((await send("GET", "/early_access_feature/")).json.count).toBe(before)
    expect((await send("PATCH", `/early_access_feature/${linked.json.id}/`, { stage: "gamma" })).json).toMatchObject({
      attr: "stage"
    })
  })

  it("answers 401 to the public list without a project's token", async () => {
    for (const path of ["/api/early_access_features/", "/api/early_access_features/?token=phc_unknown"]) {
      const res = await call(zed, path, { key: null })
      expect(res.status).toBe(401)
      expect(res.json).toMatchObject({ type: "authentication_error", attr: null })
    }
  })
})
