import { Effect, Option, Schema, Struct } from "effect"
import { Dashboard as Entity, DashboardPatch, newDashboard, TileLayouts } from "../../insights/dashboardEntity.js"
import { createTemplateDashboard } from "../../insights/dashboardTemplate.js"
import { PageParams, Paginated, paginated, toPage } from "../../domain/pagination.js"
import { IntIn, PathId } from "../../schema/fields.js"
import { ValidationError } from "../../schema/ValidationError.js"
import { InsightStore } from "../../services/InsightStore.js"
import { Transactor } from "../../services/Transactor.js"
import { NotFound } from "../errors.js"
import { environmentRoute, softDeleteOnly } from "../route.js"
import { Dashboard, DashboardBasic, findDashboard, presentDashboard, presentDashboards } from "../wire/dashboards.js"
import { Refresh } from "../wire/insights.js"

// Dashboards (PostHog's `/dashboards/`): a name, filters (date range, properties) applied to every
// insight seen from them, and tiles placing insights and text cards on a 12-column grid. Insights
// are placed through the insight's `dashboards` field, as PostHog clients do; tiles are arranged,
// coloured, removed and text cards written through the dashboard's PATCH `tiles`. Deleting is soft
// (PATCH {"deleted": true}); DELETE answers 405.

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

const Editable = { ...Struct.pick(Entity.fields, "name", "description", "pinned", "tags"), filters: Filters }

const DashboardCreate = Schema.partial(
  Schema.Struct({
    ...Editable,
    use_dashboard: IntIn(1).annotations({
      description: "Duplicate this dashboard: its filters (unless given) and its tiles, on the same insights."
    }),
    use_template: Schema.Literal("DEFAULT_APP").annotations({
      description:
        "Start from the template a new project gets: page views, unique users, top pages, sign-up, retention."
    })
  })
).annotations({ identifier: "DashboardCreate" })

/** A tile as PATCH `tiles` takes it: an existing tile by `id`, or a new text card (`text` without `id`). */
const TileWrite = Schema.Struct({
  id: Schema.optional(IntIn(1)),
  text: Schema.optional(Schema.Struct({ body: Schema.String })),
  layouts: Schema.optional(TileLayouts),
  color: Schema.optional(Schema.NullOr(Schema.String)),
  deleted: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "DashboardTileWrite" })

const DashboardUpdate = Schema.partial(
  Schema.Struct({ ...Editable, deleted: Entity.fields.deleted, tiles: Schema.Array(TileWrite) })
).annotations({ identifier: "DashboardUpdate" })

const DashboardRef = Schema.Struct({ id: PathId })

const list = environmentRoute({
  method: "GET",
  path: "/dashboards",
  tag: "dashboards",
  summary: "List dashboards",
  description: "Live dashboards, pinned ones first, then newest first.",
  scope: "dashboard:read",
  query: PageParams,
  response: Paginated(DashboardBasic, "PaginatedDashboardList"),
  handler: ({ project, query, request }) =>
    Effect.gen(function* () {
      const page = toPage(query)
      const { count, results } = yield* (yield* InsightStore).listDashboards(project.id, page)
      return paginated(request.url, page, count, yield* presentDashboards(results))
    })
})

const create = environmentRoute({
  method: "POST",
  path: "/dashboards",
  tag: "dashboards",
  summary: "Create a dashboard",
  description:
    "Empty, a copy of another (`use_dashboard`: its filters and tiles, on the same insights) or the template (`use_template`).",
  scope: "dashboard:write",
  body: DashboardCreate,
  response: Dashboard,
  status: 201,
  handler: ({ body, principal, project }) =>
    Effect.gen(function* () {
      const store = yield* InsightStore
      const { use_dashboard, use_template, ...fields } = body
      const source =
        use_dashboard === undefined
          ? undefined
          : yield* Effect.catchTag(findDashboard(project.id, use_dashboard), "NotFound", () =>
              Effect.fail(
                new ValidationError({
                  code: "invalid_input",
                  detail: `Dashboard ${use_dashboard} does not exist.`,
                  attr: "use_dashboard"
                })
              )
            )
      const made = yield* (yield* Transactor).transaction(
        Effect.gen(function* () {
          if (use_template !== undefined) {
            const template = yield* createTemplateDashboard(project.id, principal.user.id, fields.name)
            const patch = { ...fields, name: undefined }
            return Option.getOrElse(yield* store.updateDashboard(project.id, template.id, patch), () => template)
          }
          const dashboard = yield* store.createDashboard(
            project.id,
            newDashboard({ filters: source?.filters, ...fields, created_by: principal.user.id })
          )
          if (source !== undefined) {
            const tiles = (yield* store.dashboardTiles(source.id)).filter((t) => !t.deleted)
            yield* Effect.forEach(tiles, ({ insight_id, text, layouts, color }) =>
              store.addTile(dashboard.id, { insight_id, text, layouts, color })
            )
          }
          return dashboard
        })
      )
      return yield* presentDashboard(project, made, "force_cache", "member")
    })
})

const retrieve = environmentRoute({
  method: "GET",
  path: "/dashboards/:id",
  tag: "dashboards",
  summary: "Retrieve a dashboard with its tiles",
  description:
    "Each tile holds its insight as seen from the dashboard: with the dashboard's filters applied to its query, its result under `refresh` (default `force_cache`: only what is cached). A deleted dashboard is still found here, to be restored.",
  scope: "dashboard:read",
  params: DashboardRef,
  query: Schema.Struct({ refresh: Schema.optional(Refresh) }),
  response: Dashboard,
  handler: ({ params, project, query }) =>
    Effect.flatMap(findDashboard(project.id, params.id, true), (dashboard) =>
      presentDashboard(project, dashboard, query.refresh ?? "force_cache", "member")
    )
})

const badTile = (n: number, field: string, detail: string) =>
  new ValidationError({ code: "invalid_input", detail, attr: `tiles__${n}__${field}` })

const update = environmentRoute({
  method: "PATCH",
  path: "/dashboards/:id",
  tag: "dashboards",
  summary: 'Update a dashboard (soft-deletes it with {"deleted": true}, restores it with {"deleted": false})',
  description:
    "`tiles` changes the tiles named by `id` (`layouts`, `color`, `text`, `deleted`: removed from the dashboard) and adds a text card for each entry with `text` and no `id`; tiles left out stay as they are.",
  scope: "dashboard:write",
  params: DashboardRef,
  body: DashboardUpdate,
  response: Dashboard,
  handler: ({ body, params, project }) =>
    Effect.gen(function* () {
      const store = yield* InsightStore
      const { tiles = [], ...fields } = body
      const dashboard = yield* findDashboard(project.id, params.id, true)
      const existing = new Map((yield* store.dashboardTiles(dashboard.id)).map((t) => [t.id, t]))
      // Checked before anything is written, so a bad tile changes nothing.
      for (const [n, tile] of tiles.entries()) {
        if (tile.id === undefined) {
          if (tile.text === undefined)
            return yield* badTile(n, "id", "A tile without an id must be a new text card (give `text`).")
          continue
        }
        const found = existing.get(tile.id)
        if (found === undefined) return yield* badTile(n, "id", `Tile ${tile.id} is not on this dashboard.`)
        if (tile.text !== undefined && found.insight_id !== null)
          return yield* badTile(n, "text", `Tile ${tile.id} holds an insight, not a text card.`)
      }
      const patch: DashboardPatch = fields
      const updated = yield* (yield* Transactor).transaction(
        Effect.gen(function* () {
          const updated = yield* Effect.flatMap(
            store.updateDashboard(project.id, dashboard.id, patch),
            Option.match({ onNone: () => Effect.fail(new NotFound({ detail: "Not found." })), onSome: Effect.succeed })
          )
          for (const { id, text, layouts, color, deleted } of tiles) {
            if (id === undefined)
              yield* store.addTile(dashboard.id, {
                insight_id: null,
                text: text!.body,
                layouts: layouts ?? {},
                color: color ?? null
              })
            else yield* store.updateTile(dashboard.id, id, { text: text?.body, layouts, color, deleted })
          }
          return updated
        })
      )
      return yield* presentDashboard(project, updated, "force_cache", "member")
    })
})

const remove = softDeleteOnly("/dashboards/:id", "dashboards", "dashboard:write")

export const dashboardRoutes = [list, create, retrieve, update, remove]
