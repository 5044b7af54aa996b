import { isObject } from "../domain/json.js"
import { Context, Effect, Either, Layer } from "effect"
import type { Project } from "../domain/models.js"
import { type RefreshMode, refreshMode } from "../queries/cachePolicy.js"
import { type InsightRequest, insightSourceOf } from "../queries/request.js"
import { type QueryAnswer, type QueryRunError, QueryRunner } from "../queries/runner.js"
import { QueryFailed } from "../services/QueryExecutor.js"
import { PLANNERS } from "./planners/index.js"
import { sqlSource, withFiltersOverride } from "./queryNode.js"

/** The computed side of an insight as the API shows it; null wherever nothing was computed. */
export interface InsightComputed {
  readonly result: unknown
  readonly hasMore: boolean | null
  readonly columns: ReadonlyArray<string> | null
  readonly types: ReadonlyArray<unknown> | null
  readonly zedql: string | null
  readonly is_cached: boolean
  readonly last_refresh: Date | null
  readonly cache_target_age: Date | null
  readonly next_allowed_client_refresh: Date | null
  readonly query_status: unknown
}

export const NOTHING_COMPUTED: InsightComputed = {
  result: null,
  hasMore: null,
  columns: null,
  types: null,
  zedql: null,
  is_cached: false,
  last_refresh: null,
  cache_target_age: null,
  next_allowed_client_refresh: null,
  query_status: null
}

/**
 * Computes (or finds in the cache) an insight's result under a refresh mode. The query is the one
 * in effect: a dashboard's filters are already applied to it.
 */
export class InsightCompute extends Context.Tag("@zed/core/InsightCompute")<
  InsightCompute,
  {
    readonly read: (
      project: Project,
      query: unknown,
      refresh: RefreshMode
    ) => Effect.Effect<InsightComputed, QueryRunError>
    /** An insight kind sent to the query API, bare or in an InsightVizNode, as its answer. */
    readonly answer: (project: Project, request: InsightRequest) => Effect.Effect<QueryAnswer, QueryRunError>
  }
>() {}

const date = (value: unknown) => (typeof value === "string" ? new Date(value) : null)

/** A query API answer as an insight's fields (an answer from a miss or a status has no results). */
const fromAnswer = (body: Record<string, unknown>): InsightComputed => ({
  result: body["results"] ?? null,
  hasMore: typeof body["hasMore"] === "boolean" ? body["hasMore"] : null,
  columns: (body["columns"] as ReadonlyArray<string> | undefined) ?? null,
  types: (body["types"] as ReadonlyArray<unknown> | undefined) ?? null,
  zedql: typeof body["zedql"] === "string" ? body["zedql"] : null,
  is_cached: body["is_cached"] === true,
  last_refresh: date(body["last_refresh"]),
  cache_target_age: date(body["cache_target_age"]),
  next_allowed_client_refresh: date(body["next_allowed_client_refresh"]),
  query_status: body["query_status"] ?? null
})

/** The source of an InsightVizNode of a kind Zed plans. */
const insightSource = (node: unknown) =>
  isObject(node) &&
  node["kind"] === "InsightVizNode" &&
  isObject(node["source"]) &&
  Object.hasOwn(PLANNERS, String(node["source"]["kind"]))
    ? node["source"]
    : undefined

/** What sets how soon a result goes stale: the interval, or retention's period. */
const intervalOf = (source: Record<string, unknown>): string | undefined => {
  const period = isObject(source["retentionFilter"]) ? source["retentionFilter"]["period"] : undefined
  const interval = period ?? source["interval"]
  return typeof interval === "string" ? interval : undefined
}

/**
 * Every insight goes through the query API's runner (same cache, same refresh policy, same
 * background runs): ZedQL tables and visualizations as queries, the insight kinds as their plans.
 */
export const InsightComputeLive = Layer.effect(
  InsightCompute,
  Effect.map(QueryRunner, (runner) => {
    /** An insight kind's source through its planner, by the runner: saved insights and the query API alike. */
    const planned = (
      project: Project,
      source: Record<string, unknown>,
      refresh: RefreshMode,
      clientQueryId?: string | null
    ) => {
      const kind = String(source["kind"])
      const plan = Effect.suspend(() =>
        PLANNERS[kind]!(source, { timezone: project.timezone, now: new Date(), weekStartDay: 0 })
      ).pipe(Effect.mapError((error) => new QueryFailed({ message: error.message })))
      return runner.runPlan(project, {
        kind,
        query: source,
        plan,
        refresh,
        interval: intervalOf(source),
        client_query_id: clientQueryId
      })
    }
    return InsightCompute.of({
      read: (project, query, refresh) => {
        const sql = sqlSource(query)
        if (sql !== undefined) {
          // Stored sources were checked on write; a dashboard's filters may still not fit.
          if (Either.isLeft(sql)) return Effect.fail(new QueryFailed({ message: sql.left }))
          return Effect.map(runner.run(project, { query: sql.right, refresh }), (answer) => fromAnswer(answer.body))
        }
        const source = insightSource(query)
        if (source === undefined) return Effect.succeed(NOTHING_COMPUTED)
        return Effect.map(planned(project, source, refresh), (answer) => fromAnswer(answer.body))
      },
      answer: (project, request) =>
        Effect.suspend(() =>
          planned(
            project,
            withFiltersOverride(insightSourceOf(request.query), request.filters_override),
            refreshMode(request.refresh, request.async),
            request.client_query_id
          )
        )
    })
  })
)
