import { Effect, Option, Schema } from "effect"
import { Paginated, PageParams, paginated, toPage } from "../../domain/pagination.js"
import { statusOf } from "../../experiments/experimentEntity.js"
import { holdoutVariant, newHoldout } from "../../experiments/holdoutEntity.js"
import { check, PathId } from "../../schema/fields.js"
import { ValidationError } from "../../schema/ValidationError.js"
import { ExperimentStore } from "../../services/ExperimentStore.js"
import { HoldoutStore } from "../../services/HoldoutStore.js"
import { Transactor } from "../../services/Transactor.js"
import { NotFound } from "../errors.js"
import { Holdout, presentHoldouts } from "../wire/holdouts.js"
import { setFlagHoldout } from "../holdoutFlags.js"
import { Reply } from "../reply.js"
import { environmentRoute } from "../route.js"

// Experiment holdouts (PostHog's `/experiment_holdouts/`): a share of persons who get
// `holdout-<id>` from the flag of every experiment using the holdout, before its variants. A draft
// experiment's flag follows the holdout's changes; once an experiment using it has started, its
// share is fixed and it cannot be deleted (the experiment's results count its persons).

const TAG = "experiments"

const invalid = (detail: string, attr: string | null) => new ValidationError({ code: "invalid_input", detail, attr })

const GroupWrite = Schema.Struct({
  properties: Schema.optional(
    Schema.Array(Schema.Unknown).pipe(
      check(
        (p: ReadonlyArray<unknown>) => p.length === 0,
        "invalid_input",
        "A holdout holds out a share of everyone: its group takes no properties."
      )
    )
  ),
  rollout_percentage: Schema.Number.pipe(
    check(
      (n: number) => Number.isFinite(n) && n >= 0 && n <= 100,
      "invalid_input",
      "The share held out (rollout_percentage) is between 0 and 100."
    )
  ),
  variant: Schema.optional(Schema.NullOr(Schema.String))
})

const HoldoutWrite = Schema.Struct({
  name: Schema.String.pipe(
    check((s: string) => s.trim() !== "", "required", "This field may not be blank."),
    check((s: string) => s.length <= 400, "max_length", "Ensure this field has no more than 400 characters.")
  ),
  description: Schema.optional(Schema.NullOr(Schema.String)),
  filters: Schema.Array(GroupWrite).pipe(
    check(
      (g: ReadonlyArray<typeof GroupWrite.Type>) => g.length === 1,
      "invalid_input",
      "A holdout has one group: [{properties: [], rollout_percentage}]."
    )
  )
}).annotations({ identifier: "ExperimentHoldoutWrite" })

const HoldoutUpdate = Schema.partial(HoldoutWrite).annotations({ identifier: "ExperimentHoldoutUpdate" })

const HoldoutRef = Schema.Struct({ id: PathId })

const findHoldout = (projectId: number, id: number) =>
  Effect.flatMap(
    Effect.flatMap(HoldoutStore, (s) => s.get(projectId, id)),
    Option.match({ onNone: () => Effect.fail(new NotFound({ detail: "Not found." })), onSome: Effect.succeed })
  )

/** The holdout (404 if none), the experiments using it, and the first of them that has started (which fixes it). */
const holdoutInUse = (projectId: number, holdoutId: number) =>
  Effect.gen(function* () {
    yield* findHoldout(projectId, holdoutId)
    const experiments = yield* (yield* ExperimentStore).ofHoldout(projectId, holdoutId)
    return { experiments, started: experiments.find((e) => statusOf(e) !== "draft") }
  })

const groups = (id: number, filters: typeof HoldoutWrite.Type.filters) =>
  filters.map((g) => ({ properties: [], rollout_percentage: g.rollout_percentage, variant: holdoutVariant(id) }))

const list = environmentRoute({
  method: "GET",
  path: "/experiment_holdouts",
  tag: TAG,
  summary: "List experiment holdouts",
  scope: "experiment:read",
  query: PageParams,
  response: Paginated(Holdout, "PaginatedExperimentHoldoutList"),
  handler: ({ project, query, request }) =>
    Effect.gen(function* () {
      const page = toPage(query)
      const { count, results } = yield* (yield* HoldoutStore).list(project.id, page)
      return paginated(request.url, page, count, yield* presentHoldouts(results))
    })
})

const create = environmentRoute({
  method: "POST",
  path: "/experiment_holdouts",
  tag: TAG,
  summary: "Create an experiment holdout",
  description:
    "`filters`: one group `{properties: [], rollout_percentage}`, the percentage of persons held out; its `variant` becomes `holdout-<id>`.",
  scope: "experiment:write",
  body: HoldoutWrite,
  response: Holdout,
  status: 201,
  handler: ({ body, principal, project }) =>
    Effect.gen(function* () {
      const store = yield* HoldoutStore
      const created = yield* (yield* Transactor).transaction(
        Effect.gen(function* () {
          const made = yield* store.create(
            project.id,
            newHoldout({
              name: body.name,
              description: body.description ?? null,
              filters: [],
              created_by: principal.user.id
            })
          )
          const named = yield* store.update(project.id, made.id, { filters: groups(made.id, body.filters) })
          return Option.getOrThrow(named)
        })
      )
      return (yield* presentHoldouts([created]))[0]!
    })
})

const retrieve = environmentRoute({
  method: "GET",
  path: "/experiment_holdouts/:id",
  tag: TAG,
  summary: "Retrieve an experiment holdout",
  scope: "experiment:read",
  params: HoldoutRef,
  response: Holdout,
  handler: ({ params, project }) =>
    Effect.flatMap(findHoldout(project.id, params.id), (h) => Effect.map(presentHoldouts([h]), (r) => r[0]!))
})

const update = environmentRoute({
  method: "PATCH",
  path: "/experiment_holdouts/:id",
  tag: TAG,
  summary: "Update an experiment holdout",
  description:
    "The draft experiments using it follow a new share; once one using it has started, the share cannot change (400 on `filters`).",
  scope: "experiment:write",
  params: HoldoutRef,
  body: HoldoutUpdate,
  response: Holdout,
  handler: ({ body, params, principal, project }) =>
    Effect.gen(function* () {
      const { experiments, started } = yield* holdoutInUse(project.id, params.id)
      const filters = body.filters === undefined ? undefined : groups(params.id, body.filters)
      if (filters !== undefined && started !== undefined)
        return yield* invalid(
          `The experiment "${started.name}" using this holdout has started: its share cannot change.`,
          "filters"
        )
      const updated = yield* (yield* Transactor).transaction(
        Effect.gen(function* () {
          const saved = Option.getOrThrow(
            yield* (yield* HoldoutStore).update(project.id, params.id, {
              name: body.name,
              description: body.description,
              filters
            })
          )
          if (filters !== undefined)
            for (const e of experiments) yield* setFlagHoldout(project, e.feature_flag_id, saved, principal.user.id)
          return saved
        })
      )
      return (yield* presentHoldouts([updated]))[0]!
    })
})

const remove = environmentRoute({
  method: "DELETE",
  path: "/experiment_holdouts/:id",
  tag: TAG,
  summary: "Delete an experiment holdout",
  description:
    "Draft experiments using it lose it (and their flags with them); one used by an experiment that has started cannot be deleted (400).",
  scope: "experiment:write",
  params: HoldoutRef,
  handler: ({ params, principal, project }) =>
    Effect.gen(function* () {
      const { experiments, started } = yield* holdoutInUse(project.id, params.id)
      if (started !== undefined)
        return yield* invalid(
          `The experiment "${started.name}" using this holdout has started: the holdout cannot be deleted.`,
          null
        )
      yield* (yield* Transactor).transaction(
        Effect.gen(function* () {
          for (const e of experiments) {
            yield* (yield* ExperimentStore).update(project.id, e.id, { holdout_id: null })
            yield* setFlagHoldout(project, e.feature_flag_id, null, principal.user.id)
          }
          yield* (yield* HoldoutStore).update(project.id, params.id, { deleted: true })
        })
      )
      return Reply.empty(204)
    })
})

export const experimentHoldoutRoutes = [list, create, retrieve, update, remove]
