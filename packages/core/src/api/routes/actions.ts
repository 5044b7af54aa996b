import { Effect, Option, Schema, Struct } from "effect"
import { Action as Entity, type ActionStep, MATCHINGS, newAction } from "../../actions/actionEntity.js"
import { UserBasic } from "../../domain/models.js"
import { PageParams, Paginated, paginated, toPage } from "../../domain/pagination.js"
import { PropertyFilter } from "../../filters/property.js"
import { compilePattern } from "../../flags/regex.js"
import { QueryRunner } from "../../queries/runner.js"
import { ActionStore, type StoredAction } from "../../services/ActionStore.js"
import { PathId, Text } from "../../schema/fields.js"
import { ValidationError } from "../../schema/ValidationError.js"
import { NotFound } from "../errors.js"
import { environmentRoute, softDeleteOnly } from "../route.js"
import { userLookup } from "../users.js"

// Actions (PostHog's `/actions/`): a named set of steps, any of which an event may match — its name,
// its page's URL, the element autocapture saw (text, link, tag, selector) and its properties.
// Deleted softly (PATCH {"deleted": true}).

const TAG = "actions"

const Matching = Schema.NullOr(Schema.Literal(...MATCHINGS))

/** A step as sent: every field may be left out (null). */
const StepBody = Schema.Struct({
  event: Schema.optional(Schema.NullOr(Schema.String)),
  url: Schema.optional(Schema.NullOr(Schema.String)),
  url_matching: Schema.optional(Matching),
  text: Schema.optional(Schema.NullOr(Schema.String)),
  text_matching: Schema.optional(Matching),
  href: Schema.optional(Schema.NullOr(Schema.String)),
  href_matching: Schema.optional(Matching),
  selector: Schema.optional(Schema.NullOr(Schema.String)),
  tag_name: Schema.optional(Schema.NullOr(Schema.String)),
  properties: Schema.optional(Schema.NullOr(Schema.Array(PropertyFilter)))
})

const Fields = {
  name: Text(400),
  description: Schema.optional(Schema.String),
  tags: Schema.optional(Schema.Array(Schema.String)),
  steps: Schema.optional(Schema.Array(StepBody)),
  post_to_slack: Schema.optional(Schema.Boolean),
  slack_message_format: Schema.optional(Schema.String.pipe(Schema.maxLength(1200)))
}

const ActionCreate = Schema.Struct(Fields).annotations({ identifier: "ActionCreate" })
const ActionUpdate = Schema.Struct({
  ...Fields,
  name: Schema.optional(Fields.name),
  deleted: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "ActionUpdate" })

const Action = Schema.Struct({
  ...Struct.pick(
    Entity.fields,
    "id",
    "name",
    "description",
    "tags",
    "steps",
    "post_to_slack",
    "slack_message_format",
    "deleted"
  ),
  created_by: Schema.NullOr(UserBasic),
  created_at: Schema.Date,
  updated_at: Schema.Date,
  is_calculating: Schema.Boolean,
  last_calculated_at: Schema.NullOr(Schema.Date),
  is_action: Schema.Literal(true)
}).annotations({ identifier: "Action" })

const present = (actions: ReadonlyArray<StoredAction>) =>
  Effect.map(userLookup(actions.map((a) => a.created_by)), (user) =>
    actions.map((a): typeof Action.Type => ({
      ...a,
      created_by: user(a.created_by),
      is_calculating: false,
      last_calculated_at: null,
      is_action: true
    }))
  )

const invalid = (detail: string, attr: string) => new ValidationError({ code: "invalid_input", detail, attr })

/** A step with every field, URLs matched by `contains` unless said; its regular expressions must compile. */
const toStep = (body: typeof StepBody.Type, index: number) =>
  Effect.gen(function* () {
    const step: ActionStep = {
      event: body.event ?? null,
      url: body.url ?? null,
      url_matching: body.url_matching ?? (body.url == null ? null : "contains"),
      text: body.text ?? null,
      text_matching: body.text_matching ?? null,
      href: body.href ?? null,
      href_matching: body.href_matching ?? null,
      selector: body.selector ?? null,
      tag_name: body.tag_name ?? null,
      properties: body.properties ?? null
    }
    for (const field of ["url", "text", "href"] as const) {
      const pattern = step[field]
      if (step[`${field}_matching`] === "regex" && pattern !== null && compilePattern(pattern) === null)
        return yield* invalid(`Step ${index + 1}: ${field} is not a valid regular expression: ${pattern}`, "steps")
    }
    return step
  })

const toSteps = (steps: ReadonlyArray<typeof StepBody.Type> | undefined) =>
  steps === undefined ? Effect.succeed(undefined) : Effect.forEach(steps, toStep)

/** Names are unique among a project's live actions. */
const checkName = (projectId: number, name: string | undefined, self?: number) =>
  Effect.gen(function* () {
    if (name === undefined) return
    const taken = yield* (yield* ActionStore).named(projectId, name)
    if (Option.isSome(taken) && taken.value.id !== self)
      return yield* invalid(`This project already has an action with this name, ID ${taken.value.id}`, "name")
  })

const find = (projectId: number, id: number) =>
  Effect.flatMap(
    Effect.flatMap(ActionStore, (s) => s.get(projectId, id)),
    Option.match({ onNone: () => Effect.fail(new NotFound({ detail: "Not found." })), onSome: Effect.succeed })
  )

const Ref = Schema.Struct({ id: PathId })

const list = environmentRoute({
  method: "GET",
  path: "/actions",
  tag: TAG,
  summary: "List actions",
  description: "Newest first; `search` finds text in the name.",
  scope: "action:read",
  query: Schema.Struct({ ...PageParams.fields, search: Schema.optional(Schema.String) }),
  response: Paginated(Action, "PaginatedActionList"),
  handler: ({ project, query, request }) =>
    Effect.gen(function* () {
      const page = toPage(query)
      const { count, results } = yield* (yield* ActionStore).list(project.id, { ...page, search: query.search })
      return paginated(request.url, page, count, yield* present(results))
    })
})

const create = environmentRoute({
  method: "POST",
  path: "/actions",
  tag: TAG,
  summary: "Create an action",
  description:
    "An event matches the action when it matches any step, and a step when every condition it gives holds: `event` (its name), `url` (`$current_url`, by `url_matching`: `contains`, the default, `exact` or `regex`), `text`, `href`, `tag_name` and `selector` (the autocaptured element), `properties` (property filters). A regular expression that does not compile is refused.",
  scope: "action:write",
  body: ActionCreate,
  response: Action,
  status: 201,
  handler: ({ body, principal, project }) =>
    Effect.gen(function* () {
      yield* checkName(project.id, body.name)
      const steps = (yield* toSteps(body.steps)) ?? []
      const saved = yield* (yield* ActionStore).create(
        project.id,
        newAction({ ...body, steps, created_by: principal.user.id })
      )
      yield* (yield* QueryRunner).definitionsChanged(project.id)
      return (yield* present([saved]))[0]!
    })
})

const retrieve = environmentRoute({
  method: "GET",
  path: "/actions/:id",
  tag: TAG,
  summary: "Retrieve an action",
  scope: "action:read",
  params: Ref,
  response: Action,
  handler: ({ params, project }) =>
    Effect.flatMap(find(project.id, params.id), (a) => Effect.map(present([a]), (r) => r[0]!))
})

const update = environmentRoute({
  method: "PATCH",
  path: "/actions/:id",
  tag: TAG,
  summary: "Update or delete an action",
  description: 'Steps given replace the action\'s; `{"deleted": true}` deletes it.',
  scope: "action:write",
  params: Ref,
  body: ActionUpdate,
  response: Action,
  handler: ({ body, params, project }) =>
    Effect.gen(function* () {
      yield* find(project.id, params.id)
      yield* checkName(project.id, body.name, params.id)
      const steps = yield* toSteps(body.steps)
      const saved = yield* Effect.flatMap(
        (yield* ActionStore).update(project.id, params.id, { ...body, steps }),
        Option.match({ onNone: () => Effect.fail(new NotFound({ detail: "Not found." })), onSome: Effect.succeed })
      )
      yield* (yield* QueryRunner).definitionsChanged(project.id)
      return (yield* present([saved]))[0]!
    })
})

export const actionRoutes = [list, create, retrieve, update, softDeleteOnly("/actions/:id", TAG, "action:write")]
