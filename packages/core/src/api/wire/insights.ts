import { Effect, Option, Schema, Struct } from "effect"
import type { Project } from "../../domain/models.js"
import { UserBasic } from "../../domain/models.js"
import { InsightCompute, NOTHING_COMPUTED } from "../../insights/compute.js"
import { Insight as Entity } from "../../insights/insightEntity.js"
import { withDashboardFilters } from "../../insights/queryNode.js"
import { RefreshMode } from "../../queries/cachePolicy.js"
import { PathId } from "../../schema/fields.js"
import { InsightStore, type StoredInsight } from "../../services/InsightStore.js"
import { NotFound, queryErrorBody } from "../errors.js"
import { queryFailure } from "../queryReplies.js"
import { userLookup } from "../users.js"

// Insights as the API shows them: to members, on dashboards and on public sharing links.

/** PostHog's access levels: 21 = everyone in the project can edit / can view, 37 = only collaborators / can edit. */
const Levels = { editable: 21, restricted: 37, view: 21, edit: 37 } as const

const Tile = Schema.Struct({ id: Schema.Int, dashboard_id: Schema.Int, deleted: Schema.Boolean })

/** Why an insight on a dashboard has no result: the error its own request would have answered. */
const InsightError = Schema.Struct({
  type: Schema.String,
  code: Schema.String,
  detail: Schema.String,
  attr: Schema.NullOr(Schema.String)
}).annotations({ identifier: "InsightError" })

export const Insight = Schema.Struct({
  ...Struct.pick(Entity.fields, "id", "short_id", "name", "derived_name"),
  filters: Schema.Unknown,
  ...Struct.pick(Entity.fields, "query", "order", "deleted"),
  dashboards: Schema.Array(Schema.Int),
  dashboard_tiles: Schema.Array(Tile),
  last_refresh: Schema.NullOr(Schema.Date),
  cache_target_age: Schema.NullOr(Schema.Date),
  next_allowed_client_refresh: Schema.NullOr(Schema.Date),
  result: Schema.Unknown,
  hasMore: Schema.NullOr(Schema.Boolean),
  columns: Schema.NullOr(Schema.Array(Schema.String)),
  created_at: Schema.Date,
  created_by: Schema.NullOr(UserBasic),
  ...Struct.pick(Entity.fields, "description"),
  updated_at: Schema.Date,
  ...Struct.pick(Entity.fields, "tags", "favorited", "saved"),
  last_modified_at: Schema.Date,
  last_modified_by: Schema.NullOr(UserBasic),
  is_sample: Schema.Boolean,
  effective_restriction_level: Schema.Int,
  effective_privilege_level: Schema.Int,
  user_access_level: Schema.NullOr(Schema.String),
  timezone: Schema.String,
  is_cached: Schema.Boolean,
  query_status: Schema.Unknown,
  /** The ZedQL that produced the result (PostHog's `hogql`). */
  zedql: Schema.NullOr(Schema.String),
  types: Schema.NullOr(Schema.Array(Schema.Unknown)),
  /** On a dashboard's tiles only: null, or why this insight could not be computed (its `result` is null). */
  error: Schema.optional(Schema.NullOr(InsightError))
}).annotations({ identifier: "Insight" })
export type Insight = typeof Insight.Type

/** How many insights of one request are computed at the same time. */
const COMPUTED_AT_ONCE = 4

/** How the insights are shown: to the project's members, or on a public sharing link. */
export type Viewer = "member" | "public"

/** Insights as the API shows them, with tiles, users and what the compute service has for each. */
export const presentInsights = (
  project: Project,
  insights: ReadonlyArray<StoredInsight>,
  options: {
    readonly refresh: RefreshMode
    readonly viewer: Viewer
    readonly dashboardFilters?: Record<string, unknown> | undefined
    /** Each insight's failure kept as its `error` (a dashboard's tiles) instead of failing them all. */
    readonly errorsApart?: boolean
  }
) =>
  Effect.gen(function* () {
    const tiles = yield* (yield* InsightStore).tiles(insights.map((i) => i.id))
    const user = yield* userLookup(
      options.viewer === "public" ? [] : insights.flatMap((i) => [i.created_by, i.last_modified_by])
    )
    const compute = yield* InsightCompute
    return yield* Effect.forEach(
      insights,
      (insight) =>
        Effect.gen(function* () {
          const query =
            options.dashboardFilters === undefined
              ? insight.query
              : withDashboardFilters(insight.query, options.dashboardFilters)
          const read =
            insight.query === null
              ? Effect.succeed(NOTHING_COMPUTED)
              : Effect.catchAll(compute.read(project, query, options.refresh), queryFailure)
          const computed = options.errorsApart
            ? yield* read.pipe(
                Effect.map((c) => ({ ...c, error: null })),
                Effect.catchTags({
                  QueryInvalid: (e) => Effect.succeed({ ...NOTHING_COMPUTED, error: queryErrorBody(e) }),
                  TooManyRequests: (e) => Effect.succeed({ ...NOTHING_COMPUTED, error: queryErrorBody(e) })
                })
              )
            : yield* read
          const own = tiles.filter((t) => t.insight_id === insight.id)
          const member = options.viewer === "member"
          return {
            ...insight,
            query,
            dashboards: own.filter((t) => !t.deleted).map((t) => t.dashboard_id),
            dashboard_tiles: own.map(({ id, dashboard_id, deleted }) => ({ id, dashboard_id, deleted })),
            ...computed,
            created_by: user(insight.created_by),
            last_modified_by: user(insight.last_modified_by),
            is_sample: false,
            effective_restriction_level: member ? Levels.editable : Levels.restricted,
            effective_privilege_level: member ? Levels.edit : Levels.view,
            user_access_level: member ? "editor" : "viewer",
            timezone: project.timezone
          } satisfies Insight
        }),
      // Several at once (a dashboard's tiles), few enough to leave the store room for others.
      { concurrency: COMPUTED_AT_ONCE }
    )
  })

export const InsightRef = Schema.Struct({ id: PathId })

const notFound = () => new NotFound({ detail: "Not found." })

/** A live insight of the project, or 404. */
export const findInsight = (projectId: number, id: number, includeDeleted = false) =>
  Effect.flatMap(
    Effect.flatMap(InsightStore, (s) => s.get(projectId, id, includeDeleted)),
    Option.match({
      onNone: () => Effect.fail(notFound()),
      onSome: Effect.succeed
    })
  )

/** `refresh` as insight reads take it: `true`, `1`, `yes` or empty mean force_blocking (PostHog). */
export const Refresh = Schema.transform(Schema.String, Schema.typeSchema(RefreshMode), {
  strict: false,
  decode: (raw) => (["true", "1", "yes", ""].includes(raw.toLowerCase()) ? "force_blocking" : raw),
  encode: (mode) => mode
}).annotations({ description: "How to get results (default force_cache: only from the cache, never computing)." })
