import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { Project } from "../src/domain/models.js"
import type { InsightContext, InsightPlan } from "../src/insights/plan.js"
import { planFunnels } from "../src/insights/planners/funnels.js"
import { planRetention } from "../src/insights/planners/retention.js"
import { QueryRunner } from "../src/queries/runner.js"
import { recordingsQuery } from "../src/recordings/filters.js"
import { surveyResults } from "../src/surveys/results.js"
import type { StoredSurvey } from "../src/services/SurveyStore.js"
import type { SelectLike } from "../src/zedql/ast.js"
import { Grammar, type GrammarPool, makeGrammarPool } from "../src/grammar/pool.js"
import { compileZedQL, compileZedQLTree } from "../src/zedql/compile.js"
import { CONTEXT } from "./insightsPlanning.js"

// Planned statements are trees with `{now}` a placeholder: nothing is left to parse when they run,
// and a plan made a moment later is the same statements with another value.

const later = (ms: number): InsightContext => ({ ...CONTEXT, now: new Date(CONTEXT.now.getTime() + ms) })

const compile = (query: SelectLike, values?: InsightPlan["values"]) =>
  Effect.runPromise(compileZedQLTree(query, { projectId: 1, timezone: "UTC", values }))

/** How many texts the grammar pool is asked to parse while `effect` runs. */
const parses = async (effect: Effect.Effect<unknown, unknown>): Promise<number> => {
  const pool = makeGrammarPool()
  let count = 0
  const counting: GrammarPool = {
    ...pool,
    parse: (rule, text) => {
      count++
      return pool.parse(rule, text)
    }
  }
  try {
    await Effect.runPromise(Effect.provideService(effect, Grammar, counting))
    return count
  } finally {
    await pool.close()
  }
}

describe("parsing", () => {
  it("a user's text is parsed (by the pool, off this thread)", async () => {
    expect(await parses(compileZedQL("SELECT 1", { projectId: 1, timezone: "UTC" }))).toBe(1)
  })
})

describe("planned statements", () => {
  const node = { kind: "RetentionQuery", retentionFilter: { period: "Day", totalIntervals: 3 } }

  it("are trees, the same from one moment to the next, now a value of the plan", async () => {
    const first = Effect.runSync(planRetention(node, CONTEXT))
    const next = Effect.runSync(planRetention(node, later(1234)))
    expect(next.queries).toEqual(first.queries)
    expect(next.values).toEqual({ now: "2026-03-20T15:30:01.234Z" })
    const compiled = await compile(next.queries[1]!, next.values)
    expect(compiled.params).toContain("2026-03-20T15:30:01.234Z")
    expect(compiled.sql).not.toContain("2026-03-20T15:30:01.234Z")
  })

  it("funnels too: planned and compiled, nothing is parsed", async () => {
    const funnel = {
      kind: "FunnelsQuery",
      series: [{ event: "$pageview" }, { event: "signed_up" }, { event: "paid" }],
      breakdownFilter: { breakdown: "$browser" },
      funnelsFilter: {
        funnelOrderType: "unordered",
        exclusions: [{ event: "left", funnelFromStep: 0, funnelToStep: 1 }]
      }
    }
    const run = (ctx: InsightContext) =>
      Effect.flatMap(planFunnels(funnel, ctx), (plan) =>
        Effect.forEach(plan.queries, (q) => compileZedQLTree(q, { projectId: 1, timezone: "UTC", values: plan.values }))
      )
    expect(await parses(run(CONTEXT))).toBe(0)
    expect(await parses(run(later(5)))).toBe(0)
    expect(Effect.runSync(planFunnels(funnel, later(5))).queries).toEqual(
      Effect.runSync(planFunnels(funnel, CONTEXT)).queries
    )
  })
})

describe("Zed's own reads", () => {
  const project = { id: 1, timezone: "UTC", test_account_filters: [] } as unknown as Project
  /** A runner that compiles what it is given and answers no rows. */
  const runner = Layer.succeed(QueryRunner, {
    select: (_project: Project, query: SelectLike) =>
      Effect.as(Effect.orDie(compileZedQLTree(query, { projectId: 1, timezone: "UTC" })), []),
    table: () => Effect.die("unused"),
    run: () => Effect.die("unused"),
    runPlan: () => Effect.die("unused"),
    status: () => Effect.die("unused"),
    cancel: () => Effect.die("unused"),
    definitionsChanged: () => Effect.die("unused")
  })

  it("a recordings list parses nothing", async () => {
    const filters = {
      date_from: "-7d",
      duration: [{ key: "duration" as const, operator: "gt" as const, value: 5 }],
      events: [{ id: "$pageview" }],
      session_ids: ["a", "b"]
    }
    const query = recordingsQuery(filters, { testAccountFilters: [] }, { limit: 10, offset: 0 })
    expect(await parses(compileZedQLTree(query, { projectId: 1, timezone: "UTC" }))).toBe(0)
  })

  it("a survey's results parse nothing", async () => {
    const survey = {
      id: "0190e1c2-0000-7000-8000-000000000001",
      questions: [
        { id: "q1", type: "open", question: "Why?" },
        { id: "q2", type: "multiple_choice", question: "Which?", choices: ["a", "b"] }
      ],
      start_date: new Date("2026-03-01T00:00:00Z"),
      created_at: new Date("2026-03-01T00:00:00Z")
    } as unknown as StoredSurvey
    const results = surveyResults(project, survey, { from: new Date("2026-03-01T00:00:00Z"), to: new Date() })
    expect(await parses(Effect.provide(results, runner))).toBe(0)
  })
})
