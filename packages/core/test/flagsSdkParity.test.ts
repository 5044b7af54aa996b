import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { getFeatureFlagHash, InconclusiveMatchError, matchFeatureFlagProperty } from "@posthog/core"
import fc from "fast-check"
import { PostHog } from "posthog-node"
import { evaluateFlags } from "../src/flags/evaluate.js"
import { flagHash, holdoutHash } from "../src/flags/hash.js"
import type {
  CohortDefinition,
  EvaluationContext,
  FlagCondition,
  FlagDefinition,
  FlagFilters,
  FlagPropertyFilter,
  PropertyGroup
} from "../src/flags/model.js"
import { matchProperty, parseRustFloat } from "../src/flags/properties.js"

// Zed against posthog-node 5.70.0's own local evaluation, on random definitions and persons. The SDK
// is driven through its public client: `fetch` is stubbed to serve the definitions (no network),
// polling is off, and `getAllFlagsAndPayloads(..., { onlyEvaluateLocally: true })` returns only the
// flags it could decide locally. Flags it leaves out are inconclusive (it would ask the server) and
// are not compared.
//
// Where the spec says the server [srv] and the SDK [sdk] differ, the generators stay out of the
// difference, or the comparison skips the case:
// - Absent keys: the SDK is inconclusive where the server answers, and then tries the next
//   condition. A positive operator on an absent key is false on the server, so the SDK's answer
//   (when it gives one) agrees; a filter that is true on an absent key (is_not, not_*, is_not_set, a
//   negated cohort filter, a positive one inside a `not_in` cohort) is skipped, as are flags
//   depending on a flag the SDK left undecided (the server has a value for it).
// - device_id bucketing: the SDK needs $device_id even for group conditions; without it the flag
//   is inconclusive there (and skipped through the rule above for its dependents).
// - gt/gte/lt/lte: only numeric values on both sides (the SDK compares non-numeric text as strings).
// - exact: no integer values (the SDK cannot tell 5 from 5.0 and is inconclusive).
// - Dates: team time zone UTC, property dates as text only (the SDK reads numbers as milliseconds,
//   the server as seconds).
// - Semver: no prerelease/build suffixes, no four-part versions, wildcards only as "N.*"/"N.N.*"
//   (the SDK compares major.minor.patch only, and reads "1.2" as a wildcard where the server reads a
//   caret requirement).
// - String operators take string filter values only (the SDK stringifies arrays differently).
// - No operators the SDK lacks (icontains_multi, between), no early access, legacy holdouts or
//   experience continuity (the SDK does not evaluate them locally), no empty group keys.
// - Filters read their own source: person filters only in person conditions, group filters only in
//   group conditions, cohorts only in person conditions of person flags (the SDK matches every
//   filter of a condition against that condition's properties).
// - Group flags with a holdout are skipped when the group is missing (the SDK answers false before
//   the holdout; the server hashes the empty group key for it).
// - Runtime and tags: all flags "all", no tags. Inactive flags: the SDK says false, Zed leaves them out.
// - Filter values are never null (the server reads null as "no value": no match).

/** FLAGS_PARITY_SCALE=50 runs fifty times the cases (a soak run; the default keeps the file quick). */
const SCALE = Number(process.env["FLAGS_PARITY_SCALE"] ?? 1)

const TEXT_VALUES = [
  "pro",
  "Pro",
  "free",
  "enterprise",
  "",
  "true",
  "TRUE",
  "false",
  "a@acme.com",
  "B@Example.COM",
  "x@other.org",
  "e.t"
]
const PERSON_DOMAINS: Record<string, ReadonlyArray<unknown>> = {
  plan: ["pro", "Pro", "free", "enterprise", "", "true", "TRUE", "false", true, false, null],
  email: ["a@acme.com", "B@Example.COM", "x@other.org", "pro@acme.io", "", "Ünïcode@acme.com", null],
  age: [20, 9, 18, 2.5, "20", "9", "18.0", "-1", "1e2", null],
  version: ["1.2.3", "1.10.0", "v2.0.0", "0.2.9", "1.2", "3.0.0", "0.0.3", "1.2.10"],
  signup: [
    "2024-01-15T10:00:00Z",
    "2023-12-31T23:00:00Z",
    "2025-06-01",
    "2024-01-01T00:00:00.000Z",
    "2026-01-01T00:00:00+02:00"
  ]
}
const GROUP_DOMAINS: Record<string, ReadonlyArray<unknown>> = {
  seats: [5, 25, 10, 10.5, "30", null],
  name: ["Acme", "initech", "globex", "", null]
}
const KIND: Record<string, "text" | "number" | "semver" | "date"> = {
  plan: "text",
  email: "text",
  name: "text",
  age: "number",
  seats: "number",
  version: "semver",
  signup: "date"
}

const NEGATIVE = new Set([
  "is_not",
  "is_not_set",
  "not_icontains",
  "not_starts_with",
  "not_ends_with",
  "not_regex",
  "not_icontains_multi",
  "not_between"
])

const exactValue = fc.oneof(
  fc.constantFrom(...TEXT_VALUES),
  fc.boolean(),
  fc.subarray(["pro", "Pro", "enterprise", "free", "a@acme.com"], { minLength: 1 }),
  fc.constantFrom(["true"], ["true", "false"], ["TRUE"], [false], [])
)

const filterFor = (key: string, type: "person" | "group"): fc.Arbitrary<FlagPropertyFilter> => {
  const base = type === "group" ? { key, type, group_type_index: 0 } : { key, type }
  const kind = KIND[key]!
  const pair = (operator: fc.Arbitrary<string>, value: fc.Arbitrary<unknown>) =>
    fc.record({ operator, value }).map((f) => ({ ...base, ...f }))
  switch (kind) {
    case "text":
      return fc.oneof(
        pair(fc.constantFrom("exact", "is_not"), exactValue),
        pair(
          fc.constantFrom("icontains", "not_icontains", "starts_with", "not_starts_with", "ends_with", "not_ends_with"),
          fc.constantFrom("acme", "PRO", "@", "com", "e", "r", "")
        ),
        pair(
          fc.constantFrom("regex", "not_regex"),
          fc.constantFrom("^pro", "com$", "^[a-z]+@", "e.t", "([", "o+", "^$")
        ),
        pair(fc.constantFrom("is_set", "is_not_set"), fc.constant("is_set"))
      )
    case "number":
      return pair(fc.constantFrom("gt", "gte", "lt", "lte"), fc.constantFrom(18, "18", 2.5, "-1", 0, 10, "25"))
    case "semver":
      return fc.oneof(
        pair(
          fc.constantFrom(
            "semver_eq",
            "semver_neq",
            "semver_gt",
            "semver_gte",
            "semver_lt",
            "semver_lte",
            "semver_tilde",
            "semver_caret"
          ),
          fc.constantFrom("1.2.3", "1.2", "0.2.3", "2.0.0", "1.10.0", "0.0.3", "v1.2.0")
        ),
        pair(fc.constant("semver_wildcard"), fc.constantFrom("1.*", "1.2.*", "0.*", "3.*"))
      )
    case "date":
      return pair(
        fc.constantFrom("is_date_before", "is_date_after"),
        fc.constantFrom(
          "2024-01-01",
          "2024-06-01T12:00:00Z",
          "-365d",
          "-2y",
          "-30d",
          "2025-01-01T00:00:00+05:00",
          "-18m"
        )
      )
  }
}

const personFilter = fc.constantFrom(...Object.keys(PERSON_DOMAINS)).chain((key) => filterFor(key, "person"))
const groupFilter = fc.constantFrom(...Object.keys(GROUP_DOMAINS)).chain((key) => filterFor(key, "group"))
const cohortFilter = fc
  .record({ id: fc.constantFrom(1, 2), operator: fc.constantFrom("in", "in", "not_in") })
  .map(({ id, operator }): FlagPropertyFilter => ({ key: "id", type: "cohort", value: id, operator }))

const cohortDefinition = (id: number): fc.Arbitrary<CohortDefinition> => {
  const leaf = fc
    .record({ filter: personFilter, negation: fc.boolean() })
    .map(({ filter, negation }): FlagPropertyFilter => (negation ? { ...filter, negation } : filter))
  const and = fc.array(leaf, { minLength: 1, maxLength: 2 }).map((values): PropertyGroup => ({ type: "AND", values }))
  const properties = fc.oneof(
    and,
    fc.array(and, { minLength: 1, maxLength: 2 }).map((values): PropertyGroup => ({ type: "OR", values }))
  )
  return properties.map((props) => ({ id, is_static: false, properties: props }))
}

const ROLLOUT = fc.constantFrom<number | null | undefined>(undefined, null, 0, 10, 33.3, 50, 75.5, 100, 100)
const SPLITS = [
  [50, 50],
  [33, 33, 34],
  [100, 0],
  [20, 30, 50],
  [10, 80],
  [0, 100]
]
const VARIANT_KEYS = ["control", "test", "test-2"]

interface Shape {
  readonly group: boolean
  readonly multivariate: boolean
}

const condition = (shape: Shape, dependencies: ReadonlyArray<string>): fc.Arbitrary<FlagCondition> => {
  const dependencyFilter =
    dependencies.length === 0
      ? fc.constant(undefined)
      : fc.option(
          fc
            .record({
              key: fc.constantFrom(...dependencies),
              value: fc.constantFrom<unknown>(true, false, "control", "test")
            })
            .map(
              ({ key, value }): FlagPropertyFilter => ({
                key,
                type: "flag",
                operator: "flag_evaluates_to",
                value,
                dependency_chain: [key]
              })
            ),
          { nil: undefined }
        )
  const mixedGroup = shape.group ? fc.constant(false) : fc.constantFrom(false, false, true)
  return fc
    .record({
      groupCondition: mixedGroup,
      personFilters: fc.array(
        fc.oneof({ weight: 4, arbitrary: personFilter }, { weight: 1, arbitrary: cohortFilter }),
        { maxLength: 2 }
      ),
      groupFilters: fc.array(groupFilter, { maxLength: 2 }),
      dependency: dependencyFilter,
      rollout: ROLLOUT,
      variant: fc.constantFrom<string | undefined>(undefined, undefined, "control", "test", "ghost")
    })
    .map(({ groupCondition, personFilters, groupFilters, dependency, rollout, variant }) => {
      const grouped = shape.group || groupCondition
      const properties = [
        ...(dependency === undefined ? [] : [dependency]),
        ...(grouped ? groupFilters : personFilters)
      ]
      return {
        properties,
        ...(rollout === undefined ? {} : { rollout_percentage: rollout }),
        ...(variant === undefined ? {} : { variant }),
        ...(groupCondition ? { aggregation_group_type_index: 0 } : {})
      }
    })
}

const flagDefinition = (index: number, dependencies: ReadonlyArray<string>): fc.Arbitrary<FlagDefinition> =>
  fc
    .record({ group: fc.constantFrom(false, false, true), multivariate: fc.boolean() })
    .chain((shape) =>
      fc.record({
        shape: fc.constant(shape),
        conditions: fc.array(condition(shape, dependencies), { minLength: 0, maxLength: 3 }),
        split: fc.constantFrom(...SPLITS),
        active: fc.constantFrom(true, true, true, true, false),
        holdout: fc.option(fc.constantFrom(0, 10, 50, 100), { nil: undefined, freq: 4 }),
        device: fc.constantFrom(false, false, false, true),
        payloads: fc.option(fc.subarray([...VARIANT_KEYS, "true", "holdout-7"], { minLength: 1 }), { nil: undefined })
      })
    )
    .map(({ shape, conditions, split, active, holdout, device, payloads }) => {
      const filters: FlagFilters = {
        aggregation_group_type_index: shape.group ? 0 : null,
        groups: conditions,
        ...(shape.multivariate
          ? { multivariate: { variants: split.map((pct, i) => ({ key: VARIANT_KEYS[i]!, rollout_percentage: pct })) } }
          : {}),
        ...(holdout === undefined ? {} : { holdout: { id: 7, exclusion_percentage: holdout } }),
        ...(payloads === undefined
          ? {}
          : {
              payloads: Object.fromEntries(
                payloads.map((k, i) => [k, i % 2 === 0 ? JSON.stringify({ k }) : `plain ${k}`])
              )
            })
      }
      return {
        id: index + 1,
        key: `flag-${index}`,
        name: "",
        active,
        deleted: false,
        version: 1,
        ensure_experience_continuity: false,
        bucketing_identifier: device && !shape.group ? "device_id" : null,
        evaluation_runtime: "all",
        evaluation_contexts: [],
        has_experiment: false,
        filters
      }
    })

const definitions = fc
  .tuple(
    flagDefinition(0, []),
    flagDefinition(1, []),
    fc.option(flagDefinition(2, ["flag-0", "flag-1"]), { nil: undefined }),
    cohortDefinition(1),
    cohortDefinition(2)
  )
  .map(([a, b, c, cohort1, cohort2]) => ({ flags: c === undefined ? [a, b] : [a, b, c], cohorts: [cohort1, cohort2] }))

const subsetOf = (domains: Record<string, ReadonlyArray<unknown>>) =>
  fc.record(Object.fromEntries(Object.entries(domains).map(([key, values]) => [key, fc.constantFrom(...values)])), {
    requiredKeys: []
  }) as fc.Arbitrary<Record<string, unknown>>

const person = fc.record({
  distinctId: fc.oneof(
    fc.string({ minLength: 1, maxLength: 12 }),
    fc.constantFrom("user-1", "üser-ñ", "27", "bob@example.com", "acme-inc")
  ),
  properties: subsetOf(PERSON_DOMAINS),
  deviceId: fc.option(fc.constantFrom("dev-1", "dev-2", "device-abc"), { nil: undefined }),
  group: fc.option(
    fc.record({ key: fc.constantFrom("acme-inc", "initech", "globex", "7"), properties: subsetOf(GROUP_DOMAINS) }),
    { nil: undefined }
  ),
  matchingVersion: fc.constantFrom<1 | 2>(1, 2)
})

type Value = boolean | string

/** True when the server and the SDK may legitimately differ on this flag for these properties. */
const fragile = (
  flag: FlagDefinition,
  byKey: ReadonlyMap<string, FlagDefinition>,
  cohorts: ReadonlyMap<number, CohortDefinition>,
  personProperties: Record<string, unknown>,
  groupProperties: Record<string, unknown> | undefined,
  decided: ReadonlySet<string>
): boolean => {
  if (flag.filters.aggregation_group_type_index === 0 && flag.filters.holdout != null && groupProperties === undefined)
    return true
  // A filter true on an absent key (a negative operator, a negated filter, or a positive one inside
  // a `not_in` cohort) is where the server answers and the SDK moves on to the next condition.
  const negativeOnAbsent = (filter: FlagPropertyFilter, source: Record<string, unknown>, flipped = false) =>
    (NEGATIVE.has(filter.operator ?? "exact") !== (filter.negation === true)) !== flipped &&
    !Object.hasOwn(source, filter.key)
  const groupFragile = (group: PropertyGroup, flipped: boolean): boolean =>
    group.values.some((v) =>
      "values" in v
        ? groupFragile(v as PropertyGroup, flipped)
        : negativeOnAbsent(v as FlagPropertyFilter, personProperties, flipped)
    )
  return (flag.filters.groups ?? []).some((c) =>
    (c.properties ?? []).some((filter) => {
      if (filter.type === "flag") {
        const dependency = byKey.get(filter.key)
        if (dependency === undefined) return false
        // A dependency the SDK cannot decide makes the condition inconclusive there (it moves on to
        // the next condition), while the server has a value for it.
        return (
          !decided.has(dependency.key) ||
          fragile(dependency, byKey, cohorts, personProperties, groupProperties, decided)
        )
      }
      if (filter.type === "cohort") {
        const properties = cohorts.get(Number(filter.value))?.properties
        return properties != null && groupFragile(properties, filter.operator === "not_in")
      }
      return negativeOnAbsent(filter, filter.type === "group" ? (groupProperties ?? {}) : personProperties)
    })
  )
}

const parsePayload = (payload: unknown): unknown => {
  if (typeof payload !== "string") return payload
  try {
    return JSON.parse(payload)
  } catch {
    return payload
  }
}

describe("parity with posthog-node local evaluation", () => {
  let served: unknown = { flags: [] }
  const posthog = new PostHog("phc_parity_test", {
    personalApiKey: "phx_parity_test",
    host: "http://sdk.invalid",
    featureFlagsPollingInterval: null,
    flushAt: 1_000_000,
    flushInterval: 0,
    disableGeoip: true,
    fetch: async (url) => {
      if (!url.includes("/flags/definitions")) throw new Error(`unexpected request ${url}`)
      return {
        status: 200,
        json: async () => served,
        text: async () => JSON.stringify(served),
        headers: { get: () => null }
      }
    }
  })

  const serve = async (body: unknown) => {
    served = body
    await posthog.reloadFeatureFlags()
  }

  beforeAll(async () => {
    await posthog.reloadFeatureFlags()
  })
  afterAll(async () => {
    await posthog.shutdown(1000)
  })

  it("agrees wherever the SDK decides locally", async () => {
    let compared = 0
    let matched = 0
    await fc.assert(
      fc.asyncProperty(definitions, person, async ({ flags, cohorts }, p) => {
        await serve({
          flags,
          group_type_mapping: { "0": "company" },
          cohorts: Object.fromEntries(cohorts.map((c) => [String(c.id), c.properties])),
          property_matching_version: p.matchingVersion
        })
        const personProperties: Record<string, unknown> = {
          ...p.properties,
          ...(p.deviceId === undefined ? {} : { $device_id: p.deviceId })
        }
        const groups: Record<string, string> = p.group === undefined ? {} : { company: p.group.key }
        const groupProperties = p.group === undefined ? {} : { company: p.group.properties }
        const answer = await posthog.getAllFlagsAndPayloads(p.distinctId, {
          personProperties,
          groups,
          groupProperties,
          onlyEvaluateLocally: true
        })
        const sdk = { featureFlags: answer.featureFlags ?? {}, featureFlagPayloads: answer.featureFlagPayloads ?? {} }

        // The SDK's view of the properties: distinct_id in the person's, $group_key in the group's.
        const zedPerson = { distinct_id: p.distinctId, ...personProperties }
        const zedGroup = p.group === undefined ? undefined : { $group_key: p.group.key, ...p.group.properties }
        const cohortMap = new Map(cohorts.map((c) => [c.id, c]))
        const context: EvaluationContext = {
          distinctId: p.distinctId,
          personProperties: zedPerson,
          groups,
          groupProperties: zedGroup === undefined ? {} : { company: zedGroup },
          groupTypes: new Map([[0, "company"]]),
          cohorts: cohortMap,
          staticCohorts: new Set(),
          unavailableCohorts: new Set(),
          hashKeyOverrides: {},
          anonDistinctId: undefined,
          deviceId: p.deviceId,
          propertyMatchingVersion: p.matchingVersion,
          timezone: "UTC",
          now: new Date(),
          runtime: undefined,
          evaluationContexts: undefined,
          flagKeys: undefined
        }
        const { results, errors } = evaluateFlags(flags, context)
        expect(errors).toBe(false)
        const byKey = new Map(flags.map((f) => [f.key, f]))
        const decided = new Set(Object.keys(sdk.featureFlags))

        for (const flag of flags) {
          const sdkValue = sdk.featureFlags[flag.key] as Value | undefined
          if (sdkValue === undefined) continue
          if (!flag.active) {
            expect(sdkValue).toBe(false)
            expect(results.has(flag.key)).toBe(false)
            continue
          }
          if (fragile(flag, byKey, cohortMap, zedPerson, zedGroup, decided)) continue
          const result = results.get(flag.key)!
          const zedValue: Value = result.enabled ? (result.variant ?? true) : false
          compared++
          if (zedValue !== false) matched++
          expect({ key: flag.key, value: zedValue, payload: parsePayload(result.payload) }).toEqual({
            key: flag.key,
            value: sdkValue,
            payload: sdkValue === false ? null : (sdk.featureFlagPayloads[flag.key] ?? null)
          })
        }
      }),
      { numRuns: 400 * SCALE }
    )
    // The generators must keep the comparison meaningful: many decided flags, many enabled.
    expect(compared).toBeGreaterThan(400)
    expect(matched).toBeGreaterThan(100)
  }, 60_000)
})

// The same comparison one level down: hashes, and single filters against @posthog/core's matcher
// (`matchFeatureFlagProperty`, what the SDK's local evaluation uses) on random values. Keys are
// always present here (an absent key is inconclusive in the SDK); the restrictions above apply.
describe("parity with @posthog/core", () => {
  it("hashes bit-identically", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 20 }),
        fc.string({ minLength: 1, maxLength: 40, unit: "binary" }),
        fc.constantFrom("", "variant"),
        async (key, id, salt) => {
          expect(flagHash(key, id, salt)).toBe(await getFeatureFlagHash(key, id, salt))
          expect(holdoutHash(id)).toBe(await getFeatureFlagHash("holdout", id, "", "-"))
        }
      ),
      { numRuns: 300 * SCALE }
    )
  })

  const scalar = fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.constantFrom("Pro", "PRO", "pro", "true", "False", "", "null", "ǅ", "Σ"),
    fc.boolean(),
    fc.constant(null),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n))
  )
  const filterScalar = scalar.filter((v) => v !== null)
  const text = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom("a", "B", "ab", "Ab", "", "-"))
  // Portable regexes without nested quantifiers: the SDK decides them, and no guard applies.
  const atom = fc.constantFrom("a", "b", "A", ".", "\\d", "\\w", "[a-c]", "[^b]", "(ab)", "(a|b)", "\\.", "x")
  const pattern = fc
    .array(fc.tuple(atom, fc.constantFrom("", "", "*", "+", "?", "{1,2}")), { minLength: 1, maxLength: 4 })
    .chain((parts) =>
      fc.tuple(fc.constantFrom("", "^"), fc.constant(parts.map(([a, q]) => a + q).join("")), fc.constantFrom("", "$"))
    )
    .map(([start, body, end]) => start + body + end)
  const numericText = fc.oneof(
    fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
    fc.integer({ min: -1000, max: 1000 }).map(String),
    fc.constantFrom("1e3", ".5", "5.", "-0", "+7")
  )
  const version = fc
    .tuple(fc.nat(12), fc.nat(12), fc.option(fc.nat(12), { nil: undefined }), fc.boolean())
    .map(([a, b, c, v]) => `${v ? "v" : ""}${a}.${b}${c === undefined ? "" : `.${c}`}`)
  const instant = fc.date({
    min: new Date("2000-01-01T00:00:00Z"),
    max: new Date("2035-01-01T00:00:00Z"),
    noInvalidDate: true
  })
  const isoDate = fc.oneof(
    instant.map((d) => d.toISOString()),
    instant.map((d) => d.toISOString().slice(0, 10)),
    instant.map((d) => d.toISOString().replace("Z", "+05:30"))
  )
  const relative = fc
    .tuple(fc.integer({ min: 1, max: 400 }), fc.constantFrom("h", "d", "w", "m", "y"), fc.boolean())
    .map(([n, unit, sign]) => `${sign ? "-" : ""}${n}${unit}`)

  const filters: fc.Arbitrary<{ operator: string; value: unknown; actual: unknown }> = fc.oneof(
    // A null filter value is "no value" to the server (no match), a value to the SDK.
    fc.record({
      operator: fc.constantFrom("exact", "is_not"),
      value: fc.oneof(filterScalar, fc.array(scalar, { maxLength: 3 })),
      actual: scalar
    }),
    fc.record({
      operator: fc.constantFrom(
        "icontains",
        "not_icontains",
        "starts_with",
        "not_starts_with",
        "ends_with",
        "not_ends_with"
      ),
      value: text,
      actual: scalar
    }),
    fc.record({
      operator: fc.constantFrom("regex", "not_regex"),
      value: pattern,
      actual: fc.oneof(text, fc.stringMatching(/^[a-cAB.x0-9]{0,8}$/))
    }),
    fc.record({
      operator: fc.constantFrom("gt", "gte", "lt", "lte"),
      value: fc.oneof(numericText, fc.double({ noNaN: true, noDefaultInfinity: true })),
      actual: fc.oneof(numericText, fc.double({ noNaN: true, noDefaultInfinity: true }))
    }),
    fc.record({
      operator: fc.constantFrom(
        "semver_eq",
        "semver_neq",
        "semver_gt",
        "semver_gte",
        "semver_lt",
        "semver_lte",
        "semver_tilde",
        "semver_caret"
      ),
      value: version,
      actual: version
    }),
    fc.record({
      operator: fc.constant("semver_wildcard"),
      value: fc
        .tuple(fc.nat(5), fc.option(fc.nat(5), { nil: undefined }))
        .map(([a, b]) => (b === undefined ? `${a}.*` : `${a}.${b}.*`)),
      actual: version
    }),
    fc.record({
      operator: fc.constantFrom("is_date_before", "is_date_after"),
      value: fc.oneof(isoDate, relative),
      actual: isoDate
    }),
    fc.record({ operator: fc.constantFrom("is_set", "is_not_set"), value: fc.constant("is_set"), actual: scalar })
  )

  /** gt/lt: compare only when both sides are finite numbers to the SDK and to the server alike. */
  const numericOnBothSides = (value: unknown): boolean => {
    const sdk = typeof value === "number" ? value : Number.parseFloat(String(value))
    const server = typeof value === "number" ? value : parseRustFloat(String(value))
    return Number.isFinite(sdk) && server === sdk
  }

  it("matches single filters identically wherever the SDK decides", () => {
    let decided = 0
    fc.assert(
      fc.property(filters, fc.constantFrom<1 | 2>(1, 2), ({ operator, value, actual }, version) => {
        if (["gt", "gte", "lt", "lte"].includes(operator) && !(numericOnBothSides(value) && numericOnBothSides(actual)))
          return
        const filter = { key: "k", operator, value }
        let expected: boolean
        try {
          expected = matchFeatureFlagProperty(filter as never, { k: actual }, { propertyMatchingVersion: version })
        } catch (error) {
          if (error instanceof InconclusiveMatchError) return
          throw error
        }
        decided++
        expect({
          filter,
          actual,
          version,
          match: matchProperty(filter, { k: actual }, { propertyMatchingVersion: version, now: new Date() })
        }).toEqual({
          filter,
          actual,
          version,
          match: expected
        })
      }),
      { numRuns: 3000 * SCALE }
    )
    expect(decided).toBeGreaterThan(2000)
  })
})
