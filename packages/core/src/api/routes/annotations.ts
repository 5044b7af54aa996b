import { Effect, Option, Schema, Struct } from "effect"
import {
  ANNOTATION_SCOPES,
  Annotation as Entity,
  CREATION_TYPES,
  newAnnotation
} from "../../annotations/annotationEntity.js"
import type { Project } from "../../domain/models.js"
import { UserBasic } from "../../domain/models.js"
import { PageParams, Paginated, paginated, toPage } from "../../domain/pagination.js"
import { type AnnotationOwner, AnnotationStore, type StoredAnnotation } from "../../services/AnnotationStore.js"
import { InsightStore } from "../../services/InsightStore.js"
import { dateInZone, Instant, IntFromString, IntIn, PathId } from "../../schema/fields.js"
import { ValidationError } from "../../schema/ValidationError.js"
import { NotFound } from "../errors.js"
import { environmentRoute, softDeleteOnly } from "../route.js"
import { userLookup } from "../users.js"

// Annotations (PostHog's `/annotations/`): notes on a date that charts show, on one insight, one
// dashboard, the project or the whole organization. Deleted softly (PATCH {"deleted": true}).

const TAG = "annotations"

const Scope = Schema.Literal(...ANNOTATION_SCOPES)

const Content = Schema.NullOr(Schema.String.pipe(Schema.maxLength(400)))

const Fields = {
  content: Schema.optional(Content),
  date_marker: Schema.optional(Schema.NullOr(Instant)),
  dashboard_item: Schema.optional(Schema.NullOr(IntIn(1))),
  dashboard_id: Schema.optional(Schema.NullOr(IntIn(1))),
  scope: Schema.optional(Scope)
}

const AnnotationCreate = Schema.Struct({
  ...Fields,
  creation_type: Schema.optional(Schema.Literal(...CREATION_TYPES))
}).annotations({ identifier: "AnnotationCreate" })

const AnnotationUpdate = Schema.Struct({ ...Fields, deleted: Schema.optional(Schema.Boolean) }).annotations({
  identifier: "AnnotationUpdate"
})

const Annotation = Schema.Struct({
  ...Struct.pick(Entity.fields, "id", "content", "creation_type", "dashboard_item", "dashboard_id", "scope", "deleted"),
  date_marker: Schema.NullOr(Schema.Date),
  created_by: Schema.NullOr(UserBasic),
  created_at: Schema.Date,
  updated_at: Schema.Date
}).annotations({ identifier: "Annotation" })

const ownerOf = (project: Project): AnnotationOwner => ({
  projectId: project.id,
  organizationId: project.organization
})

const present = (annotations: ReadonlyArray<StoredAnnotation>) =>
  Effect.map(userLookup(annotations.map((a) => a.created_by)), (user) =>
    annotations.map((a): typeof Annotation.Type => ({ ...a, created_by: user(a.created_by) }))
  )

const find = (project: Project, id: number) =>
  Effect.flatMap(
    Effect.flatMap(AnnotationStore, (s) => s.get(ownerOf(project), id)),
    Option.match({ onNone: () => Effect.fail(new NotFound({ detail: "Not found." })), onSome: Effect.succeed })
  )

const invalid = (detail: string, attr: string) => new ValidationError({ code: "invalid_input", detail, attr })

/**
 * An annotation on an insight names one of the project's insights, one on a dashboard one of its
 * dashboards; whatever else it names must exist too.
 */
const checkPlace = (
  projectId: number,
  place: {
    readonly scope: string
    readonly dashboard_item: number | null
    readonly dashboard_id: number | null
  }
) =>
  Effect.gen(function* () {
    if (place.scope === "dashboard_item" && place.dashboard_item === null)
      return yield* invalid("An annotation on an insight needs the insight (dashboard_item).", "dashboard_item")
    if (place.scope === "dashboard" && place.dashboard_id === null)
      return yield* invalid("An annotation on a dashboard needs the dashboard (dashboard_id).", "dashboard_id")
    const insights = yield* InsightStore
    if (place.dashboard_item !== null && Option.isNone(yield* insights.get(projectId, place.dashboard_item)))
      return yield* invalid(`Insight ${place.dashboard_item} does not exist in this project.`, "dashboard_item")
    if (place.dashboard_id !== null && (yield* insights.getDashboards(projectId, [place.dashboard_id])).length === 0)
      return yield* invalid(`Dashboard ${place.dashboard_id} does not exist in this project.`, "dashboard_id")
  })

const Ref = Schema.Struct({ id: PathId })

const list = environmentRoute({
  method: "GET",
  path: "/annotations",
  tag: TAG,
  summary: "List annotations",
  description:
    "The project's and its organization's, latest date first. `date_from`/`date_to` bound the date (as insights take dates: `2024-01-31`, `-7d`, in the project's time zone); `after`/`before` when they were created; `search` finds text in the content.",
  scope: "annotation:read",
  query: Schema.Struct({
    ...PageParams.fields,
    search: Schema.optional(Schema.String),
    scope: Schema.optional(Scope),
    dashboardItemId: Schema.optional(IntFromString(1)),
    date_from: Schema.optional(Schema.String),
    date_to: Schema.optional(Schema.String),
    after: Schema.optional(Instant),
    before: Schema.optional(Instant)
  }),
  response: Paginated(Annotation, "PaginatedAnnotationList"),
  handler: ({ project, query, request }) =>
    Effect.gen(function* () {
      const now = new Date()
      const date = (text: string | undefined, attr: string) =>
        text === undefined ? Effect.succeed(undefined) : dateInZone(text, project.timezone, now, attr)
      const page = toPage(query)
      const { count, results } = yield* (yield* AnnotationStore).list(ownerOf(project), {
        ...page,
        search: query.search,
        scope: query.scope,
        dashboardItem: query.dashboardItemId,
        dateFrom: yield* date(query.date_from, "date_from"),
        dateTo: yield* date(query.date_to, "date_to"),
        after: query.after,
        before: query.before
      })
      return paginated(request.url, page, count, yield* present(results))
    })
})

const create = environmentRoute({
  method: "POST",
  path: "/annotations",
  tag: TAG,
  summary: "Create an annotation",
  description:
    "`scope` `dashboard_item` shows it on one insight (`dashboard_item`), `dashboard` on one dashboard's insights (`dashboard_id`), `project` (the default) on the project's charts, `organization` on every project's of the organization.",
  scope: "annotation:write",
  body: AnnotationCreate,
  response: Annotation,
  status: 201,
  handler: ({ body, principal, project }) =>
    Effect.gen(function* () {
      const annotation = newAnnotation({ ...body, created_by: principal.user.id })
      yield* checkPlace(project.id, annotation)
      const saved = yield* (yield* AnnotationStore).create(ownerOf(project), annotation)
      return (yield* present([saved]))[0]!
    })
})

const retrieve = environmentRoute({
  method: "GET",
  path: "/annotations/:id",
  tag: TAG,
  summary: "Retrieve an annotation",
  scope: "annotation:read",
  params: Ref,
  response: Annotation,
  handler: ({ params, project }) =>
    Effect.flatMap(find(project, params.id), (a) => Effect.map(present([a]), (r) => r[0]!))
})

const update = environmentRoute({
  method: "PATCH",
  path: "/annotations/:id",
  tag: TAG,
  summary: "Update or delete an annotation",
  description: 'Changes its content, date or where it shows; `{"deleted": true}` deletes it.',
  scope: "annotation:write",
  params: Ref,
  body: AnnotationUpdate,
  response: Annotation,
  handler: ({ body, params, project }) =>
    Effect.gen(function* () {
      const current = yield* find(project, params.id)
      yield* checkPlace(project.id, {
        scope: body.scope ?? current.scope,
        dashboard_item: body.dashboard_item === undefined ? current.dashboard_item : body.dashboard_item,
        dashboard_id: body.dashboard_id === undefined ? current.dashboard_id : body.dashboard_id
      })
      const saved = yield* Effect.flatMap(
        (yield* AnnotationStore).update(ownerOf(project), params.id, body),
        Option.match({ onNone: () => Effect.fail(new NotFound({ detail: "Not found." })), onSome: Effect.succeed })
      )
      return (yield* present([saved]))[0]!
    })
})

export const annotationRoutes = [
  list,
  create,
  retrieve,
  update,
  softDeleteOnly("/annotations/:id", TAG, "annotation:write")
]
