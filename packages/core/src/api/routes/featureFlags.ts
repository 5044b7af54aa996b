import { Effect, Option, Schema, Struct } from "effect"
import { UserBasic } from "../../domain/models.js"
import { EventStore } from "../../services/EventStore.js"
import { ExperimentStore } from "../../services/ExperimentStore.js"
import { Flag, newFlag } from "../../flags/flagEntity.js"
import { FlagStore, type StoredFlag } from "../../services/FlagStore.js"
import { NotFound } from "../errors.js"
import { createFlag, FlagFiltersSchema, FlagKey, updateFlag } from "../flagWrites.js"
import { PageParams, Paginated, paginated, toPage } from "../../domain/pagination.js"
import { Reply } from "../reply.js"
import { environmentRoute } from "../route.js"
import { definitionsReply } from "../flagDefinitions.js"
import { userLookup } from "../users.js"
import { PathId } from "../../schema/fields.js"

// Feature flag definitions. Deleting is soft (PATCH {"deleted": true}); writes go through
// flagWrites, which validates them and invalidates the project's cached definitions.

// The entity's fields as written: filters validated, evaluation contexts called evaluation tags.
const FlagFields = Schema.partial(
  Schema.Struct({
    ...Struct.pick(Flag.fields, "name"),
    filters: FlagFiltersSchema,
    ...Struct.pick(Flag.fields, "active", "ensure_experience_continuity", "bucketing_identifier", "evaluation_runtime"),
    evaluation_tags: Flag.fields.evaluation_contexts,
    ...Struct.pick(Flag.fields, "tags")
  })
)

const FlagCreate = Schema.Struct({ key: FlagKey })
  .pipe(Schema.extend(FlagFields))
  .annotations({ identifier: "FeatureFlagCreate" })
const FlagUpdate = Schema.Struct({ key: Schema.optional(FlagKey), deleted: Schema.optional(Schema.Boolean) })
  .pipe(Schema.extend(FlagFields))
  .annotations({ identifier: "FeatureFlagUpdate" })

const FeatureFlag = Schema.Struct({
  ...Struct.pick(Flag.fields, "id", "key", "name"),
  filters: Schema.Unknown,
  ...Struct.pick(Flag.fields, "active", "deleted", "version", "ensure_experience_continuity"),
  bucketing_identifier: Schema.NullOr(Schema.String),
  evaluation_runtime: Schema.String,
  evaluation_tags: Flag.fields.evaluation_contexts,
  ...Struct.pick(Flag.fields, "tags"),
  /** One condition, no properties, no variants: a plain percentage rollout. */
  is_simple_flag: Schema.Boolean,
  rollout_percentage: Schema.NullOr(Schema.Number),
  has_encrypted_payloads: Schema.Boolean,
  created_by: Schema.NullOr(UserBasic),
  last_modified_by: Schema.NullOr(UserBasic),
  created_at: Schema.Date,
  updated_at: Schema.Date,
  /** The newest `$feature_flag_called` event stored for the key, if any. */
  last_called_at: Schema.NullOr(Schema.Date),
  experiment_set: Schema.Array(Schema.Int).annotations({
    description: "The ids of the experiments (not deleted) that use the flag, oldest first."
  })
}).annotations({ identifier: "FeatureFlag" })

const simple = (flag: StoredFlag) => {
  const groups = flag.filters.groups ?? []
  return (
    groups.length === 1 &&
    (groups[0]!.properties ?? []).length === 0 &&
    !flag.filters.multivariate &&
    (flag.filters.aggregation_group_type_index ?? null) === null
  )
}

/** Flags as the API shows them, with authors, last calls and experiments (one lookup each for the whole page). */
const present = (projectId: number, flags: ReadonlyArray<StoredFlag>) =>
  Effect.gen(function* () {
    const calls = yield* (yield* EventStore).lastFlagCalls(
      projectId,
      flags.map((f) => f.key)
    )
    const user = yield* userLookup(flags.flatMap((f) => [f.created_by, f.last_modified_by]))
    const experiments = yield* (yield* ExperimentStore).ofFlags(
      projectId,
      flags.map((f) => f.id)
    )
    // The response schema keeps the wire's fields of the stored flag and drops the rest.
    return flags.map((flag): typeof FeatureFlag.Type => ({
      ...flag,
      evaluation_tags: flag.evaluation_contexts,
      is_simple_flag: simple(flag),
      rollout_percentage: simple(flag) ? (flag.filters.groups![0]!.rollout_percentage ?? 100) : null,
      has_encrypted_payloads: false,
      created_by: user(flag.created_by),
      last_modified_by: user(flag.last_modified_by),
      last_called_at: calls.get(flag.key) ?? null,
      experiment_set: experiments
        .filter((e) => e.feature_flag_id === flag.id)
        .map((e) => e.id)
        .sort((a, b) => a - b)
    }))
  })

const FlagRef = Schema.Struct({ id: PathId })

const find = (projectId: number, id: number) =>
  Effect.flatMap(
    Effect.flatMap(FlagStore, (s) => s.get(projectId, id)),
    Option.match({
      onNone: () => Effect.fail(new NotFound({ detail: "Not found." })),
      onSome: Effect.succeed
    })
  )

const list = environmentRoute({
  method: "GET",
  path: "/feature_flags",
  tag: "feature flags",
  summary: "List feature flags",
  scope: "feature_flag:read",
  query: PageParams.pipe(
    Schema.extend(
      Schema.Struct({
        search: Schema.optional(Schema.String.annotations({ description: "Part of the key or name." })),
        active: Schema.optional(Schema.Literal("true", "false"))
      })
    )
  ),
  response: Paginated(FeatureFlag, "PaginatedFeatureFlagList"),
  handler: ({ project, query, request }) =>
    Effect.gen(function* () {
      const page = toPage(query)
      const { count, results } = yield* (yield* FlagStore).list(project.id, {
        search: query.search,
        active: query.active === undefined ? undefined : query.active === "true",
        ...page
      })
      return paginated(request.url, page, count, yield* present(project.id, results))
    })
})

const create = environmentRoute({
  method: "POST",
  path: "/feature_flags",
  tag: "feature flags",
  summary: "Create a feature flag",
  scope: "feature_flag:write",
  body: FlagCreate,
  response: FeatureFlag,
  status: 201,
  handler: ({ body, principal, project }) =>
    Effect.gen(function* () {
      const { evaluation_tags, ...rest } = body
      const flag = yield* createFlag(
        project,
        newFlag({ ...rest, evaluation_contexts: evaluation_tags, created_by: principal.user.id })
      )
      return (yield* present(project.id, [flag]))[0]!
    })
})

const retrieve = environmentRoute({
  method: "GET",
  path: "/feature_flags/:id",
  tag: "feature flags",
  summary: "Retrieve a feature flag",
  scope: "feature_flag:read",
  params: FlagRef,
  response: FeatureFlag,
  handler: ({ params, project }) =>
    Effect.flatMap(find(project.id, params.id), (flag) => Effect.map(present(project.id, [flag]), (f) => f[0]!))
})

const update = environmentRoute({
  method: "PATCH",
  path: "/feature_flags/:id",
  tag: "feature flags",
  summary: 'Update a feature flag (also soft-deletes it with {"deleted": true})',
  scope: "feature_flag:write",
  params: FlagRef,
  body: FlagUpdate,
  response: FeatureFlag,
  handler: ({ body, params, principal, project }) =>
    Effect.gen(function* () {
      yield* find(project.id, params.id)
      const { evaluation_tags, ...rest } = body
      const flag = yield* updateFlag(project, params.id, {
        ...rest,
        evaluation_contexts: evaluation_tags,
        last_modified_by: principal.user.id
      })
      return (yield* present(project.id, [flag]))[0]!
    })
})

const remove = environmentRoute({
  method: "DELETE",
  path: "/feature_flags/:id",
  tag: "feature flags",
  summary: 'Not allowed: delete with PATCH {"deleted": true}',
  description: "Answers 405 with no body, as PostHog does for resources deleted softly.",
  scope: "feature_flag:write",
  handler: () => Effect.succeed(Reply.empty(405, { allow: "GET, PATCH" }))
})

const localEvaluation = environmentRoute({
  method: "GET",
  path: "/feature_flags/local_evaluation",
  tag: "feature flags",
  summary: "Flag definitions for local evaluation in server SDKs",
  description:
    "Every live flag (inactive ones too), the group type mapping and, with `send_cohorts`, the cohorts they use. Honors If-None-Match.",
  scope: "feature_flag:read",
  handler: ({ project, request }) => definitionsReply(request, project)
})

export const featureFlagRoutes = [list, create, localEvaluation, retrieve, update, remove]
