import { Effect, Option, Schema, Struct } from "effect"
import { queryNodeProblem } from "../../insights/queryNode.js"
import { Insight as Entity, newInsight } from "../../insights/insightEntity.js"
import { type InsightPatch, InsightStore } from "../../services/InsightStore.js"
import { Transactor } from "../../services/Transactor.js"
import { csvReply, Format } from "../csv.js"
import { NotFound } from "../errors.js"
import { ValidationError } from "../../schema/ValidationError.js"
import { PageParams, Paginated, paginated, toPage } from "../../domain/pagination.js"
import { environmentRoute, softDeleteOnly } from "../route.js"
import { findInsight, Insight, InsightRef, presentInsights, Refresh } from "../wire/insights.js"
import { check, Int4, IntFromString, IntIn } from "../../schema/fields.js"
import { changesOf, logInsightActivity, same, shortId } from "../../activity/log.js"
import { ActivityPage, ActivityParams, activityPage } from "../activityPage.js"

// Saved insights (PostHog's `/insights/`). The query node is stored as sent; what it computes comes
// from `InsightCompute` under the request's refresh mode (`force_cache` by default, which never
// computes). Deleting is soft (PATCH {"deleted": true}); DELETE answers 405.

const QueryNode = Schema.Unknown.pipe(
  check(
    (node: unknown) => queryNodeProblem(node) === undefined,
    "parse_error",
    (node: unknown) => queryNodeProblem(node)!
  )
).annotations({
  identifier: "InsightQueryNode",
  description:
    "InsightVizNode around a TrendsQuery, FunnelsQuery, RetentionQuery, StickinessQuery, LifecycleQuery or PathsQuery; or DataVisualizationNode / DataTableNode around a ZedQLQuery (or HogQLQuery)."
})

// The wire takes a null description (as none), checks the query node and orders as int4, and
// places the insight on dashboards; the rest are the entity's fields as declared.
const InsightFields = Schema.partial(
  Schema.Struct({
    ...Struct.pick(Entity.fields, "name", "derived_name"),
    description: Schema.NullOr(Schema.String),
    ...Struct.pick(Entity.fields, "filters"),
    query: Schema.NullOr(QueryNode),
    order: Schema.NullOr(Int4),
    ...Struct.pick(Entity.fields, "deleted"),
    dashboards: Schema.Array(IntIn(1)).annotations({
      description: "Dashboards to show the insight on (deprecated by PostHog but the way to place it)."
    }),
    ...Struct.pick(Entity.fields, "tags", "favorited", "saved")
  })
).annotations({ identifier: "InsightWrite" })

const ReadParams = Schema.Struct({
  format: Format,
  refresh: Schema.optional(Refresh)
})

/** JSON as the response schema gives it, or CSV with one row per insight. */
const respond = <A>(
  format: "json" | "csv" | undefined,
  rows: ReadonlyArray<Insight>,
  json: (rows: ReadonlyArray<Insight>) => A,
  status = 200
) => (format !== "csv" ? Effect.succeed(json(rows)) : csvReply(Insight, rows, status))

const checkDashboards = (projectId: number, ids: ReadonlyArray<number> | undefined) =>
  Effect.gen(function* () {
    if (ids === undefined) return
    const found = yield* (yield* InsightStore).getDashboards(projectId, ids)
    const missing = ids.find((id) => !found.some((d) => d.id === id))
    if (missing !== undefined) {
      return yield* new ValidationError({
        code: "invalid_input",
        detail: `Dashboard ${missing} does not exist.`,
        attr: "dashboards"
      })
    }
  })

/** The dashboards' names, for activity: PostHog logs them as lists of {id, name}. */
const dashboardsNamed = (projectId: number, ids: ReadonlyArray<number>) =>
  Effect.map(
    Effect.flatMap(InsightStore, (s) => s.getDashboards(projectId, ids)),
    (ds) => ds.map((d) => ({ id: d.id, name: d.name }))
  )

const list = environmentRoute({
  method: "GET",
  path: "/insights",
  tag: "insights",
  summary: "List insights",
  description:
    "Live insights, newest first. `favorited` filters by its presence alone; `saved=true` also takes insights on a dashboard.",
  scope: "insight:read",
  query: PageParams.pipe(
    Schema.extend(ReadParams),
    Schema.extend(
      Schema.Struct({
        created_by: Schema.optional(IntFromString(0)),
        short_id: Schema.optional(Schema.String),
        saved: Schema.optional(Schema.Literal("true", "false")),
        favorited: Schema.optional(Schema.String),
        search: Schema.optional(
          Schema.String.annotations({ description: "Part of the name, derived name, description or a tag." })
        )
      })
    )
  ),
  response: Paginated(Insight, "PaginatedInsightList"),
  handler: ({ project, query, request }) =>
    Effect.gen(function* () {
      const page = toPage(query)
      const { count, results } = yield* (yield* InsightStore).list(project.id, {
        created_by: query.created_by,
        short_id: query.short_id,
        saved: query.saved === undefined ? undefined : query.saved === "true",
        favorited: query.favorited === undefined ? undefined : true,
        search: query.search,
        ...page
      })
      const rows = yield* presentInsights(project, results, {
        refresh: query.refresh ?? "force_cache",
        viewer: "member"
      })
      return yield* respond(query.format, rows, (rows) => paginated(request.url, page, count, rows))
    })
})

const create = environmentRoute({
  method: "POST",
  path: "/insights",
  tag: "insights",
  summary: "Create an insight",
  scope: "insight:write",
  query: Schema.Struct({ format: Format }),
  body: InsightFields,
  response: Insight,
  status: 201,
  handler: ({ body, principal, project, query }) =>
    Effect.gen(function* () {
      yield* checkDashboards(project.id, body.dashboards)
      const store = yield* InsightStore
      const insight = yield* (yield* Transactor).transaction(
        Effect.gen(function* () {
          const insight = yield* store.create(
            project.id,
            newInsight({
              ...body,
              description: body.description ?? undefined,
              short_id: shortId(),
              created_by: principal.user.id
            })
          )
          if (body.dashboards !== undefined) yield* store.placeOn(insight.id, body.dashboards)
          yield* logInsightActivity(project.id, principal.user.id, insight, "created", [])
          return insight
        })
      )
      return yield* respond(
        query.format,
        yield* presentInsights(project, [insight], { refresh: "force_cache", viewer: "member" }),
        (rows) => rows[0]!,
        201
      )
    })
})

const retrieve = environmentRoute({
  method: "GET",
  path: "/insights/:id",
  tag: "insights",
  summary: "Retrieve an insight",
  description:
    "With `from_dashboard`, that dashboard's date range and property filters are applied to the returned `query` (and to what is computed).",
  scope: "insight:read",
  params: InsightRef,
  query: ReadParams.pipe(Schema.extend(Schema.Struct({ from_dashboard: Schema.optional(IntFromString(1)) }))),
  response: Insight,
  handler: ({ params, project, query }) =>
    Effect.gen(function* () {
      const insight = yield* findInsight(project.id, params.id)
      let dashboardFilters: Record<string, unknown> | undefined
      if (query.from_dashboard !== undefined) {
        const [dashboard] = yield* (yield* InsightStore).getDashboards(project.id, [query.from_dashboard])
        if (dashboard === undefined)
          return yield* new ValidationError({
            code: "invalid_input",
            detail: `Dashboard ${query.from_dashboard} does not exist.`,
            attr: "from_dashboard"
          })
        dashboardFilters = dashboard.filters
      }
      const rows = yield* presentInsights(project, [insight], {
        refresh: query.refresh ?? "force_cache",
        viewer: "member",
        dashboardFilters
      })
      return yield* respond(query.format, rows, (rows) => rows[0]!)
    })
})

/** The fields activity logs (PostHog's list, minus those Zed does not keep). */
const LOGGED = ["name", "derived_name", "description", "filters", "query", "deleted", "favorited", "tags"] as const
/** Changes to these move `last_modified_at`. */
const MATERIAL = new Set<string>(["name", "derived_name", "description", "filters", "query", "tags"])

const update = environmentRoute({
  method: "PATCH",
  path: "/insights/:id",
  tag: "insights",
  summary: 'Update an insight (soft-deletes it with {"deleted": true}, restores it with {"deleted": false})',
  scope: "insight:write",
  params: InsightRef,
  query: Schema.Struct({ format: Format }),
  body: InsightFields,
  response: Insight,
  handler: ({ body, params, principal, project, query }) =>
    Effect.gen(function* () {
      // A deleted insight answers only the PATCH that restores it.
      const before = yield* findInsight(project.id, params.id, body.deleted === false)
      yield* checkDashboards(project.id, body.dashboards)
      const store = yield* InsightStore
      const changes = changesOf(LOGGED, before, body)
      const tilesBefore = (yield* store.tiles([before.id])).filter((t) => !t.deleted).map((t) => t.dashboard_id)
      const movedTiles = body.dashboards !== undefined && !same([...tilesBefore].sort(), [...body.dashboards].sort())
      if (movedTiles) {
        changes.push({
          field: "dashboards",
          before: yield* dashboardsNamed(project.id, tilesBefore),
          after: yield* dashboardsNamed(project.id, body.dashboards!)
        })
      }
      const { dashboards, ...fields } = body
      const patch: InsightPatch = {
        ...fields,
        description: body.description === null ? "" : body.description,
        // Any update saves the insight, as in PostHog.
        saved: body.saved ?? true,
        last_modified_by: principal.user.id,
        material: changes.some((c) => MATERIAL.has(c.field))
      }
      const updated = yield* (yield* Transactor).transaction(
        Effect.gen(function* () {
          const updated = yield* Effect.flatMap(
            store.update(project.id, params.id, patch),
            Option.match({ onNone: () => Effect.fail(new NotFound({ detail: "Not found." })), onSome: Effect.succeed })
          )
          if (dashboards !== undefined && movedTiles) yield* store.placeOn(updated.id, dashboards)
          if (before.deleted !== updated.deleted) yield* store.markTiles(updated.id, updated.deleted)
          const activity = before.deleted === updated.deleted ? "updated" : updated.deleted ? "deleted" : "restored"
          yield* logInsightActivity(project.id, principal.user.id, updated, activity, changes)
          return updated
        })
      )
      return yield* respond(
        query.format,
        yield* presentInsights(project, [updated], { refresh: "force_cache", viewer: "member" }),
        (rows) => rows[0]!
      )
    })
})

const remove = softDeleteOnly("/insights/:id", "insights", "insight:write")

const activity = environmentRoute({
  method: "GET",
  path: "/insights/:id/activity",
  tag: "insights",
  summary: "An insight's activity",
  description:
    "Creations, updates (the fields that changed, before and after), deletions, restores and sharing changes, with who made them. Newest first, in pages of `limit` (10) numbered from 1 by `page`.",
  scope: "activity_log:read",
  params: InsightRef,
  query: ActivityParams,
  response: ActivityPage,
  handler: ({ params, project, query, request }) =>
    Effect.flatMap(findInsight(project.id, params.id, true), (insight) =>
      activityPage(project.id, insight.id, query, request.url)
    )
})

const allActivity = environmentRoute({
  method: "GET",
  path: "/insights/activity",
  tag: "insights",
  summary: "The activity of every insight of the project",
  description: "As an insight's activity, across all of them, deleted ones included.",
  scope: "activity_log:read",
  query: ActivityParams,
  response: ActivityPage,
  handler: ({ project, query, request }) => activityPage(project.id, undefined, query, request.url)
})

export const insightRoutes = [list, create, allActivity, retrieve, update, remove, activity]
