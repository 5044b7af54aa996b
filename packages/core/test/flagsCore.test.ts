import { describe, expect, it } from "@effect/vitest"
import { evaluateFlag, evaluateFlags } from "../src/flags/evaluate.js"
import { flagHash, holdoutHash } from "../src/flags/hash.js"
import type { CohortDefinition, EvaluationContext, FlagDefinition, FlagPropertyFilter } from "../src/flags/model.js"
import { context, flag, value, variants } from "./flagSupport.js"

// Evaluation order of one flag and of a request's flags: early access, holdout, conditions, reasons,
// bucketing, dependencies, request filters and failures.

const person = (key: string, operator: string, value: unknown): FlagPropertyFilter => ({
  key,
  type: "person",
  operator,
  value
})
const dependsOn = (key: string, value: unknown, extra: Partial<FlagPropertyFilter> = {}): FlagPropertyFilter => ({
  key,
  type: "flag",
  operator: "flag_evaluates_to",
  value,
  ...extra
})
const valuesOf = (flags: ReadonlyArray<FlagDefinition>, ctx: EvaluationContext) =>
  Object.fromEntries(
    [...evaluateFlags(flags, ctx).results].map(([key, r]) => [key, r.enabled ? (r.variant ?? true) : false])
  )

/** The first of `ids` whose hash for `key` satisfies `test`: lets tests name a bucket, not a magic id. */
const idWhere = (key: string, test: (hash: number) => boolean, salt = "") => {
  for (let i = 0; i < 10_000; i++) if (test(flagHash(key, `id-${i}`, salt))) return `id-${i}`
  throw new Error("no such id")
}

describe("early access", () => {
  const payloads = { true: '{"beta":true}' }

  it("feature_enrollment: the person's enrollment decides, then conditions", () => {
    const f = flag("eap", {
      feature_enrollment: true,
      groups: [{ properties: [person("plan", "exact", "pro")] }],
      payloads
    })
    const enrolled = (v: unknown) =>
      evaluateFlag(f, context({ personProperties: { "$feature_enrollment/eap": v, plan: "pro" } }))
    expect(enrolled(true)).toEqual({
      key: "eap",
      enabled: true,
      variant: null,
      reason: { code: "super_condition_value", condition_index: 0, description: "Super condition value" },
      payload: '{"beta":true}',
      failed: false
    })
    expect(enrolled("true").enabled).toBe(true)
    // Opted out wins over matching conditions.
    expect(enrolled(false)).toMatchObject({ enabled: false, reason: { code: "super_condition_value" } })
    expect(enrolled("TRUE").enabled).toBe(false)
    expect(evaluateFlag(f, context({ personProperties: { plan: "pro" } }))).toMatchObject({
      enabled: true,
      reason: { code: "condition_match" }
    })
  })

  it("legacy super_groups: evaluated only when the person has one of its keys", () => {
    const superGroups = [{ properties: [person("$feature_enrollment/old", "exact", ["true"])] }]
    const f = flag("old", { super_groups: superGroups, groups: [{ properties: [], rollout_percentage: 100 }] })
    expect(evaluateFlag(f, context({ personProperties: { "$feature_enrollment/old": false } }))).toMatchObject({
      enabled: false,
      reason: { code: "super_condition_value", condition_index: 0 }
    })
    expect(evaluateFlag(f, context({ personProperties: { "$feature_enrollment/old": true } })).enabled).toBe(true)
    expect(evaluateFlag(f, context()).reason.code).toBe("condition_match")
    // The new form takes precedence: without its property, super_groups are not consulted.
    const both = flag("both", {
      feature_enrollment: true,
      super_groups: superGroups,
      groups: [{ properties: [], rollout_percentage: 0 }]
    })
    expect(evaluateFlag(both, context({ personProperties: { "$feature_enrollment/old": true } })).reason.code).toBe(
      "out_of_rollout_bound"
    )
  })

  it("comes before the holdout", () => {
    const f = flag("eh", { feature_enrollment: true, holdout: { id: 3, exclusion_percentage: 100 }, groups: [] })
    expect(evaluateFlag(f, context({ personProperties: { "$feature_enrollment/eh": true } })).reason.code).toBe(
      "super_condition_value"
    )
    expect(evaluateFlag(f, context()).variant).toBe("holdout-3")
  })
})

describe("holdout", () => {
  it("100% holds out everyone, 0% only a zero hash; the id uses the flag's aggregation", () => {
    const all = flag("h", { holdout: { id: 1, exclusion_percentage: 100 }, groups: [{ properties: [] }] })
    expect(value(all, context())).toBe("holdout-1")
    const none = flag("h", { holdout: { id: 1, exclusion_percentage: 0 }, groups: [{ properties: [] }] })
    expect(value(none, context())).toBe(true)
    const group = flag("g", {
      aggregation_group_type_index: 0,
      holdout: { id: 2, exclusion_percentage: 10 },
      groups: [{ properties: [] }]
    })
    expect(value(group, context({ distinctId: "user-1", groups: { company: "acme-inc" } }))).toBe("holdout-2")
    expect(holdoutHash("user-1")).toBeGreaterThan(0.1)
    expect(value(group, context({ distinctId: "acme-inc", groups: { company: "user-1" } }))).toBe(true)
  })

  it('hashes a missing group key as empty, as the service does (sha1("holdout-") ≈ 0.927)', () => {
    const group = (exclusion_percentage: number) =>
      flag("g", {
        aggregation_group_type_index: 0,
        holdout: { id: 2, exclusion_percentage },
        groups: [{ properties: [] }]
      })
    expect(holdoutHash("")).toBeCloseTo(0.9269, 4)
    expect(value(group(100), context())).toBe("holdout-2")
    expect(value(group(95), context())).toBe("holdout-2")
    expect(evaluateFlag(group(50), context()).reason.code).toBe("no_group_type")
  })

  it("legacy holdout_groups: the group's rollout is the exclusion", () => {
    const legacy = flag("lh", {
      holdout_groups: [{ properties: [], rollout_percentage: 10, variant: "holdout-9" }],
      groups: [{ properties: [] }]
    })
    expect(value(legacy, context({ distinctId: "acme-inc" }))).toBe("holdout-9")
    expect(value(legacy, context({ distinctId: "user-1" }))).toBe(true)
    const withProperties = flag("lh", {
      holdout_groups: [{ properties: [person("a", "is_set", null)], rollout_percentage: 100, variant: "x" }],
      groups: [{ properties: [] }]
    })
    expect(value(withProperties, context({ personProperties: { a: 1 } }))).toBe(true)
  })
})

describe("conditions", () => {
  it("are tried in array order: the first match wins, variant overrides are not sorted first", () => {
    const f = flag("order", {
      groups: [
        { properties: [person("plan", "exact", "pro")] },
        { properties: [person("plan", "exact", "pro")], variant: "b" }
      ],
      multivariate: variants(["a", 100], ["b", 0])
    })
    expect(evaluateFlag(f, context({ personProperties: { plan: "pro" } }))).toMatchObject({
      variant: "a",
      reason: { condition_index: 0 }
    })
  })

  it("ignore a variant override that is not a variant", () => {
    const f = flag("o", { groups: [{ properties: [], variant: "ghost" }], multivariate: variants(["a", 100]) })
    expect(value(f, context())).toBe("a")
    const boolean = flag("o", { groups: [{ properties: [], variant: "ghost" }] })
    expect(value(boolean, context())).toBe(true)
  })

  it("give no variant past the last bucket and use the payload of true", () => {
    const id = idWhere("short", (h) => h >= 0.5, "variant")
    const f = flag("short", {
      groups: [{ properties: [] }],
      multivariate: variants(["a", 50]),
      payloads: { true: "plain", a: "A" }
    })
    expect(evaluateFlag(f, context({ distinctId: id }))).toMatchObject({
      enabled: true,
      variant: null,
      payload: "plain"
    })
  })

  it("check the rollout inclusively, and not at all at 100% or null", () => {
    const id = idWhere("r", (h) => h > 0.25 && h < 0.26)
    const pct = Math.floor(flagHash("r", id) * 1e6) / 1e4
    expect(
      value(flag("r", { groups: [{ properties: [], rollout_percentage: pct + 0.0001 }] }), context({ distinctId: id }))
    ).toBe(true)
    expect(
      value(flag("r", { groups: [{ properties: [], rollout_percentage: pct }] }), context({ distinctId: id }))
    ).toBe(false)
    expect(
      value(flag("r", { groups: [{ properties: [], rollout_percentage: null }] }), context({ distinctId: "" }))
    ).toBe(true)
    // An empty distinct id hashes to 0: in any rollout, even 0%.
    expect(value(flag("r", { groups: [{ properties: [], rollout_percentage: 0 }] }), context({ distinctId: "" }))).toBe(
      true
    )
  })

  it("read person_metadata filters from prefixed person properties", () => {
    const f = flag("meta", {
      groups: [
        {
          properties: [{ key: "created_at", type: "person_metadata", operator: "is_date_before", value: "2025-01-01" }]
        }
      ]
    })
    expect(
      value(f, context({ personProperties: { __posthog_person_metadata__created_at: "2024-05-01T00:00:00Z" } }))
    ).toBe(true)
    expect(value(f, context({ personProperties: { created_at: "2024-05-01T00:00:00Z" } }))).toBe(false)
  })

  it("evaluate flag and property filters in order, then cohorts, then the rollout", () => {
    const cohorts = new Map<number, CohortDefinition>([
      [1, { id: 1, is_static: false, properties: { type: "AND", values: [person("x", "exact", "1")] } }]
    ])
    const f = flag("cf", {
      groups: [{ properties: [{ key: "id", type: "cohort", value: 1 }, person("plan", "exact", "pro")] }]
    })
    expect(value(f, context({ cohorts, personProperties: { x: "1", plan: "pro" } }))).toBe(true)
    expect(value(f, context({ cohorts, personProperties: { x: "2", plan: "pro" } }))).toBe(false)
    expect(value(f, context({ cohorts, personProperties: { x: "1", plan: "free" } }))).toBe(false)
  })
})

describe("reasons for no match", () => {
  it("keep the highest-scoring reason, ties going to the later condition", () => {
    const out = idWhere("why", (h) => h > 0.5)
    const f = flag("why", {
      groups: [
        { properties: [person("plan", "exact", "pro")], rollout_percentage: 50 },
        { properties: [person("plan", "exact", "nope")] },
        { properties: [person("plan", "exact", "pro")], rollout_percentage: 50 },
        { properties: [], aggregation_group_type_index: 0 }
      ]
    })
    expect(evaluateFlag(f, context({ distinctId: out, personProperties: { plan: "pro" } })).reason).toEqual({
      code: "out_of_rollout_bound",
      condition_index: 2,
      description: "Out of rollout bound"
    })
    expect(evaluateFlag(f, context({ distinctId: out, personProperties: { plan: "free" } })).reason).toEqual({
      code: "no_condition_match",
      condition_index: 2,
      description: "No matching condition set (group conditions were not evaluated because no group type was provided)"
    })
    const plain = flag("plain", {
      groups: [{ properties: [person("plan", "exact", "x")] }, { properties: [person("plan", "exact", "y")] }]
    })
    expect(evaluateFlag(plain, context()).reason).toEqual({
      code: "no_condition_match",
      condition_index: 1,
      description: "No matching condition set"
    })
  })

  it("default to no_group_type with no index for a flag without conditions", () => {
    expect(evaluateFlag(flag("empty", { groups: [] }), context()).reason).toEqual({
      code: "no_group_type",
      condition_index: null,
      description: "No group type"
    })
  })
})

describe("bucketing", () => {
  it("group conditions hash the group key, person conditions the distinct id (mixed targeting)", () => {
    const f = flag("mixed", {
      groups: [
        {
          properties: [{ key: "seats", type: "group", group_type_index: 0, operator: "gt", value: 10 }],
          aggregation_group_type_index: 0,
          rollout_percentage: 50
        },
        { properties: [person("plan", "exact", "pro")], aggregation_group_type_index: null }
      ]
    })
    const inBucket = idWhere("mixed", (h) => h <= 0.5)
    const outBucket = idWhere("mixed", (h) => h > 0.5)
    const ctx = (key: string) =>
      context({ distinctId: outBucket, groups: { company: key }, groupProperties: { company: { seats: 20 } } })
    expect(evaluateFlag(f, ctx(inBucket))).toMatchObject({ enabled: true, reason: { condition_index: 0 } })
    expect(evaluateFlag(f, ctx(outBucket)).reason.code).toBe("out_of_rollout_bound")
    expect(evaluateFlag(f, context({ personProperties: { plan: "pro" } }))).toMatchObject({
      enabled: true,
      reason: { condition_index: 1 }
    })
    // A person filter reads person properties even in a group condition.
    const personInGroup = flag("pg", {
      aggregation_group_type_index: 0,
      groups: [{ properties: [person("plan", "exact", "pro")] }]
    })
    expect(value(personInGroup, context({ groups: { company: "c" }, personProperties: { plan: "pro" } }))).toBe(true)
  })

  it("group flags skip conditions when the group (or its key) is missing", () => {
    const f = flag("gf", { aggregation_group_type_index: 1, groups: [{ properties: [] }] })
    expect(evaluateFlag(f, context({ groups: { company: "c" } })).reason.code).toBe("no_group_type")
    expect(evaluateFlag(f, context({ groups: { organization: "" } })).reason.code).toBe("no_group_type")
    expect(value(f, context({ groups: { organization: "o" } }))).toBe(true)
    const unmapped = flag("gf", { aggregation_group_type_index: 4, groups: [{ properties: [] }] })
    expect(evaluateFlag(unmapped, context({ groups: { company: "c" } })).reason.code).toBe("no_group_type")
  })

  it("device_id bucketing hashes $device_id; without one, person conditions are out of rollout", () => {
    const f = flag(
      "dev",
      { groups: [{ properties: [], rollout_percentage: 50 }] },
      { bucketing_identifier: "device_id" }
    )
    const inDevice = idWhere("dev", (h) => h <= 0.5)
    const outDevice = idWhere("dev", (h) => h > 0.5)
    expect(value(f, context({ distinctId: outDevice, deviceId: inDevice }))).toBe(true)
    expect(value(f, context({ distinctId: inDevice, deviceId: outDevice }))).toBe(false)
    expect(evaluateFlag(f, context({ distinctId: inDevice }))).toMatchObject({
      enabled: false,
      reason: { code: "out_of_rollout_bound", condition_index: 0 }
    })
    expect(evaluateFlag(f, context({ distinctId: inDevice, deviceId: "" })).reason.code).toBe("out_of_rollout_bound")
    // Group conditions still match without a device id.
    const group = flag(
      "devg",
      { aggregation_group_type_index: 0, groups: [{ properties: [] }] },
      { bucketing_identifier: "device_id" }
    )
    expect(value(group, context({ groups: { company: "c" } }))).toBe(true)
  })

  it("experience continuity: stored hash key, then $anon_distinct_id, then the distinct id", () => {
    const inId = idWhere("ec", (h) => h <= 0.5)
    const outId = idWhere("ec", (h) => h > 0.5)
    const f = flag(
      "ec",
      { groups: [{ properties: [], rollout_percentage: 50 }] },
      { ensure_experience_continuity: true }
    )
    expect(value(f, context({ distinctId: outId, anonDistinctId: inId }))).toBe(true)
    expect(value(f, context({ distinctId: outId, anonDistinctId: inId, hashKeyOverrides: { ec: outId } }))).toBe(false)
    expect(value(f, context({ distinctId: inId, hashKeyOverrides: { other: outId } }))).toBe(true)
    expect(value(f, context({ distinctId: inId, anonDistinctId: "$posthog_cookieless" }))).toBe(true)
    // Without continuity the anonymous id is ignored.
    const plain = flag("ec", { groups: [{ properties: [], rollout_percentage: 50 }] })
    expect(value(plain, context({ distinctId: outId, anonDistinctId: inId }))).toBe(false)
  })
})

describe("flag dependencies", () => {
  it("match on enabled, disabled or a variant, naming the dependency by id (stored) or key (served)", () => {
    const base = flag("base", { groups: [{ properties: [] }], multivariate: variants(["v1", 100]) })
    const off = flag("off-dep", { groups: [{ properties: [], rollout_percentage: 0 }] })
    const byId = flag("by-id", {
      groups: [{ properties: [dependsOn(String(base.id), "v1"), dependsOn(String(off.id), false)] }]
    })
    const byKey = flag("by-key", {
      groups: [{ properties: [dependsOn("base", true, { dependency_chain: ["base"] })] }]
    })
    const wrongVariant = flag("wrong", {
      groups: [{ properties: [dependsOn("base", "v2", { dependency_chain: ["base"] })] }]
    })
    const notFalse = flag("nf", {
      groups: [{ properties: [dependsOn("base", false, { dependency_chain: ["base"] })] }]
    })
    expect(valuesOf([byId, byKey, wrongVariant, notFalse, base, off], context())).toEqual({
      "by-id": true,
      "by-key": true,
      wrong: false,
      nf: false,
      base: "v1",
      "off-dep": false
    })
  })

  it("evaluate chains in topological order and return only the requested flags", () => {
    const a = flag("a", { groups: [{ properties: [dependsOn("b", true, { dependency_chain: ["c", "b"] })] }] })
    const b = flag("b", { groups: [{ properties: [dependsOn("c", true, { dependency_chain: ["c"] })] }] })
    const c = flag("c", { groups: [{ properties: [person("plan", "exact", "pro")] }] })
    expect(valuesOf([a, b, c], context({ personProperties: { plan: "pro" } }))).toEqual({ a: true, b: true, c: true })
    expect(valuesOf([a, b, c], context({ personProperties: { plan: "free" } }))).toEqual({
      a: false,
      b: false,
      c: false
    })
    expect(valuesOf([a, b, c], context({ personProperties: { plan: "pro" }, flagKeys: ["a", "nope"] }))).toEqual({
      a: true
    })
  })

  it("fail missing and circular dependencies, and their dependents, as missing_dependency", () => {
    const self = flag("self", { groups: [] })
    const selfRef = { ...self, filters: { groups: [{ properties: [dependsOn(String(self.id), true)] }] } }
    const x = flag("x", { groups: [{ properties: [dependsOn("y", true, { dependency_chain: ["y"] })] }] })
    const y = flag("y", { groups: [{ properties: [dependsOn("x", true, { dependency_chain: ["x"] })] }] })
    const onCycle = flag("on-cycle", {
      groups: [{ properties: [dependsOn("x", true, { dependency_chain: [] })] }, { properties: [] }]
    })
    const missing = flag("missing", { groups: [{ properties: [dependsOn("99999", true)] }, { properties: [] }] })
    const fine = flag("fine", { groups: [{ properties: [] }] })
    const { results, errors } = evaluateFlags([selfRef, x, y, onCycle, missing, fine], context())
    for (const key of ["self", "x", "y", "on-cycle", "missing"]) {
      expect(results.get(key)).toEqual({
        key,
        enabled: false,
        variant: null,
        reason: {
          code: "missing_dependency",
          condition_index: null,
          description: "Flag cannot be evaluated due to missing dependency"
        },
        payload: null,
        failed: false
      })
    }
    expect(results.get("fine")!.enabled).toBe(true)
    expect(errors).toBe(false)
  })

  it("read inactive, deleted and request-filtered dependencies as false", () => {
    const inactive = flag("inactive", { groups: [{ properties: [] }] }, { active: false })
    const deleted = flag("deleted", { groups: [{ properties: [] }] }, { deleted: true })
    const clientOnly = flag("client-only", { groups: [{ properties: [] }] }, { evaluation_runtime: "client" })
    const onInactive = flag("on-inactive", { groups: [{ properties: [dependsOn(String(inactive.id), false)] }] })
    const onDeleted = flag("on-deleted", {
      groups: [{ properties: [dependsOn("deleted", false, { dependency_chain: ["deleted"] })] }]
    })
    const onClient = flag("on-client", { groups: [{ properties: [dependsOn(String(clientOnly.id), false)] }] })
    expect(
      valuesOf([inactive, deleted, clientOnly, onInactive, onDeleted, onClient], context({ runtime: "server" }))
    ).toEqual({
      "on-inactive": true,
      "on-deleted": true,
      "on-client": true
    })
  })
})

describe("request filters", () => {
  const all = flag("all", { groups: [{ properties: [] }] })
  const server = flag("server", { groups: [{ properties: [] }] }, { evaluation_runtime: "server" })
  const client = flag("client", { groups: [{ properties: [] }] }, { evaluation_runtime: "client" })
  const web = flag("web", { groups: [{ properties: [] }] }, { evaluation_contexts: ["web", "docs"] })
  const app = flag("app", { groups: [{ properties: [] }] }, { evaluation_contexts: ["app"] })
  const keys = (ctx: EvaluationContext) => [...evaluateFlags([all, server, client, web, app], ctx).results.keys()]

  it("runtime: client flags are skipped for server requests and vice versa", () => {
    expect(keys(context({ runtime: "server" }))).toEqual(["all", "server", "web", "app"])
    expect(keys(context({ runtime: "client" }))).toEqual(["all", "client", "web", "app"])
    expect(keys(context())).toEqual(["all", "server", "client", "web", "app"])
  })

  it("evaluation contexts: a tagged flag needs one of the request's tags", () => {
    expect(keys(context({ evaluationContexts: ["web"] }))).toEqual(["all", "server", "client", "web"])
    expect(keys(context({ evaluationContexts: [] }))).toEqual(["all", "server", "client", "web", "app"])
  })

  it("flag keys: only those, in definition order", () => {
    expect(keys(context({ flagKeys: ["app", "all"] }))).toEqual(["all", "app"])
  })
})

describe("unavailable cohorts", () => {
  it("fail the flags that need them (directly or nested); the others still evaluate", () => {
    const cohorts = new Map<number, CohortDefinition>([
      [1, { id: 1, is_static: true, properties: null }],
      [2, { id: 2, is_static: false, properties: { type: "OR", values: [{ key: "id", type: "cohort", value: 1 }] } }]
    ])
    const direct = flag("direct", { groups: [{ properties: [{ key: "id", type: "cohort", value: 1 }] }] })
    const nested = flag("nested", {
      groups: [{ properties: [] }, { properties: [{ key: "id", type: "cohort", value: "2" }] }]
    })
    const dependent = flag("dependent", {
      groups: [{ properties: [dependsOn("direct", false, { dependency_chain: ["direct"] })] }]
    })
    const fine = flag("fine", { groups: [{ properties: [] }] })
    const { results, errors } = evaluateFlags(
      [direct, nested, dependent, fine],
      context({ cohorts, unavailableCohorts: new Set([1]) })
    )
    expect(errors).toBe(true)
    for (const key of ["direct", "nested"]) {
      expect(results.get(key)).toEqual({
        key,
        enabled: false,
        variant: null,
        reason: {
          code: "evaluation_error",
          condition_index: null,
          description: "Could not evaluate: cohort data unavailable"
        },
        payload: null,
        failed: true
      })
    }
    // A failed flag has no value to depend on.
    expect(results.get("dependent")).toMatchObject({
      enabled: false,
      failed: false,
      reason: { code: "no_condition_match" }
    })
    expect(results.get("fine")).toMatchObject({ enabled: true, failed: false })
    expect(evaluateFlags([direct, fine], context({ cohorts, staticCohorts: new Set([1]) }))).toMatchObject({
      errors: false
    })
  })
})

describe("cohorts", () => {
  const c = (id: number, properties: CohortDefinition["properties"], is_static = false): [number, CohortDefinition] => [
    id,
    { id, is_static, properties }
  ]
  const inCohort = (id: number, operator = "in"): FlagPropertyFilter => ({
    key: "id",
    type: "cohort",
    value: id,
    operator
  })

  it("combine AND/OR groups, negation, nesting and static membership", () => {
    const cohorts = new Map([
      c(1, null, true),
      c(2, {
        type: "AND",
        values: [person("plan", "exact", "pro"), { ...person("email", "icontains", "@spam"), negation: true }]
      }),
      c(3, {
        type: "OR",
        values: [
          { type: "AND", values: [inCohort(1)] },
          { type: "AND", values: [inCohort(2)] }
        ]
      }),
      c(4, { type: "OR", values: [] }),
      c(5, { type: "AND", values: [] })
    ])
    const ctx = (personProperties: Record<string, unknown>, members: Array<number> = []) =>
      context({ cohorts, personProperties, staticCohorts: new Set(members) })
    const f = (id: number, operator?: string) => flag("c", { groups: [{ properties: [inCohort(id, operator)] }] })
    expect(value(f(2), ctx({ plan: "pro", email: "a@b.c" }))).toBe(true)
    expect(value(f(2), ctx({ plan: "pro", email: "a@spam.c" }))).toBe(false)
    expect(value(f(2), ctx({ plan: "pro" }))).toBe(true)
    expect(value(f(3), ctx({}, [1]))).toBe(true)
    expect(value(f(3), ctx({ plan: "pro" }))).toBe(true)
    expect(value(f(3), ctx({}))).toBe(false)
    expect(value(f(3, "not_in"), ctx({}))).toBe(true)
    expect(value(f(4), ctx({}))).toBe(false)
    expect(value(f(5), ctx({}))).toBe(true)
    expect(value(f(404), ctx({}))).toBe(false)
    expect(value(f(404, "not_in"), ctx({}))).toBe(true)
  })

  it("do not hang on cycles: a cyclic cohort matches neither in nor not_in", () => {
    const cohorts = new Map([
      c(7, { type: "OR", values: [inCohort(8), person("a", "is_set", null)] }),
      c(8, { type: "AND", values: [inCohort(7)] })
    ])
    const ctx = context({ cohorts, personProperties: { b: 1 } })
    expect(value(flag("c", { groups: [{ properties: [inCohort(7)] }] }), ctx)).toBe(false)
    expect(value(flag("c", { groups: [{ properties: [inCohort(7, "not_in")] }] }), ctx)).toBe(false)
    expect(value(flag("c", { groups: [{ properties: [inCohort(8, "not_in")] }] }), ctx)).toBe(false)
  })
})
