import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { createHash } from "node:crypto"
import { evaluateFlag, evaluateFlags } from "../src/flags/evaluate.js"
import { flagHash, holdoutHash } from "../src/flags/hash.js"
import type { FlagFilters, FlagPropertyFilter } from "../src/flags/model.js"
import { FLAG_OPERATORS, type MatchOptions, matchProperty } from "../src/flags/properties.js"
import { context, flag, value, variants } from "./flagSupport.js"

// The spec's test vectors (computed with posthog-node 5.70.0) and every property operator.

const rollout = (pct: number | null): FlagFilters => ({ groups: [{ properties: [], rollout_percentage: pct }] })
const as = (distinctId: string, personProperties: Record<string, unknown> = {}) =>
  context({ distinctId, personProperties })

const sha15 = (text: string) => createHash("sha1").update(text).digest("hex").slice(0, 15)

describe("spec vectors", () => {
  const hashes: ReadonlyArray<readonly [string, string, string, number, number]> = [
    ["beta-feature", "user-1", "b9fb54b4bcd0054", 0.7264912549260886, 0.14578218334266493],
    ["beta-feature", "user-0", "3744d9bbc6cc818", 0.21589432558430313, 0.9379613004020914],
    ["beta-feature", "user-4", "69942edb5ac1eee", 0.41241734366736416, 0.07967153587137342],
    ["new-onboarding", "bob@example.com", "713f2b5b7058ab4", 0.44237013800042985, 0.006241505909744944],
    ["checkout-experiment", "user-1", "0fd8e5515772177", 0.061903316839967075, 0.16653760766120937],
    ["checkout-experiment", "user-42", "3c88e404e2c8b70", 0.23646378630909026, 0.6028353216438277],
    ["checkout-experiment", "distinct_id_0", "8ba6c1acae56087", 0.5455132528862451, 0.7604756176888838],
    ["unicode-flag", "üser-ñ", "1b8612dff7164e3", 0.10751455276393893, 0.36057914777263766],
    ["multivariate-flag", "27", "99f4a5408bbab02", 0.6013892443258821, 0.4976802900223287],
    ["override-flag", "u1", "dbdf70d3398ee0a", 0.858878184860767, 0.7974422631366266]
  ]

  it("hashes to full precision (#1-#11)", () => {
    for (const [key, id, sha, hash, vhash] of hashes) {
      expect(sha15(`${key}.${id}`)).toBe(sha)
      expect(flagHash(key, id)).toBe(hash)
      expect(flagHash(key, id, "variant")).toBe(vhash)
    }
    expect(sha15("company-flag.initech")).toBe("1a22cf363600ba4")
    expect(flagHash("company-flag", "initech")).toBe(0.10209364961156356)
    expect(flagHash("company-flag", "acme-inc")).toBe(0.9455254048623735)
    expect(flagHash("anything", "")).toBe(0)
  })

  it("scale the 60-bit prefix exactly as a u64 to f64 conversion would, for any key and id", () => {
    // The 60 bits taken as a BigInt and converted once: the reference for the split arithmetic.
    const reference = (text: string) => Number(BigInt(`0x${sha15(text)}`)) / 0xfffffffffffffff
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.string({ unit: "grapheme", minLength: 1 }), (key, id) => {
        expect(flagHash(key, id)).toBe(reference(`${key}.${id}`))
        expect(flagHash(key, id, "variant")).toBe(reference(`${key}.${id}variant`))
        expect(holdoutHash(id)).toBe(reference(`holdout-${id}`))
      }),
      { numRuns: 2000 }
    )
  })

  it("#1-#3 50% rollout", () => {
    const beta = flag("beta-feature", rollout(50))
    expect(evaluateFlag(beta, as("user-1"))).toEqual({
      key: "beta-feature",
      enabled: false,
      variant: null,
      reason: { code: "out_of_rollout_bound", condition_index: 0, description: "Out of rollout bound" },
      payload: null,
      failed: false
    })
    expect(evaluateFlag(beta, as("user-0"))).toMatchObject({
      enabled: true,
      reason: { code: "condition_match", condition_index: 0, description: "Matched condition set 1" }
    })
    expect(value(beta, as("user-4"))).toBe(true)
  })

  it("#4 new-onboarding", () => {
    expect(value(flag("new-onboarding", rollout(50)), as("bob@example.com"))).toBe(true)
    expect(
      value(
        flag("new-onboarding", { ...rollout(50), multivariate: variants(["control", 50], ["test", 50]) }),
        as("bob@example.com")
      )
    ).toBe("control")
  })

  it("#5-#7 checkout-experiment variants and payload", () => {
    const payloads = { control: '{"color":"blue"}' }
    const fiftyFifty = flag("checkout-experiment", {
      ...rollout(100),
      multivariate: variants(["control", 50], ["test", 50]),
      payloads
    })
    const thirds = flag("checkout-experiment", {
      ...rollout(100),
      multivariate: variants(["control", 33], ["test", 33], ["test-2", 34])
    })
    expect(evaluateFlag(fiftyFifty, as("user-1"))).toMatchObject({
      enabled: true,
      variant: "control",
      payload: '{"color":"blue"}'
    })
    expect(value(fiftyFifty, as("user-42"))).toBe("test")
    expect(evaluateFlag(fiftyFifty, as("user-42")).payload).toBeNull()
    expect(value(thirds, as("user-42"))).toBe("test")
    expect(value(thirds, as("distinct_id_0"))).toBe("test-2")
    expect(value(fiftyFifty, as("distinct_id_0"))).toBe("test")
  })

  it("#8 unicode ids hash as UTF-8", () => {
    expect(value(flag("unicode-flag", rollout(50)), as("üser-ñ"))).toBe(true)
    expect(
      value(
        flag("unicode-flag", {
          ...rollout(100),
          multivariate: variants(["control", 33], ["test", 33], ["test-2", 34])
        }),
        as("üser-ñ")
      )
    ).toBe("test")
  })

  it("#9 variant hash just under the bucket edge", () => {
    expect(
      value(
        flag("multivariate-flag", { ...rollout(100), multivariate: variants(["control", 50], ["test", 50]) }),
        as("27")
      )
    ).toBe("control")
  })

  it("#10 group flag", () => {
    const company = flag("company-flag", {
      aggregation_group_type_index: 0,
      groups: [
        {
          properties: [{ key: "seats", type: "group", group_type_index: 0, operator: "gte", value: 10 }],
          rollout_percentage: 50
        }
      ]
    })
    const withGroup = (key: string, seats: number) =>
      context({ groups: { company: key }, groupProperties: { company: { seats, $group_key: key } } })
    expect(value(company, withGroup("initech", 25))).toBe(true)
    expect(evaluateFlag(company, withGroup("initech", 5)).reason.code).toBe("no_condition_match")
    expect(evaluateFlag(company, withGroup("acme-inc", 25)).reason.code).toBe("out_of_rollout_bound")
    expect(evaluateFlag(company, context())).toMatchObject({
      enabled: false,
      reason: { code: "no_group_type", condition_index: 0, description: "No group type" }
    })
  })

  it("#11 a condition's variant override beats a 0% variant", () => {
    const override = flag("override-flag", {
      groups: [
        {
          properties: [{ key: "email", type: "person", operator: "icontains", value: "@example.com" }],
          variant: "test"
        },
        { properties: [], rollout_percentage: 100 }
      ],
      multivariate: variants(["control", 100], ["test", 0])
    })
    expect(evaluateFlag(override, as("u1", { email: "Jane@Example.com" }))).toMatchObject({
      variant: "test",
      reason: { condition_index: 0 }
    })
    expect(evaluateFlag(override, as("u1", { email: "jane@other.org" }))).toMatchObject({
      variant: "control",
      reason: { condition_index: 1 }
    })
  })

  it("#12 holdout", () => {
    expect(sha15("holdout-acme-inc")).toBe("18b67179a435182")
    expect(holdoutHash("acme-inc")).toBe(0.09653386325608826)
    expect(holdoutHash("user-1")).toBe(0.17805599206573022)
    expect(flagHash("holdout-flag", "user-1", "variant")).toBe(0.3089915272405399)
    const holdout = flag("holdout-flag", {
      ...rollout(100),
      multivariate: variants(["control", 50], ["test", 50]),
      holdout: { id: 7, exclusion_percentage: 10 },
      payloads: { "holdout-7": '{"held":true}' }
    })
    expect(evaluateFlag(holdout, as("acme-inc"))).toEqual({
      key: "holdout-flag",
      enabled: true,
      variant: "holdout-7",
      reason: { code: "holdout_condition_value", condition_index: null, description: "Holdout condition value" },
      payload: '{"held":true}',
      failed: false
    })
    expect(value(holdout, as("user-1"))).toBe("control")
  })

  it("#13 flag dependency", () => {
    const beta = flag("beta-feature", rollout(50))
    const dependent = flag("dep-flag", {
      groups: [{ properties: [{ key: "beta-feature", type: "flag", value: true, dependency_chain: ["beta-feature"] }] }]
    })
    const run = (distinctId: string) =>
      evaluateFlags([beta, dependent], context({ distinctId })).results.get("dep-flag")
    expect(run("user-0")).toMatchObject({ enabled: true })
    expect(run("user-1")).toMatchObject({ enabled: false, reason: { code: "no_condition_match" } })
  })

  it("#14 cohort", () => {
    const cohortFlag = flag("cohort-flag", { groups: [{ properties: [{ key: "id", type: "cohort", value: 5 }] }] })
    const cohorts = new Map([
      [
        5,
        {
          id: 5,
          is_static: false,
          properties: {
            type: "OR" as const,
            values: [
              {
                type: "AND" as const,
                values: [{ key: "plan", type: "person", operator: "exact", value: ["pro", "enterprise"] }]
              }
            ]
          }
        }
      ]
    ])
    expect(value(cohortFlag, context({ cohorts, personProperties: { plan: "Enterprise" } }))).toBe(true)
    expect(value(cohortFlag, context({ cohorts, personProperties: { plan: "free" } }))).toBe(false)
  })

  it("#15 boolean-like exact, gt on text, 0% and inactive", () => {
    const paid = flag("paid", {
      groups: [{ properties: [{ key: "is_paid", type: "person", operator: "exact", value: ["true"] }] }]
    })
    expect(value(paid, as("u", { is_paid: true }))).toBe(true)
    expect(value(paid, as("u", { is_paid: "TRUE" }))).toBe(true)
    expect(value(paid, as("u", { is_paid: "yes" }))).toBe(false)
    const adult = flag("adult", {
      groups: [{ properties: [{ key: "age", type: "person", operator: "gt", value: "18" }] }]
    })
    expect(value(adult, as("u", { age: "20" }))).toBe(true)
    expect(value(adult, as("u", { age: 9 }))).toBe(false)
    for (const id of ["user-0", "user-1", "user-4", "a", "b"])
      expect(value(flag("zero", rollout(0)), as(id))).toBe(false)
    const inactive = flag("off", rollout(100), { active: false })
    expect(evaluateFlag(inactive, as("u"))).toMatchObject({
      enabled: false,
      reason: { code: "flag_disabled", description: "Feature flag is disabled" }
    })
    expect(evaluateFlags([inactive], as("u")).results.size).toBe(0)
  })
})

const m = (
  filter: Omit<FlagPropertyFilter, "key"> & { key?: string },
  properties: Record<string, unknown>,
  options: MatchOptions = {}
) => matchProperty({ key: "p", ...filter }, properties, options)

describe("further property checks (legacy matching)", () => {
  it("match the spec", () => {
    expect(m({ operator: "exact", value: false }, { p: "banana" })).toBe(true)
    expect(m({ operator: "exact", value: ["true", "false"] }, { p: "pro" })).toBe(true)
    expect(m({ operator: "semver_tilde", value: "1.2.3" }, { p: "1.3.0" })).toBe(false)
    expect(m({ operator: "semver_caret", value: "0.2.3" }, { p: "0.2.9" })).toBe(true)
    expect(m({ operator: "semver_gte", value: "1.2.0" }, { p: "v1.10.0" })).toBe(true)
    expect(m({ operator: "is_date_before", value: "2024-01-01" }, { p: "2023-12-31T23:00:00Z" })).toBe(true)
    expect(m({ operator: "regex", value: "([" }, { p: "([" })).toBe(false)
    expect(m({ operator: "not_regex", value: "([" }, { p: "anything" })).toBe(false)
  })
})

describe("property operators", () => {
  const ABSENT: ReadonlyArray<readonly [string, unknown, boolean]> = [
    ["exact", "x", false],
    ["is_not", "x", true],
    ["is_set", "x", false],
    ["is_not_set", "x", true],
    ["icontains", "x", false],
    ["not_icontains", "x", true],
    ["starts_with", "x", false],
    ["not_starts_with", "x", true],
    ["ends_with", "x", false],
    ["not_ends_with", "x", true],
    ["icontains_multi", ["x"], false],
    ["not_icontains_multi", ["x"], true],
    ["regex", "x", false],
    ["not_regex", "x", true],
    ["gt", 1, false],
    ["gte", 1, false],
    ["lt", 1, false],
    ["lte", 1, false],
    ["between", [1, 2], false],
    ["not_between", [1, 2], true],
    ["is_date_before", "2024-01-01", false],
    ["is_date_after", "2024-01-01", false],
    ["is_date_exact", "2024-01-01", false],
    ["semver_eq", "1.0.0", false],
    ["semver_neq", "1.0.0", false],
    ["semver_gt", "1.0.0", false],
    ["semver_gte", "1.0.0", false],
    ["semver_lt", "1.0.0", false],
    ["semver_lte", "1.0.0", false],
    ["semver_tilde", "1.0.0", false],
    ["semver_caret", "1.0.0", false],
    ["semver_wildcard", "1.*", false]
  ]

  it("give the server's definite answer for an absent key", () => {
    for (const [operator, filterValue, expected] of ABSENT)
      expect([operator, m({ operator, value: filterValue }, { other: 1 })]).toEqual([operator, expected])
  })

  it("know every operator, and reject unknown ones and filters without a value", () => {
    for (const [operator] of ABSENT) expect(FLAG_OPERATORS).toContain(operator)
    expect(FLAG_OPERATORS).toEqual(expect.arrayContaining(["in", "not_in", "flag_evaluates_to"]))
    expect(m({ operator: "contains_somehow", value: "a" }, { p: "a" })).toBe(false)
    expect(m({ operator: "icontains" }, { p: "a" })).toBe(false)
    expect(m({ operator: "not_icontains" }, { p: "a" })).toBe(false)
    expect(m({ operator: "is_not", value: null }, {})).toBe(false)
    expect(m({ operator: "is_set" }, { p: null })).toBe(true)
    expect(m({ operator: "is_not_set" }, { p: null })).toBe(false)
  })

  it("exact: legacy truthiness, arrays, case and JSON text", () => {
    expect(m({ value: "Pro" }, { p: "pro" })).toBe(true)
    expect(m({ value: ["Pro", "enterprise"] }, { p: "pro" })).toBe(true)
    expect(m({ value: ["true", "false"] }, { p: "true" })).toBe(false)
    expect(m({ value: "TRUE" }, { p: true })).toBe(true)
    expect(m({ value: false }, { p: false })).toBe(true)
    expect(m({ value: [] }, { p: "us" })).toBe(false)
    expect(m({ value: 5 }, { p: "5" })).toBe(true)
    expect(m({ value: "5" }, { p: 5 })).toBe(true)
    expect(m({ value: ["1", 2] }, { p: 2 })).toBe(true)
    expect(m({ value: "null" }, { p: null })).toBe(true)
    expect(m({ value: '{"a":2,"b":1}' }, { p: { b: 1, a: 2 } })).toBe(true)
    expect(m({ operator: "is_not", value: ["a", "b"] }, { p: "B" })).toBe(false)
    expect(m({ operator: "is_not", value: ["a", "b"] }, { p: "c" })).toBe(true)
  })

  it("exact: version 2 drops the truthiness rule except for the empty array", () => {
    const v2 = { propertyMatchingVersion: 2 } as const
    expect(m({ value: false }, { p: "banana" }, v2)).toBe(false)
    expect(m({ value: ["true", "false"] }, { p: "true" }, v2)).toBe(true)
    expect(m({ value: "true" }, { p: 1 }, v2)).toBe(false)
    expect(m({ value: "true" }, { p: true }, v2)).toBe(true)
    expect(m({ value: "True" }, { p: "true" }, v2)).toBe(true)
    expect(m({ value: [] }, { p: "us" }, v2)).toBe(false)
    expect(m({ value: [] }, { p: true }, v2)).toBe(true)
  })

  it("string operators lowercase ASCII only", () => {
    expect(m({ operator: "icontains", value: "ACME" }, { p: "x@acme.com" })).toBe(true)
    expect(m({ operator: "icontains", value: "ü" }, { p: "Ü" })).toBe(false)
    expect(m({ operator: "icontains", value: "3" }, { p: 323 })).toBe(true)
    expect(m({ operator: "not_icontains", value: "a" }, { p: "B" })).toBe(true)
    expect(m({ operator: "starts_with", value: "HTTP" }, { p: "https://x" })).toBe(true)
    expect(m({ operator: "not_starts_with", value: "http" }, { p: "ftp://x" })).toBe(true)
    expect(m({ operator: "ends_with", value: ".COM" }, { p: "a.com" })).toBe(true)
    expect(m({ operator: "not_ends_with", value: ".com" }, { p: "a.com" })).toBe(false)
    expect(m({ operator: "icontains_multi", value: ["foo", "BAR"] }, { p: "xbarx" })).toBe(true)
    expect(m({ operator: "icontains_multi", value: "bar" }, { p: "xbarx" })).toBe(true)
    expect(m({ operator: "not_icontains_multi", value: ["foo", "bar"] }, { p: "baz" })).toBe(true)
    expect(m({ operator: "not_icontains_multi", value: ["foo", "bar"] }, { p: "FOO" })).toBe(false)
  })

  it("regex: unanchored search with the Rust syntax; invalid patterns never match", () => {
    expect(m({ operator: "regex", value: "b+c" }, { p: "abbbcd" })).toBe(true)
    expect(m({ operator: "regex", value: "^abc" }, { p: "ABC" })).toBe(false)
    expect(m({ operator: "regex", value: "(?i)^abc" }, { p: "ABC" })).toBe(true)
    expect(m({ operator: "regex", value: "(?P<word>\\w+)@" }, { p: "me@x" })).toBe(true)
    expect(m({ operator: "regex", value: "\\Aab\\z" }, { p: "ab" })).toBe(true)
    // Rust's "." excludes only "\n".
    expect(m({ operator: "regex", value: "a.c" }, { p: "a\rc" })).toBe(true)
    expect(m({ operator: "regex", value: "a.c" }, { p: "a\nc" })).toBe(false)
    expect(m({ operator: "regex", value: "^\\d+$" }, { p: 1234 })).toBe(true)
    expect(m({ operator: "not_regex", value: "^a" }, { p: "ba" })).toBe(true)
    expect(m({ operator: "regex", value: "(?i)straße|[^a]b" }, { p: "STRASSE AB" })).toBe(false)
    expect(m({ operator: "regex", value: "(?i)[^a]b" }, { p: "Ab" })).toBe(false)
    expect(m({ operator: "regex", value: "^\\w+$" }, { p: "héllo" })).toBe(true)
    expect(m({ operator: "regex", value: "^\\d$" }, { p: "٣" })).toBe(true)
    expect(m({ operator: "regex", value: "^.$" }, { p: "😀" })).toBe(true)
    expect(m({ operator: "regex", value: "\\p{Greek}" }, { p: "λ" })).toBe(true)
    expect(m({ operator: "regex", value: "[[:upper:]]{2}" }, { p: "aBCd" })).toBe(true)
    expect(m({ operator: "regex", value: "(?x) a b  # spaced" }, { p: "ab" })).toBe(true)
    expect(m({ operator: "regex", value: "\\bcat\\b" }, { p: "a cat!" })).toBe(true)
    expect(m({ operator: "regex", value: "(?m)^b$" }, { p: "a\nb\nc" })).toBe(true)
    expect(m({ operator: "regex", value: "^b$" }, { p: "a\nb\nc" })).toBe(false)
    for (const invalid of ["a{", "*a", "(?<x", "\\q", "[b-a]", "a)"])
      expect([invalid, m({ operator: "regex", value: invalid }, { p: "a{" })]).toEqual([invalid, false])
  })

  it("regex: no pattern can hang evaluation", () => {
    const started = Date.now()
    const long = "a".repeat(5000)
    // Linear-time search: exact answers even for patterns that backtrack exponentially elsewhere.
    expect(m({ operator: "regex", value: "(a+)+$" }, { p: `${long}!` })).toBe(false)
    expect(m({ operator: "regex", value: "(a+)+$" }, { p: long })).toBe(true)
    expect(m({ operator: "regex", value: "^(a|a?)+b$" }, { p: `${long}!` })).toBe(false)
    expect(
      m({ operator: "regex", value: "^([a-z0-9]+\\.)+example\\.com$" }, { p: `${"sub.".repeat(500)}example.com` })
    ).toBe(true)
    // Lookaround needs backtracking: on long inputs such patterns are cut off like the service's
    // backtrack limit, and match neither way.
    expect(m({ operator: "regex", value: "(?=a)(a+)+$" }, { p: `${long}!` })).toBe(false)
    expect(m({ operator: "not_regex", value: "(?=a)(a+)+$" }, { p: `${long}!` })).toBe(false)
    expect(m({ operator: "regex", value: "(?=a)(a+)+$" }, { p: "aaa" })).toBe(true)
    expect(m({ operator: "regex", value: "a(?!b)" }, { p: "ab ac" })).toBe(true)
    expect(Date.now() - started).toBeLessThan(2000)
  })

  it("regex: the engine agrees with JavaScript's RegExp on ASCII", () => {
    const atom: fc.Arbitrary<string> = fc.constantFrom(
      "a",
      "b",
      "A",
      "-",
      ".",
      "\\d",
      "\\w",
      "\\s",
      "\\W",
      "[a-c]",
      "[^ab]",
      "[a\\-.]",
      "\\.",
      "x"
    )
    const group = (depth: number): fc.Arbitrary<string> =>
      depth === 0
        ? atom
        : fc.oneof(
            { weight: 3, arbitrary: atom },
            fc.tuple(fc.constantFrom("(", "(?:"), alternation(depth - 1)).map(([open, body]) => `${open}${body})`)
          )
    const piece = (depth: number) =>
      fc
        .tuple(group(depth), fc.constantFrom("", "", "*", "+", "?", "{2}", "{1,3}", "{0,}", "*?", "+?"))
        .map(([a, q]) => a + q)
    const concat = (depth: number) =>
      fc
        .tuple(
          fc.constantFrom("", "", "^", "\\b"),
          fc.array(piece(depth), { maxLength: 3 }),
          fc.constantFrom("", "", "$", "\\b")
        )
        .map(([s, items, e]) => s + items.join("") + e)
    const alternation = (depth: number): fc.Arbitrary<string> =>
      fc.array(concat(depth), { minLength: 1, maxLength: 2 }).map((items) => items.join("|"))
    const input = fc
      .array(fc.constantFrom("a", "b", "A", "B", "-", ".", " ", "\n", "1", "_", "x"), { maxLength: 12 })
      .map((chars) => chars.join(""))
    fc.assert(
      fc.property(alternation(2), fc.subarray(["i", "m", "s"]), input, (body, flags, text) => {
        const pattern = flags.length === 0 ? body : `(?${flags.join("")})${body}`
        const expected = new RegExp(body, flags.join("")).test(text)
        expect([pattern, text, m({ operator: "regex", value: pattern }, { p: text })]).toEqual([
          pattern,
          text,
          expected
        ])
      }),
      { numRuns: 2000 * Number(process.env["FLAGS_PARITY_SCALE"] ?? 1) }
    )
  })

  it("gt/gte/lt/lte compare floats; non-numeric text never matches", () => {
    expect(m({ operator: "gt", value: "18" }, { p: "20" })).toBe(true)
    expect(m({ operator: "gt", value: "18" }, { p: 9 })).toBe(false)
    expect(m({ operator: "gte", value: 10 }, { p: 10 })).toBe(true)
    expect(m({ operator: "lt", value: "1e3" }, { p: 999.5 })).toBe(true)
    expect(m({ operator: "lte", value: 0 }, { p: "-0" })).toBe(true)
    expect(m({ operator: "gt", value: "1" }, { p: "abc" })).toBe(false)
    expect(m({ operator: "lt", value: "z" }, { p: "a" })).toBe(false)
    expect(m({ operator: "gt", value: 1 }, { p: " 5" })).toBe(false)
    expect(m({ operator: "gt", value: 1e308 }, { p: "inf" })).toBe(true)
    expect(m({ operator: "gt", value: 1 }, { p: "NaN" })).toBe(false)
    expect(m({ operator: "lt", value: 1 }, { p: true })).toBe(false)
    expect(m({ operator: "gt", value: 1 }, { p: null })).toBe(false)
  })

  it("between/not_between are inclusive; bad bounds or NaN match neither", () => {
    expect(m({ operator: "between", value: [1, 10] }, { p: 10 })).toBe(true)
    expect(m({ operator: "between", value: ["1", "10"] }, { p: "5" })).toBe(true)
    expect(m({ operator: "between", value: [1, 10] }, { p: 11 })).toBe(false)
    expect(m({ operator: "not_between", value: [1, 10] }, { p: 11 })).toBe(true)
    expect(m({ operator: "not_between", value: [1, 10] }, { p: 1 })).toBe(false)
    expect(m({ operator: "between", value: [10, 1] }, { p: 5 })).toBe(false)
    expect(m({ operator: "not_between", value: [10, 1] }, { p: 50 })).toBe(false)
    expect(m({ operator: "not_between", value: [1, 10] }, { p: "NaN" })).toBe(false)
    expect(m({ operator: "not_between", value: [1, 10] }, { p: "abc" })).toBe(false)
    expect(m({ operator: "between", value: 5 }, { p: 5 })).toBe(false)
  })

  describe("dates", () => {
    const now = new Date("2026-01-15T12:00:00Z")
    const at = (timezone: string) => ({ timezone, now })

    it("read offsets as written and naive values in the team time zone", () => {
      const before = { operator: "is_date_before", value: "2024-01-01" }
      expect(m(before, { p: "2023-12-31T23:30:00Z" }, at("UTC"))).toBe(true)
      // Midnight in Paris is 23:00 UTC the day before.
      expect(m(before, { p: "2023-12-31T23:30:00Z" }, at("Europe/Paris"))).toBe(false)
      expect(m(before, { p: "2023-12-31T22:59:59Z" }, at("Europe/Paris"))).toBe(true)
      expect(m(before, { p: "2023-12-31 23:59:59" }, at("Europe/Paris"))).toBe(true)
      expect(
        m(
          { operator: "is_date_exact", value: "2024-06-01T14:00:00Z" },
          { p: "2024-06-01 10:00" },
          at("America/New_York")
        )
      ).toBe(true)
      expect(
        m(
          { operator: "is_date_exact", value: "2024-06-01T14:00:00+04:00" },
          { p: "2024-06-01T10:00:00Z" },
          at("Asia/Tokyo")
        )
      ).toBe(true)
      expect(
        m(
          { operator: "is_date_after", value: "2024-01-01T00:00:00.000000001Z" },
          { p: "2024-01-01T00:00:00.000000002Z" }
        )
      ).toBe(true)
    })

    it("take the earlier instant in a DST overlap and nothing in a gap", () => {
      const paris = at("Europe/Paris")
      expect(m({ operator: "is_date_exact", value: "2024-10-27T00:30:00Z" }, { p: "2024-10-27 02:30" }, paris)).toBe(
        true
      )
      for (const operator of ["is_date_before", "is_date_after", "is_date_exact"]) {
        expect(m({ operator, value: "2024-03-31T01:00:00Z" }, { p: "2024-03-31 02:30" }, paris)).toBe(false)
      }
    })

    it("read numbers (and numeric text) as Unix seconds", () => {
      expect(m({ operator: "is_date_after", value: "2023-11-14" }, { p: 1700000000 })).toBe(true)
      expect(m({ operator: "is_date_exact", value: "2023-11-14T22:13:20Z" }, { p: "1700000000" })).toBe(true)
      expect(m({ operator: "is_date_exact", value: "2023-11-14T22:13:20.5Z" }, { p: 1700000000.5 })).toBe(true)
      expect(m({ operator: "is_date_before", value: "2030-01-01" }, { p: true })).toBe(false)
      expect(m({ operator: "is_date_before", value: "not a date" }, { p: "2020-01-01" })).toBe(false)
      expect(m({ operator: "is_date_before", value: 1893456000 }, { p: "2020-01-01" })).toBe(false)
    })

    it("resolve relative dates from now on the team's wall clock", () => {
      expect(m({ operator: "is_date_before", value: "-7d" }, { p: "2026-01-08T11:59:59Z" }, at("UTC"))).toBe(true)
      expect(m({ operator: "is_date_before", value: "-7d" }, { p: "2026-01-08T12:00:01Z" }, at("UTC"))).toBe(false)
      expect(m({ operator: "is_date_after", value: "7d" }, { p: "2026-01-08T12:00:01Z" }, at("Asia/Tokyo"))).toBe(true)
      expect(m({ operator: "is_date_exact", value: "-24h" }, { p: "2026-01-14T12:00:00Z" }, at("UTC"))).toBe(true)
      expect(m({ operator: "is_date_exact", value: "-2w" }, { p: "2026-01-01T12:00:00Z" }, at("UTC"))).toBe(true)
      const march31 = { timezone: "UTC", now: new Date("2026-03-31T08:00:00Z") }
      expect(m({ operator: "is_date_exact", value: "-1m" }, { p: "2026-02-28T08:00:00Z" }, march31)).toBe(true)
      expect(m({ operator: "is_date_exact", value: "-1y" }, { p: "2025-03-31T08:00:00Z" }, march31)).toBe(true)
      const leapDay = { timezone: "UTC", now: new Date("2028-02-29T00:00:00Z") }
      expect(m({ operator: "is_date_exact", value: "-1y" }, { p: "2027-02-28T00:00:00Z" }, leapDay)).toBe(true)
      expect(m({ operator: "is_date_after", value: "-10000d" }, { p: "2026-01-01" }, at("UTC"))).toBe(false)
      // Days are wall-clock days: across the spring change in Paris, 7 days back keeps 13:00 local.
      const paris = { timezone: "Europe/Paris", now: new Date("2024-04-03T11:00:00Z") }
      expect(m({ operator: "is_date_exact", value: "-7d" }, { p: "2024-03-27T12:00:00Z" }, paris)).toBe(true)
    })
  })

  describe("semver", () => {
    const check = (operator: string, filterValue: string, cases: Record<string, boolean>) => {
      for (const [actual, expected] of Object.entries(cases))
        expect([operator, filterValue, actual, m({ operator, value: filterValue }, { p: actual })]).toEqual([
          operator,
          filterValue,
          actual,
          expected
        ])
    }

    it("normalises, pads and strips leading zeros", () => {
      check("semver_eq", "3.10", { "3.10.0": true, "v3.10": true, " 3.10.0 ": true, "3.8": false })
      check("semver_eq", "3.8.0", { "3.08": true, "03.008.000": true, V3: false, "3.8.0.1": false, "3.8.x": false })
      check("semver_neq", "1.0.0", { "1.0.1": true, "1.0": false, garbage: false })
      check("semver_gt", "1.9.0", { "1.10.0": true, "1.9.0": false })
    })

    it("order prereleases (and build metadata) like the semver crate", () => {
      check("semver_lt", "1.0.0", { "1.0.0-alpha": true, "1.0.0-rc.1": true, "0.9.9": true })
      check("semver_gt", "1.0.0-alpha", { "1.0.0-alpha.1": true, "1.0.0-beta": true, "1.0.0-0": false, "1.0.0": true })
      check("semver_gt", "1.0.0-alpha.1", { "1.0.0-alpha.beta": true, "1.0.0-alpha.2": true, "1.0.0-alpha.10": true })
      check("semver_eq", "1.0.0", { "1.0.0+build.1": false, "1.0.0-01": false })
      check("semver_gte", "1.0.0", { "1.0.0+build": true })
    })

    it("tilde, caret and wildcard ranges", () => {
      check("semver_tilde", "1.2.3", {
        "1.2.3": true,
        "1.2.9": true,
        "1.3.0": false,
        "1.2.2": false,
        "1.2.5-beta": false
      })
      check("semver_tilde", "1.2", { "1.2.0": true, "1.2.7": true, "1.3.0": false })
      check("semver_tilde", "1.2.3-beta", { "1.2.3-beta.2": true, "1.2.3": true, "1.2.4-beta": false })
      check("semver_caret", "1.2.3", { "1.9.0": true, "2.0.0": false, "1.2.2": false })
      check("semver_caret", "0.2.3", { "0.2.9": true, "0.3.0": false })
      check("semver_caret", "0.0.3", { "0.0.3": true, "0.0.4": false })
      check("semver_wildcard", "1.2.*", { "1.2.0": true, "1.2.99": true, "1.3.0": false, "1.2.0-rc": false })
      check("semver_wildcard", "1.*", { "1.0.0": true, "1.99.0": true, "2.0.0": false })
      check("semver_wildcard", "v01.02.*", { "1.2.5": true })
      check("semver_wildcard", "*", { "9.9.9": true })
      check("semver_wildcard", "1.*.3", { "1.0.3": false })
      check("semver_tilde", "not.a.version", { "1.0.0": false })
    })
  })
})
