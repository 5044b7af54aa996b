import { randomUUID } from "node:crypto"
import { Cache, Context, Duration, Effect, Exit, FiberMap, Layer, Option, Schedule } from "effect"
import type { Project } from "../domain/models.js"
import { PropertyDefinitions, type PropertyType } from "../services/PropertyDefinitions.js"
import { ActionStore } from "../services/ActionStore.js"
import { type CachedResponse, QueryCache } from "../services/QueryCache.js"
import { QueryCancelled, QueryExecutor, type QueryFailed, type QueryTimeout } from "../services/QueryExecutor.js"
import { type QueryStatus, QueryStatusStore } from "../services/QueryStatusStore.js"
import { ZedConfig } from "../services/ZedConfig.js"
import { StorageError } from "../services/StorageError.js"
import { Grammar, type GrammarRefused } from "../grammar/pool.js"
import type { ZedQLError } from "../zedql/errors.js"
import { dateBound } from "../zedql/filters.js"
import { jsonRows } from "../zedql/results.js"
import { clickhouseName } from "../zedql/types.js"
import type { InsightPlan } from "../insights/plan.js"
import { Lifecycle } from "../lifecycle/Lifecycle.js"
import type { SelectLike } from "../zedql/ast.js"
import { type CompileOptions, compileZedQLTree } from "../zedql/compile.js"
import { cohortRefs } from "../zedql/cohorts.js"
import { filterCohorts } from "../zedql/filters.js"
import { parseSelect } from "../zedql/parse.js"
import { membersByRef } from "../flags/cohortMembers.js"
import { CohortStore } from "../services/CohortStore.js"
import { PersonStore } from "../services/PersonStore.js"
import {
  cacheExpiry,
  cacheTargetAge,
  decideCaching,
  intervalStaleness,
  nextAllowedClientRefresh,
  type QueryFreshness,
  type RefreshMode,
  refreshMode,
  ZEDQL_STALENESS
} from "./cachePolicy.js"
import { makeAdmission, type QueryLimitReached } from "./admission.js"
import { cacheKey } from "./cacheKey.js"
import { effectiveQuery, placeholderValues, type ZedQLQueryNode, type ZedQLRequest } from "./request.js"

// The query API's engine: the refresh policy decides between the cache, computing now and
// computing in the background; background runs are tracked in the status store (so any instance
// can answer a poll) and can be stopped for real.

/** How long a query may run: blocking requests wait for it; background ones may take longer. */
export const BLOCKING_TIMEOUT = Duration.seconds(60)
export const ASYNC_TIMEOUT = Duration.seconds(600)
/** How long a background query's status is kept after it ends (PostHog: 10 minutes). */
const STATUS_TTL = Duration.minutes(10)
const CLEANUP_EVERY = Duration.minutes(1)
/** How often a background query checks that it was not cancelled from another instance. */
const CANCEL_CHECK_EVERY = Duration.seconds(1)

export type QueryRunError =
  | ZedQLError
  | GrammarRefused
  | QueryLimitReached
  | QueryTimeout
  | QueryCancelled
  | QueryFailed
  | StorageError

/**
 * Where a query stands when answered: `complete`, still `running` in the background, or ended in an
 * error, the query's own (`invalid`) or the server's (`failed`).
 */
export type QueryState = "complete" | "running" | "invalid" | "failed"

/** An answer: where the query stands and the body. */
export interface QueryAnswer {
  readonly state: QueryState
  readonly body: Record<string, unknown>
}

/** An insight query planned into ZedQL statements; `query` (the node) names it in the cache. */
export interface PlanRequest {
  readonly kind: string
  readonly query: Readonly<Record<string, unknown>>
  /** Planned only when the result is computed: a read from the cache needs no plan. */
  readonly plan: Effect.Effect<InsightPlan, QueryFailed>
  /** The insight's interval (retention: its period), which sets how soon a result goes stale. */
  readonly interval?: string | null | undefined
  /** The end of the insight's date range when it is fixed: a result of a past range never goes stale. */
  readonly dateTo?: Date | null | undefined
  readonly refresh?: RefreshMode | boolean | null | undefined
  readonly client_query_id?: string | null | undefined
}

/** What the runner computes and caches: a ZedQL query, or an insight's plan. */
interface Job {
  readonly key: string
  readonly mode: RefreshMode
  readonly freshness: QueryFreshness
  /** The response, from statements run as `executionId` and stopped past `timeout`. */
  readonly compute: (
    executionId: string,
    timeout: Duration.Duration
  ) => Effect.Effect<Record<string, unknown>, QueryRunError>
}

export class QueryRunner extends Context.Tag("@zed/core/QueryRunner")<
  QueryRunner,
  {
    readonly run: (project: Project, request: ZedQLRequest) => Effect.Effect<QueryAnswer, QueryRunError>
    /** An insight query node through its plan, with the same cache, refresh modes and background runs. */
    readonly runPlan: (project: Project, request: PlanRequest) => Effect.Effect<QueryAnswer, QueryRunError>
    /** Runs one statement Zed built now, outside the cache (its own reads, such as recording lists): its rows as JSON values. */
    readonly select: (
      project: Project,
      query: SelectLike
    ) => Effect.Effect<ReadonlyArray<ReadonlyArray<unknown>>, QueryRunError>
    /**
     * Runs one statement outside the cache, its columns named: a page of an export. A ZedQL node's
     * placeholder values and filters are given with it.
     */
    readonly table: (
      project: Project,
      query: SelectLike,
      options?: Pick<CompileOptions, "values" | "filters">
    ) => Effect.Effect<
      { readonly columns: ReadonlyArray<string>; readonly rows: ReadonlyArray<ReadonlyArray<unknown>> },
      QueryRunError
    >
    /** A background query's status; none when unknown or expired. */
    readonly status: (project: Project, id: string) => Effect.Effect<Option.Option<QueryAnswer>, StorageError>
    /** Stops a background query and forgets it; answers whether there was one. */
    readonly cancel: (project: Project, id: string) => Effect.Effect<boolean, StorageError>
    /** A project's property types or actions changed: statements this process compiles from now on use the new ones. */
    readonly definitionsChanged: (projectId: number) => Effect.Effect<void>
  }
>() {}

const iso = (date: Date | null) => date?.toISOString() ?? null

const statusJson = (s: QueryStatus) => ({
  ...s,
  start_time: iso(s.start_time),
  pickup_time: iso(s.pickup_time),
  end_time: iso(s.end_time),
  expiration_time: iso(s.expiration_time)
})

const plus = (date: Date, duration: Duration.Duration) => new Date(date.getTime() + Duration.toMillis(duration))

/** A date range's end, when it is a fixed date: results of a past range never go stale. */
const fixedDateTo = (node: ZedQLQueryNode): Date | null => {
  const to = node.filters?.dateRange?.date_to
  if (to == null || dateBound(to)?.node !== "Call") return null
  const parsed = Date.parse(to)
  return Number.isNaN(parsed) ? null : new Date(parsed)
}

/** What the user sees of a failed query: the message of their mistakes, nothing of ours. */
export const userMessage = (error: QueryRunError): string | null => {
  switch (error._tag) {
    case "ZedQLSyntaxError":
    case "ZedQLQueryError":
    case "GrammarRefused":
    case "QueryLimitReached":
    case "QueryFailed":
      return error.message
    case "QueryTimeout":
      return `Query took longer than ${Math.round(error.timeoutMs / 1000)} seconds and was stopped`
    case "QueryCancelled":
      return "Query was cancelled"
    case "StorageError":
      return null
  }
}

export const QueryRunnerLive = Layer.scoped(
  QueryRunner,
  Effect.gen(function* () {
    const executor = yield* QueryExecutor
    const lifecycle = yield* Lifecycle
    const admission = makeAdmission((yield* ZedConfig).limits.concurrentQueries)
    const cache = yield* QueryCache
    const statuses = yield* QueryStatusStore
    const definitions = yield* PropertyDefinitions
    const actions = yield* ActionStore
    const cohortStores = Context.make(CohortStore, yield* CohortStore).pipe(
      Context.add(PersonStore, yield* PersonStore)
    )
    const background = yield* FiberMap.make<string>()

    // What statements are compiled with: property types and actions. They change rarely (a new key)
    // and property types only widen on their own; a change made here is forgotten at once
    // (`definitionsChanged`), elsewhere within a minute.
    const vocabulary = yield* Cache.make({
      capacity: 1000,
      timeToLive: Duration.minutes(1),
      lookup: (projectId: number) =>
        Effect.all({
          types: Effect.map(
            definitions.list(projectId),
            (list) => new Map(list.map((d) => [`${d.owner}:${d.key}`, d.propertyType] as const))
          ),
          actions: Effect.map(actions.all(projectId), (list) => new Map(list.map((a) => [a.id, a.steps] as const)))
        })
    })

    /** Compiles and runs one ZedQL statement (a user's text, or a tree Zed built) as `executionId`, its rows as JSON values. */
    const execute = (
      project: Project,
      query: string | SelectLike,
      options: Pick<CompileOptions, "values" | "filters">,
      executionId: string,
      timeout: Duration.Duration
    ) =>
      Effect.gen(function* () {
        const { actions, types } = yield* vocabulary.get(project.id)
        const tree = typeof query === "string" ? yield* parseSelect(query) : query
        // The members of the cohorts it and its filters name (`IN COHORT`), as of now.
        const refs = [...new Set([...cohortRefs(tree), ...filterCohorts(options.filters)])]
        const members =
          refs.length === 0
            ? new Map<number | string, ReadonlyArray<string>>()
            : yield* Effect.provide(
                membersByRef(project.id, refs, { timezone: project.timezone, now: new Date() }),
                cohortStores
              )
        const compileOptions: CompileOptions = {
          ...options,
          projectId: project.id,
          timezone: project.timezone,
          dialect: executor.dialect,
          propertyType: (owner, name) => types.get(`${owner}:${name}`) as PropertyType | undefined,
          actionSteps: (id) => actions.get(id),
          cohortMembers: (ref) => members.get(ref)
        }
        const compiled = yield* compileZedQLTree(tree, compileOptions)
        const compiledAt = performance.now()
        // A shutdown stops the statement (on PGlite it holds the one session the writer must flush through).
        const result = yield* executor
          .execute({
            sql: compiled.sql,
            params: compiled.params,
            timezone: project.timezone,
            timeoutMs: Duration.toMillis(timeout),
            executionId
          })
          .pipe(
            Effect.raceFirst(
              Effect.zipRight(
                lifecycle.shuttingDown,
                new StorageError({ message: "Zed is shutting down", unavailable: true })
              )
            )
          )
        return {
          compiled,
          compiledAt,
          rows: jsonRows(
            result.rows,
            compiled.columns.map((c) => c.type)
          )
        }
      })

    /** A ZedQL query's response: its page of rows, their columns and types, the normalized query. */
    const zedqlJob = (project: Project, node: ZedQLQueryNode, key: string, mode: RefreshMode): Job => ({
      key,
      mode,
      freshness: { staleness: ZEDQL_STALENESS, dateTo: fixedDateTo(node) },
      compute: (executionId, timeout) =>
        Effect.gen(function* () {
          const started = performance.now()
          const {
            compiled,
            compiledAt,
            rows: all
          } = yield* execute(
            project,
            node.query,
            { values: placeholderValues(node), filters: node.filters ?? undefined },
            executionId,
            timeout
          )
          const executedAt = performance.now()
          const hasMore = compiled.page !== null && all.length > compiled.page.limit
          return {
            results: hasMore ? all.slice(0, compiled.page!.limit) : all,
            columns: compiled.columns.map((c) => c.name),
            types: compiled.columns.map((c) => [c.name, clickhouseName(c.type, project.timezone)]),
            zedql: compiled.zedql,
            query: node.query,
            timings: [
              { k: "./compile", t: (compiledAt - started) / 1000 },
              { k: "./execute", t: (executedAt - compiledAt) / 1000 },
              { k: ".", t: (performance.now() - started) / 1000 }
            ],
            ...(compiled.page ? { hasMore, limit: compiled.page.limit, offset: compiled.page.offset } : {}),
            error: null,
            explain: null,
            metadata: null,
            modifiers: node.modifiers ?? {}
          }
        })
    })

    /** An insight's response: its plan's statements run one after another, their rows shaped. */
    const planJob = (project: Project, request: PlanRequest, key: string, mode: RefreshMode): Job => ({
      key,
      mode,
      freshness: { staleness: intervalStaleness(request.interval), dateTo: request.dateTo ?? null },
      compute: (executionId, timeout) =>
        Effect.gen(function* () {
          const started = performance.now()
          const results: Array<ReadonlyArray<ReadonlyArray<unknown>>> = []
          const types: Array<ReadonlyArray<string>> = []
          const plan = yield* request.plan
          for (const query of plan.queries) {
            const { compiled, rows } = yield* execute(project, query, { values: plan.values }, executionId, timeout)
            results.push(rows)
            types.push(compiled.columns.map((c) => clickhouseName(c.type, project.timezone)))
          }
          return {
            ...plan.fields?.(results, types),
            results: plan.shape(results),
            zedql: plan.zedql,
            timings: [{ k: ".", t: (performance.now() - started) / 1000 }],
            error: null,
            modifiers: {}
          }
        })
    })

    /** Computes a job and keeps its response in the cache. */
    const compute = (project: Project, job: Job, executionId: string, timeout: Duration.Duration) =>
      Effect.gen(function* () {
        const body = yield* job.compute(executionId, timeout)
        const lastRefresh = new Date()
        const response: Record<string, unknown> = {
          ...body,
          timezone: project.timezone,
          cache_key: job.key,
          last_refresh: lastRefresh.toISOString(),
          cache_target_age: cacheTargetAge(lastRefresh, job.freshness.staleness, job.mode).toISOString(),
          next_allowed_client_refresh: nextAllowedClientRefresh(lastRefresh).toISOString()
        }
        yield* cache.put(project.id, { key: job.key, response, lastRefresh, expiresAt: cacheExpiry(lastRefresh) })
        return response
      })

    const fromCache = (entry: CachedResponse, status: QueryStatus | null) => ({
      ...(entry.response as Record<string, unknown>),
      is_cached: true,
      query_status: status === null ? null : statusJson(status)
    })

    const newStatus = (project: Project, id: string, async: boolean, timeout: Duration.Duration): QueryStatus => {
      const now = new Date()
      return {
        id,
        team_id: project.id,
        query_async: async,
        complete: false,
        error: false,
        error_message: null,
        results: null,
        start_time: now,
        pickup_time: null,
        end_time: null,
        expiration_time: plus(now, Duration.sum(timeout, STATUS_TTL)),
        task_id: randomUUID(),
        insight_id: null,
        dashboard_id: null,
        labels: null,
        query_progress: null
      }
    }

    // Another instance cancels by forgetting the status and stopping the statement: one that
    // cancelled before the statement started had nothing to stop, so a run watches its status.
    const whenForgotten = (project: Project, id: string) =>
      Effect.suspend(() => statuses.get(project.id, id, new Date())).pipe(
        Effect.repeat({ schedule: Schedule.spaced(CANCEL_CHECK_EVERY), until: Option.isNone }),
        Effect.zipRight(Effect.fail(new QueryCancelled())),
        Effect.catchTag("StorageError", () => Effect.never)
      )

    /** A blocking run the client named: while it runs, its status lets DELETE …/query/:id stop it. */
    const named = (project: Project, job: Job, id: string) =>
      Effect.acquireUseRelease(
        Effect.suspend(() => {
          const status: QueryStatus = { ...newStatus(project, id, false, BLOCKING_TIMEOUT), pickup_time: new Date() }
          return Effect.as(statuses.put(status), status)
        }),
        (status) =>
          Effect.raceFirst(compute(project, job, status.task_id!, BLOCKING_TIMEOUT), whenForgotten(project, id)),
        // The answer goes to the caller: nothing is left to poll.
        () => Effect.ignore(statuses.remove(project.id, id))
      )

    /** Starts computing in the background, tracked under `id`; answers its status. */
    const start = (project: Project, job: Job, id: string) =>
      Effect.gen(function* () {
        const status = newStatus(project, id, true, ASYNC_TIMEOUT)
        yield* statuses.put(status)
        const run = Effect.gen(function* () {
          const picked = { ...status, pickup_time: new Date() }
          // Cancelled before it started: nothing to run.
          if (!(yield* statuses.update(picked))) return
          const exit = yield* Effect.exit(
            compute(project, job, status.task_id!, ASYNC_TIMEOUT).pipe(Effect.raceFirst(whenForgotten(project, id)))
          )
          // Cancelled: whoever cancelled already forgot the status.
          if (Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error._tag === "QueryCancelled") return
          const end = new Date()
          yield* statuses.update(
            Exit.match(exit, {
              onSuccess: (response): QueryStatus => ({
                ...picked,
                complete: true,
                results: { ...response, is_cached: false },
                end_time: end,
                expiration_time: plus(end, STATUS_TTL)
              }),
              onFailure: (cause): QueryStatus => {
                const error = cause._tag === "Fail" ? cause.error : null
                return {
                  ...picked,
                  complete: true,
                  error: true,
                  error_message: error ? userMessage(error) : null,
                  end_time: end,
                  expiration_time: plus(end, STATUS_TTL)
                }
              }
            })
          )
        }).pipe(Effect.catchAll((error) => Effect.logWarning("query status could not be recorded", error.message)))
        // Its place is taken now, so an overloaded project or key hears so at once, not when polling.
        const release = yield* admission.acquire(project.id)
        yield* FiberMap.run(background, `${project.id}:${id}`, Effect.ensuring(run, release))
        return status
      })

    // Expired statuses and results are dropped now and then, by every instance.
    const sweep = Effect.gen(function* () {
      const now = new Date()
      yield* statuses.removeExpired(now)
      yield* cache.removeExpired(now)
    }).pipe(
      Effect.catchAll((error) =>
        Effect.logWarning("expired query statuses and results could not be removed", error.message)
      )
    )
    yield* Effect.forkScoped(Effect.repeat(sweep, Schedule.spaced(CLEANUP_EVERY)))

    const runningStatus = (project: Project, id: string) =>
      Effect.map(
        statuses.get(project.id, id, new Date()),
        Option.filter((s) => !s.complete)
      )

    /** Answers for a job under its refresh mode: from the cache, computed now, or in the background. */
    const answer = (project: Project, job: Job, clientQueryId: string | null | undefined) =>
      Effect.gen(function* () {
        // A background computation is named by the client's id, or by what it computes.
        const id = clientQueryId ?? job.key
        const running = Option.getOrNull(yield* runningStatus(project, id))
        const cached = Option.getOrNull(yield* cache.get(project.id, job.key))
        const decision = decideCaching({
          mode: job.mode,
          cached,
          now: new Date(),
          query: job.freshness,
          backgroundRunning: running !== null
        })
        const backgroundStatus = (action: "none" | "join" | "start") =>
          action === "start"
            ? Effect.map(start(project, job, id), (s) => s as QueryStatus | null)
            : Effect.succeed(action === "join" ? running : null)
        switch (decision._tag) {
          case "Compute": {
            const response = yield* admission.admitted(
              project.id,
              clientQueryId == null
                ? compute(project, job, randomUUID(), BLOCKING_TIMEOUT)
                : named(project, job, clientQueryId)
            )
            return {
              state: "complete",
              body: { ...response, is_cached: false, query_status: null }
            } satisfies QueryAnswer
          }
          case "Cached": {
            const status = yield* backgroundStatus(decision.background)
            return {
              state: status !== null && !status.complete ? "running" : "complete",
              body: fromCache(decision.entry, status)
            } satisfies QueryAnswer
          }
          case "Miss": {
            const status = yield* backgroundStatus(decision.background)
            return {
              state: status !== null ? "running" : "complete",
              body: { cache_key: job.key, query_status: status === null ? null : statusJson(status) }
            } satisfies QueryAnswer
          }
          case "Status": {
            const status = (yield* backgroundStatus(decision.background))!
            return { state: "running", body: { query_status: statusJson(status) } } satisfies QueryAnswer
          }
        }
      })

    // A text over the grammar's limits is refused before it takes a place among the running queries.
    const checked = (text: string) => Effect.flatMap(Grammar, (grammar) => grammar.check(text))

    const keyOf = (
      project: Project,
      runner: string,
      query: Readonly<Record<string, unknown>>,
      modifiers: unknown,
      limitContext: string
    ) =>
      cacheKey({
        queryRunner: runner,
        query,
        teamId: project.id,
        modifiers,
        limitContext,
        timezone: project.timezone,
        weekStartDay: 0
      })

    const table = (project: Project, query: SelectLike, options: Pick<CompileOptions, "values" | "filters"> = {}) =>
      Effect.map(
        admission.admitted(
          project.id,
          Effect.suspend(() => execute(project, query, options, randomUUID(), BLOCKING_TIMEOUT))
        ),
        (r) => ({ columns: r.compiled.columns.map((c) => c.name), rows: r.rows })
      )

    return QueryRunner.of({
      select: (project, query) => Effect.map(table(project, query), (r) => r.rows),
      table,

      run: (project, request) =>
        Effect.suspend(() => {
          const node = effectiveQuery(request)
          const mode = refreshMode(request.refresh, request.async)
          const key = keyOf(
            project,
            "ZedQLQueryRunner",
            { ...node, kind: "ZedQLQuery" },
            node.modifiers ?? {},
            request.limit_context ?? "query"
          )
          return Effect.zipRight(
            checked(node.query),
            answer(project, zedqlJob(project, node, key, mode), request.client_query_id)
          )
        }),

      runPlan: (project, request) =>
        Effect.suspend(() => {
          const mode = refreshMode(request.refresh)
          const key = keyOf(project, `${request.kind}Runner`, request.query, {}, "query")
          return answer(project, planJob(project, request, key, mode), request.client_query_id)
        }),

      status: (project, id) =>
        Effect.map(
          statuses.get(project.id, id, new Date()),
          Option.map(
            (s): QueryAnswer => ({
              state: !s.complete ? "running" : !s.error ? "complete" : s.error_message !== null ? "invalid" : "failed",
              body: { query_status: statusJson(s) }
            })
          )
        ),

      cancel: (project, id) =>
        Effect.gen(function* () {
          const status = yield* statuses.get(project.id, id, new Date())
          if (Option.isNone(status)) return false
          yield* statuses.remove(project.id, id)
          if (!status.value.complete) {
            // Here: stop the fiber, which stops its statement. Elsewhere: stop the statement.
            yield* FiberMap.remove(background, `${project.id}:${id}`)
            if (status.value.task_id !== null) yield* executor.cancel(status.value.task_id)
          }
          return true
        }),

      definitionsChanged: (projectId) => vocabulary.invalidate(projectId)
    })
  })
)
