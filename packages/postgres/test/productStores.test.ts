import { describe, expect, it } from "@effect/vitest"
import {
  depthBucket,
  EarlyAccessFeatureStore,
  FlagStore,
  type HeatmapPoint,
  HeatmapStore,
  relativeX,
  SCALE_FACTOR,
  type StoredSurvey,
  SurveyStore,
  uuidv7
} from "@zed/core/storage"
import { Effect, Option } from "effect"
import fc from "fast-check"
import { backends as storageBackends, suiteStorage } from "./backends.js"

// The survey, early access feature and heatmap stores, alike in memory, on PGlite and on a
// PostgreSQL server: the heatmap aggregates are checked against a plain count of random points.

const backends = storageBackends("product-stores")

const survey = (name: string, fields: Partial<StoredSurvey> = {}) => ({
  id: uuidv7(),
  name,
  description: "",
  type: "popover",
  schedule: null,
  questions: [{ id: "q1", type: "open", question: "Why?" }],
  conditions: { url: "/pricing", urlMatchType: "icontains" as const },
  appearance: null,
  linked_flag_id: null,
  targeting_flag_id: null,
  internal_targeting_flag_id: null,
  start_date: null,
  end_date: null,
  archived: false,
  responses_limit: null,
  enable_partial_responses: null,
  created_by: 1,
  ...fields
})

const URLS = ["https://a.example/", "https://a.example/x", "https://b.example/"]
const DAY = Date.UTC(2026, 0, 10)

const point = fc.record({
  url: fc.constantFrom(...URLS),
  type: fc.constantFrom("click", "scrolldepth"),
  who: fc.constantFrom("ann", "bob", "cat"),
  x: fc.integer({ min: 0, max: 200 }),
  y: fc.integer({ min: 0, max: 300 }),
  width: fc.integer({ min: 0, max: 120 }),
  height: fc.integer({ min: 1, max: 80 }),
  fixed: fc.boolean(),
  minute: fc.integer({ min: 0, max: 60 * 48 })
})

describe.each(["memory", "pglite", "postgres"])("%s", (name) => {
  const suite = suiteStorage(backends[name]!)
  const { run } = suite

  it("surveys: create, get, list (search, archived), unique names per project, update, remove", async () => {
    const store = await run(SurveyStore)
    const first = await run(
      store.create(
        1,
        survey("Onboarding", {
          questions: [{ id: "a", type: "rating", question: "Score?", scale: 10 }],
          start_date: new Date(DAY)
        })
      )
    )
    expect(first).toMatchObject({
      name: "Onboarding",
      questions: [{ id: "a", scale: 10 }],
      conditions: { url: "/pricing" },
      start_date: new Date(DAY),
      archived: false
    })
    expect(Option.getOrThrow(await run(store.get(1, first.id)))).toEqual(first)
    expect(Option.isNone(await run(store.get(suite.other, first.id)))).toBe(true)
    expect(Option.isNone(await run(store.get(1, "not-a-uuid")))).toBe(true)
    const twin = await run(Effect.either(store.create(1, survey("Onboarding"))))
    expect(twin._tag === "Left" && twin.left.conflict).toBe(true)
    // Another project may use the name.
    await run(store.create(suite.other, survey("Onboarding")))
    const second = await run(store.create(1, survey("Churn", { description: "Why people leave" })))

    expect((await run(store.list(1, { limit: 10, offset: 0 }))).results.map((s) => s.name)).toEqual([
      "Churn",
      "Onboarding"
    ])
    expect((await run(store.list(1, { search: "LEAVE", limit: 10, offset: 0 }))).results.map((s) => s.id)).toEqual([
      second.id
    ])
    const archived = Option.getOrThrow(
      await run(
        store.update(1, first.id, { archived: true, appearance: { position: "left" }, end_date: new Date(DAY + 1000) })
      )
    )
    expect(archived).toMatchObject({
      archived: true,
      appearance: { position: "left" },
      end_date: new Date(DAY + 1000),
      name: "Onboarding"
    })
    expect(archived.updated_at.getTime()).toBeGreaterThanOrEqual(first.updated_at.getTime())
    expect((await run(store.list(1, { archived: true, limit: 10, offset: 0 }))).count).toBe(1)
    expect((await run(store.unarchived(1))).map((s) => s.id)).toEqual([second.id])
    const renamed = await run(Effect.either(store.update(1, second.id, { name: "Onboarding" })))
    expect(renamed._tag === "Left" && renamed.left.conflict).toBe(true)
    expect(Option.getOrThrow(await run(store.update(1, second.id, { conditions: null }))).conditions).toBeNull()

    expect(await run(store.remove(1, first.id))).toBe(true)
    expect(await run(store.remove(1, first.id))).toBe(false)
    expect(Option.isNone(await run(store.get(1, first.id)))).toBe(true)
  })

  it("early access features: one per flag, by stage, update and remove", async () => {
    const flags = await run(FlagStore)
    const flag = (key: string) =>
      run(
        flags.create(1, {
          key,
          name: key,
          filters: {},
          active: true,
          ensure_experience_continuity: false,
          bucketing_identifier: null,
          evaluation_runtime: "all",
          evaluation_contexts: [],
          tags: [],
          created_by: 1
        })
      )
    const [f1, f2] = [await flag(`eaf-${name}-1`), await flag(`eaf-${name}-2`)]
    const store = await run(EarlyAccessFeatureStore)
    const feature = (flagId: number, stage: string, title: string) => ({
      id: uuidv7(),
      feature_flag_id: flagId,
      name: title,
      description: "",
      stage,
      documentation_url: ""
    })
    const beta = await run(store.create(1, feature(f1.id, "beta", "Beta one")))
    const taken = await run(Effect.either(store.create(1, feature(f1.id, "alpha", "Again"))))
    expect(taken._tag === "Left" && taken.left.conflict).toBe(true)
    const alpha = await run(store.create(1, feature(f2.id, "alpha", "Alpha one")))
    expect((await run(store.atStages(1, ["beta", "alpha"]))).map((f) => f.id)).toEqual([beta.id, alpha.id])
    expect((await run(store.atStages(1, []))).length).toBe(0)
    expect((await run(store.list(1, { limit: 10, offset: 0 }))).results.map((f) => f.id)).toEqual([alpha.id, beta.id])
    expect(Option.getOrThrow(await run(store.update(1, alpha.id, { stage: "beta", name: "Now beta" })))).toMatchObject({
      stage: "beta",
      name: "Now beta",
      feature_flag_id: f2.id
    })
    expect(Option.isNone(await run(store.get(suite.other, alpha.id)))).toBe(true)
    expect(await run(store.remove(1, alpha.id))).toBe(true)
    expect((await run(store.atStages(1, ["beta"]))).map((f) => f.id)).toEqual([beta.id])
  })

  it("heatmaps: places and depths counted as a plain count of the points says, each point kept once", async () => {
    const store = await run(HeatmapStore)
    let runs = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(point, { maxLength: 40 }),
        fc.constantFrom<"total_count" | "unique_visitors">("total_count", "unique_visitors"),
        fc.subarray(URLS, { minLength: 1 }),
        fc.option(fc.integer({ min: 0, max: 120 }), { nil: undefined }),
        async (drawn, aggregation, urls, widthMin) => {
          // Each run's points in days of their own, so that earlier runs' points fall outside its range.
          const base = DAY + runs++ * 10 * 86_400_000
          const projectId = suite.other
          const event = uuidv7()
          const points: Array<HeatmapPoint> = drawn.map((p, ordinal) => ({
            event_uuid: event,
            ordinal,
            timestamp: new Date(base + p.minute * 60_000),
            session_id: null,
            distinct_id: p.who,
            type: p.type,
            x: p.x,
            y: p.y,
            scale_factor: SCALE_FACTOR,
            viewport_width: p.width,
            viewport_height: p.height,
            pointer_target_fixed: p.fixed,
            current_url: p.url
          }))
          await run(store.insert(projectId, points))
          await run(store.insert(projectId, points))
          const range = { from: new Date(base + 60 * 60_000), to: new Date(base + 24 * 60 * 60_000) }
          const kept = points.filter(
            (p) =>
              p.timestamp >= range.from &&
              p.timestamp < range.to &&
              urls.includes(p.current_url) &&
              (widthMin === undefined || p.viewport_width >= widthMin)
          )
          const selection = { ...range, urls, viewportWidthMin: widthMin, aggregation, limit: 1000 }
          const count = (group: ReadonlyArray<HeatmapPoint>) =>
            aggregation === "total_count" ? group.length : new Set(group.map((p) => p.distinct_id)).size
          const expected = <K>(
            type: string,
            keyOf: (p: HeatmapPoint) => K,
            include: (p: HeatmapPoint) => boolean = () => true
          ) => {
            const groups = new Map<string, Array<HeatmapPoint>>()
            for (const p of kept.filter((p) => p.type === type && include(p)))
              groups.set(JSON.stringify(keyOf(p)), [...(groups.get(JSON.stringify(keyOf(p))) ?? []), p])
            return new Map([...groups].map(([key, group]) => [key, count(group)]))
          }
          const places = await run(store.points(projectId, { ...selection, type: "click" }))
          expect(
            new Map(
              places.map((p) => [JSON.stringify([p.pointer_target_fixed, p.pointer_relative_x, p.pointer_y]), p.count])
            )
          ).toEqual(
            expected(
              "click",
              (p) => [p.pointer_target_fixed, relativeX(p.x, p.viewport_width), p.y * p.scale_factor],
              (p) => p.viewport_width > 0
            )
          )
          expect(places.map((p) => p.count)).toEqual([...places.map((p) => p.count)].sort((a, b) => b - a))
          const depths = await run(store.depths(projectId, { ...selection, type: "scrolldepth" }))
          expect(new Map(depths.map((d) => [JSON.stringify(d.bucket), d.count]))).toEqual(
            expected("scrolldepth", (p) => depthBucket(p.y, p.viewport_height, p.scale_factor))
          )
          expect(depths.map((d) => d.bucket)).toEqual([...depths.map((d) => d.bucket)].sort((a, b) => a - b))
          const clickUrls = [
            ...new Set(
              points
                .filter((p) => p.type === "click" && p.timestamp >= range.from && p.timestamp < range.to)
                .map((p) => p.current_url)
            )
          ].sort()
          expect(await run(store.urls(projectId, { ...range, type: "click" }, 10))).toEqual(clickUrls)
        }
      ),
      { numRuns: name === "memory" ? 60 : 15 }
    )
  }, 120_000)
})
