import { Effect, Option, Schema, Struct } from "effect"
import { UserBasic } from "../../domain/models.js"
import { Dashboard as Entity, newDashboard } from "../../insights/dashboardEntity.js"
import { InsightStore, type StoredDashboard } from "../../services/InsightStore.js"
import { NotFound } from "../errors.js"
import { PageParams, Paginated, paginated, toPage } from "../../domain/pagination.js"
import { environmentRoute } from "../route.js"
import { userLookup } from "../users.js"
import { PathId } from "../../schema/fields.js"
import { Insight, presentInsights } from "../wire/insights.js"

// Dashboards, as far as insights need them: a name, filters (date range, properties) that apply
// to insights viewed from them, and tiles placing insights on them. Insights are placed through
// the insight's `dashboards` field, as PostHog clients do.

const DateText = Schema.NullOr(Schema.String).annotations({
  description: "Absolute (ISO) or relative (`-7d`, `mStart`) date."
})

const Filters = Schema.Struct(
  {
    date_from: Schema.optional(DateText),
    date_to: Schema.optional(DateText),
    properties: Schema.optional(Schema.Array(Schema.Unknown))
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
).annotations({ identifier: "DashboardFilters" })

const DashboardCreate = Schema.partial(
  Schema.Struct({ ...Struct.pick(Entity.fields, "name", "description"), filters: Filters })
).annotations({ identifier: "DashboardCreate" })

const Fields = {
  ...Struct.pick(Entity.fields, "id", "name", "description"),
  filters: Schema.Unknown,
  /** The filters' date range, also shown on its own as PostHog does. */
  date_from: Schema.NullOr(Schema.String),
  date_to: Schema.NullOr(Schema.String),
  created_by: Schema.NullOr(UserBasic),
  created_at: Schema.Date
}

const DashboardBasic = Schema.Struct(Fields).annotations({ identifier: "DashboardBasic" })
const DashboardTile = Schema.Struct({ id: Schema.Int, insight: Insight }).annotations({ identifier: "DashboardTile" })
const Dashboard = Schema.Struct({ ...Fields, tiles: Schema.Array(DashboardTile) }).annotations({
  identifier: "Dashboard"
})

const dateOf = (filters: Record<string, unknown>, key: string) =>
  typeof filters[key] === "string" ? filters[key] : null

const basics = (dashboards: ReadonlyArray<StoredDashboard>) =>
  Effect.map(userLookup(dashboards.map((d) => d.created_by)), (user) =>
    dashboards.map((d) => ({
      ...d,
      date_from: dateOf(d.filters, "date_from"),
      date_to: dateOf(d.filters, "date_to"),
      created_by: user(d.created_by)
    }))
  )

const DashboardRef = Schema.Struct({ id: PathId })

const list = environmentRoute({
  method: "GET",
  path: "/dashboards",
  tag: "dashboards",
  summary: "List dashboards",
  scope: "dashboard:read",
  query: PageParams,
  response: Paginated(DashboardBasic, "PaginatedDashboardList"),
  handler: ({ project, query, request }) =>
    Effect.gen(function* () {
      const page = toPage(query)
      const { count, results } = yield* (yield* InsightStore).listDashboards(project.id, page)
      return paginated(request.url, page, count, yield* basics(results))
    })
})

const create = environmentRoute({
  method: "POST",
  path: "/dashboards",
  tag: "dashboards",
  summary: "Create a dashboard",
  scope: "dashboard:write",
  body: DashboardCreate,
  response: Dashboard,
  status: 201,
  handler: ({ body, principal, project }) =>
    Effect.gen(function* () {
      const dashboard = yield* (yield* InsightStore).createDashboard(
        project.id,
        newDashboard({ ...body, created_by: principal.user.id })
      )
      return { ...(yield* basics([dashboard]))[0]!, tiles: [] }
    })
})

const retrieve = environmentRoute({
  method: "GET",
  path: "/dashboards/:id",
  tag: "dashboards",
  summary: "Retrieve a dashboard with its tiles",
  description:
    "Each tile holds its insight as seen from the dashboard: with the dashboard's filters applied to its query.",
  scope: "dashboard:read",
  params: DashboardRef,
  response: Dashboard,
  handler: ({ params, project }) =>
    Effect.gen(function* () {
      const store = yield* InsightStore
      const [dashboard] = yield* store.getDashboards(project.id, [params.id])
      if (dashboard === undefined) return yield* new NotFound({ detail: "Not found." })
      const tiles = (yield* store.dashboardTiles(dashboard.id)).filter((t) => !t.deleted)
      const insights = yield* Effect.forEach(tiles, (t) => store.get(project.id, t.insight_id))
      const live = insights.flatMap((i, n) => (Option.isSome(i) ? [{ tile: tiles[n]!.id, insight: i.value }] : []))
      const shown = yield* presentInsights(
        project,
        live.map((l) => l.insight),
        { refresh: "force_cache", viewer: "member", dashboardFilters: dashboard.filters }
      )
      return { ...(yield* basics([dashboard]))[0]!, tiles: live.map((l, n) => ({ id: l.tile, insight: shown[n]! })) }
    })
})

export const dashboardRoutes = [list, create, retrieve]
