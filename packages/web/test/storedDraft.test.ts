import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import type { FunnelDraft } from "../src/components/FunnelForm.js"
import type { LifecycleDraft } from "../src/components/LifecycleForm.js"
import type { FilterDraft } from "../src/components/PropertyFilters.js"
import type { RetentionDraft } from "../src/components/RetentionForm.js"
import type { StickinessDraft } from "../src/components/StickinessForm.js"
import type { TrendsDraft } from "../src/components/TrendsForm.js"
import { BUILDERS, type BuilderKind, storedDraft } from "../src/insightBuilders.js"

// Editing a saved insight reads its stored query back into the builder's draft: whatever query a
// builder made, the draft read back makes the same query again (so Save without changes keeps it),
// for every kind and any draft the forms can hold.

const name = fc.oneof(fc.constantFrom("", "$pageview", "signed up", " purchase "), fc.string({ maxLength: 12 }))
const wholeText = fc.integer({ min: 1, max: 400 }).map(String)
const dateFrom = fc.constantFrom("-24h", "-7d", "-14d", "-30d", "-90d", "mStart", "yStart" as const)
const interval = fc.constantFrom("hour", "day", "week", "month" as const)

const filter: fc.Arbitrary<FilterDraft> = fc.oneof(
  fc.record({
    type: fc.constantFrom("event", "person" as const),
    key: name,
    operator: fc.constantFrom("exact", "is_not", "icontains", "not_icontains" as const),
    value: fc.string({ maxLength: 8 })
  }),
  fc.record({
    type: fc.constantFrom("event", "person" as const),
    key: name,
    operator: fc.constantFrom("gt", "lt" as const),
    value: fc.double({ noNaN: true, noDefaultInfinity: true }).map(String)
  }),
  fc.record({
    type: fc.constantFrom("event", "person" as const),
    key: name,
    operator: fc.constantFrom("is_set", "is_not_set" as const),
    value: fc.constant("")
  })
)
const filters = fc.array(filter, { maxLength: 3 })
const breakdown = {
  breakdown: fc.oneof(fc.constant(""), name),
  breakdownType: fc.constantFrom("event", "person" as const)
}

const DRAFTS: { [K in BuilderKind]: fc.Arbitrary<(typeof BUILDERS)[K]["initial"]> } = {
  trends: fc.record<TrendsDraft>({
    series: fc.array(
      fc.record({
        event: name,
        math: fc.constantFrom("total", "dau", "weekly_active", "avg_count_per_actor", "sum", "p90" as const),
        property: name,
        filters
      }),
      { minLength: 1, maxLength: 3 }
    ),
    filters,
    ...breakdown,
    breakdownLimit: fc.oneof(fc.constant(""), wholeText),
    hideOther: fc.boolean(),
    interval,
    dateFrom,
    compare: fc.boolean(),
    formula: fc.oneof(fc.constant(""), fc.constantFrom("A / B", " A + B * 2 ")),
    display: fc.constantFrom("ActionsLineGraph", "ActionsBar", "BoldNumber", "ActionsPie", "WorldMap" as const)
  }),
  funnel: fc.record<FunnelDraft>({
    steps: fc.array(name, { minLength: 2, maxLength: 4 }),
    window: wholeText,
    unit: fc.constantFrom("minute", "hour", "day", "week", "month" as const),
    order: fc.constantFrom("ordered", "strict", "unordered" as const),
    dateFrom,
    ...breakdown,
    viz: fc.constantFrom("steps", "time_to_convert", "trends" as const),
    interval
  }),
  retention: fc.record<RetentionDraft>({
    start: name,
    returning: name,
    period: fc.constantFrom("Hour", "Day", "Week", "Month" as const),
    intervals: wholeText,
    type: fc.constantFrom("retention_recurring", "retention_first_time" as const)
  }),
  stickiness: fc.record<StickinessDraft>({
    events: fc.array(name, { minLength: 1, maxLength: 3 }),
    interval,
    dateFrom,
    computedAs: fc.constantFrom("non_cumulative", "cumulative" as const)
  }),
  lifecycle: fc.record<LifecycleDraft>({
    event: name,
    interval,
    dateFrom,
    statuses: fc.subarray(["new", "returning", "resurrecting", "dormant"] as const)
  })
}

describe("a stored query read back into the builder", () => {
  for (const kind of Object.keys(BUILDERS) as Array<BuilderKind>) {
    it(`${kind}: the draft read back makes the stored query again`, () => {
      const builder = BUILDERS[kind] as unknown as { query: (draft: unknown) => Parameters<typeof storedDraft>[0] }
      fc.assert(
        fc.property(DRAFTS[kind] as fc.Arbitrary<unknown>, (draft) => {
          const query = builder.query(draft)
          const read = storedDraft(query)
          expect(read?.kind).toBe(kind)
          expect(read?.exact).toBe(true)
          expect(builder.query(read!.draft)).toEqual(query)
        })
      )
    })
  }

  it("a query with fields the builder does not edit is read, and said to differ", () => {
    const query = BUILDERS.trends.query(BUILDERS.trends.initial)
    const read = storedDraft({ ...query, source: { ...query.source!, filterTestAccounts: true } })
    expect(read).toMatchObject({ kind: "trends", draft: BUILDERS.trends.initial, exact: false })
    expect(storedDraft({ kind: "DataVisualizationNode", source: { kind: "HogQLQuery", query: "SELECT 1" } })).toBe(
      undefined
    )
  })
})
