import { describe, expect, it } from "@effect/vitest"
import {
  CohortStore,
  FlagInputs,
  FlagStore,
  OrganizationStore,
  PersonStore,
  ProjectStore,
  UsageStore
} from "@zed/core/storage"
import { ingest } from "../../core/src/ingest/writer.js"
import { Effect, Option } from "effect"
import { backends as storageBackends, incomingEvent, suiteStorage } from "./backends.js"

// The flag and cohort stores and the one-round-trip flag inputs, alike on every backend.

const backends = storageBackends("flags")
const event = incomingEvent

const flag = (key: string) => ({
  key,
  name: `The ${key} flag`,
  filters: { groups: [{ properties: [{ key: "plan", type: "person", value: "pro" }], rollout_percentage: 50 }] },
  active: true,
  ensure_experience_continuity: false,
  bucketing_identifier: null,
  evaluation_runtime: "all" as const,
  evaluation_contexts: ["web"],
  tags: ["checkout"],
  created_by: 1
})

describe.each(Object.keys(backends))("%s", (name) => {
  const suite = suiteStorage(backends[name]!)
  const { run } = suite

  it("flags: create, find, list, update (version bump), unique live keys, soft delete", async () => {
    const flags = await run(FlagStore)
    const created = await run(flags.create(1, flag("beta")))
    expect(created).toMatchObject({
      ...flag("beta"),
      version: 1,
      deleted: false,
      has_experiment: false,
      last_modified_by: 1
    })
    expect(Option.getOrThrow(await run(flags.findByKey(1, "beta"))).id).toBe(created.id)
    const twin = await run(Effect.either(flags.create(1, flag("beta"))))
    expect(twin._tag === "Left" && twin.left.conflict).toBe(true)

    const updated = Option.getOrThrow(
      await run(flags.update(1, created.id, { active: false, bucketing_identifier: "device_id", last_modified_by: 1 }))
    )
    expect(updated).toMatchObject({
      active: false,
      bucketing_identifier: "device_id",
      version: 2,
      name: "The beta flag",
      tags: ["checkout"]
    })
    await run(flags.create(1, flag("gamma")))
    expect((await run(flags.list(1, { active: false, limit: 10, offset: 0 }))).results.map((f) => f.key)).toEqual([
      "beta"
    ])
    expect((await run(flags.list(1, { search: "GAM", limit: 10, offset: 0 }))).results.map((f) => f.key)).toEqual([
      "gamma"
    ])

    await run(flags.update(1, created.id, { deleted: true, last_modified_by: 1 }))
    expect(Option.isNone(await run(flags.get(1, created.id)))).toBe(true)
    const reborn = await run(flags.create(1, flag("beta")))
    expect(reborn.id).not.toBe(created.id)
    expect((await run(flags.all(1))).map((f) => f.key)).toEqual(["gamma", "beta"])
  })

  it("cohorts: dynamic definitions, static members by person uuid", async () => {
    await run(
      ingest([
        { projectId: 1, events: [event("$identify", "m1", { $set: { plan: "pro" } }), event("$identify", "m2")] }
      ])
    )
    const persons = (await run(Effect.flatMap(PersonStore, (s) => s.list(1, { properties: [], limit: 10, offset: 0 }))))
      .results
    const cohorts = await run(CohortStore)
    const properties = {
      type: "OR" as const,
      values: [{ type: "AND" as const, values: [{ key: "plan", type: "person", value: ["pro"] }] }]
    }
    const dynamic = await run(
      cohorts.create(1, { name: "Paying", description: "", properties, is_static: false, created_by: 1 })
    )
    expect(dynamic).toMatchObject({ properties, is_static: false, count: null })
    const fixed = await run(
      cohorts.create(1, { name: "Beta", description: "d", properties: null, is_static: true, created_by: 1 })
    )
    const uuids = persons.map((p) => p.uuid)
    expect(await run(cohorts.addPersons(1, fixed.id, [...uuids, "00000000-0000-4000-8000-000000000000"]))).toBe(2)
    expect(await run(cohorts.addPersons(1, fixed.id, uuids))).toBe(0)
    expect(Option.getOrThrow(await run(cohorts.get(1, fixed.id))).count).toBe(2)
    expect(await run(cohorts.persons(1, fixed.id, { limit: 1, offset: 0 }))).toMatchObject({
      count: 2,
      results: [expect.objectContaining({ uuid: expect.any(String) })]
    })
    const renamed = Option.getOrThrow(await run(cohorts.update(1, dynamic.id, { name: "Payers" })))
    expect(renamed).toMatchObject({ name: "Payers", properties, version: 2 })
    expect((await run(cohorts.all(1))).map((c) => c.name).sort()).toEqual(["Beta", "Payers"])
  })

  it("flag inputs: person, groups, static cohorts and continuity overrides in one call", async () => {
    await run(
      ingest([
        {
          projectId: 1,
          events: [
            event("$groupidentify", "m1", { $group_type: "company", $group_key: "acme", $group_set: { seats: 25 } }),
            event("$pageview", "anon-9")
          ]
        }
      ])
    )
    const fixed = (await run(Effect.flatMap(CohortStore, (s) => s.all(1)))).find((c) => c.is_static)!
    const inputs = await run(FlagInputs)
    const load = (distinctId: string, continuity?: { flagKeys: Array<string>; anonDistinctId: string }) =>
      run(
        inputs.load(1, {
          distinctId,
          groups: [
            { index: 0, key: "acme" },
            { index: 0, key: "nowhere" }
          ],
          staticCohortIds: [fixed.id],
          continuity
        })
      )

    const m1 = await load("m1")
    expect(m1.personProperties).toMatchObject({ plan: "pro" })
    expect([...m1.staticCohorts]).toEqual([fixed.id])
    expect(m1.groupProperties.get(0)?.get("acme")).toEqual({ seats: 25 })
    expect(m1.groupProperties.get(0)?.has("nowhere")).toBe(false)
    expect(m1.hashKeyOverrides).toEqual({})
    expect(await load("nobody")).toMatchObject({ personProperties: null, hashKeyOverrides: {} })

    // The anonymous visitor gets overrides for the continuity flags; the next call reads them back.
    const anon = await load("anon-9", { flagKeys: ["a", "b"], anonDistinctId: "anon-9" })
    expect(anon.hashKeyOverrides).toEqual({ a: "anon-9", b: "anon-9" })
    expect((await load("anon-9", { flagKeys: ["a", "c"], anonDistinctId: "someone-else" })).hashKeyOverrides).toEqual({
      a: "anon-9",
      b: "anon-9",
      c: "someone-else"
    })
    expect((await load("anon-9")).hashKeyOverrides).toEqual({ a: "anon-9", b: "anon-9", c: "someone-else" })
  })

  it("hash key overrides follow a person merged into another", async () => {
    const inputs = await run(FlagInputs)
    await run(ingest([{ projectId: 1, events: [event("e", "merge-from"), event("e", "merge-into")] }]))
    await run(
      inputs.load(1, {
        distinctId: "merge-from",
        groups: [],
        staticCohortIds: [],
        continuity: { flagKeys: ["kept"], anonDistinctId: "merge-from" }
      })
    )
    await run(ingest([{ projectId: 1, events: [event("$merge_dangerously", "merge-into", { alias: "merge-from" })] }]))
    const merged = await run(
      inputs.load(1, { distinctId: "merge-into", groups: [], staticCohortIds: [], continuity: undefined })
    )
    expect(merged.hashKeyOverrides).toEqual({ kept: "merge-from" })
  })

  it("flag inputs: many distinct ids' person properties in one call, merged ids included", async () => {
    await run(
      ingest([
        {
          projectId: 1,
          events: [
            event("$identify", "many-1", { $set: { plan: "pro" } }),
            event("$identify", "many-2", { $set: { plan: "free" } }),
            event("$identify", "many-1", { $anon_distinct_id: "many-anon" })
          ]
        }
      ])
    )
    const inputs = await run(FlagInputs)
    const found = await run(inputs.persons(1, ["many-1", "many-2", "many-anon", "many-nobody"]))
    expect([...found.keys()].sort()).toEqual(["many-1", "many-2", "many-anon"])
    expect([found.get("many-1")?.plan, found.get("many-2")?.plan, found.get("many-anon")?.plan]).toEqual([
      "pro",
      "free",
      "pro"
    ])
    expect((await run(inputs.persons(suite.other, ["many-1"]))).size).toBe(0)
    expect((await run(inputs.persons(1, []))).size).toBe(0)
  })

  it("usage: totals per organization and period across calls; the quota lives on the organization", async () => {
    const org = Option.getOrThrow(await run(Effect.flatMap(ProjectStore, (s) => s.get(1)))).organization
    const usage = await run(UsageStore)
    expect(await run(usage.addFlagEvaluations(org, "2026-11", 5))).toBe(5)
    expect(await run(usage.addFlagEvaluations(org, "2026-11", 3))).toBe(8)
    expect(await run(usage.addFlagEvaluations(org, "2026-12", 1))).toBe(1)
    const organizations = await run(OrganizationStore)
    expect(
      Option.getOrThrow(await run(organizations.update(org, { flag_evaluation_quota: 100 }))).flag_evaluation_quota
    ).toBe(100)
    expect(Option.getOrThrow(await run(organizations.update(org, { name: "Renamed" })))).toMatchObject({
      name: "Renamed",
      flag_evaluation_quota: 100
    })
    expect(
      Option.getOrThrow(await run(organizations.update(org, { flag_evaluation_quota: null }))).flag_evaluation_quota
    ).toBeNull()
  })
})
