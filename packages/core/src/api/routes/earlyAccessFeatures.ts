import { Effect, Option, Schema, Struct } from "effect"
import type { Project } from "../../domain/models.js"
import {
  DEFAULT_PUBLIC_STAGES,
  filtersAtStage,
  flagKeyOf,
  newFeatureFilters,
  STAGES
} from "../../earlyAccess/stages.js"
import { FlagDefinitions } from "../../flags/definitions.js"
import { EarlyAccessFeature as Entity, newEarlyAccessFeature } from "../../earlyAccess/featureEntity.js"
import { EarlyAccessFeatureStore, type StoredEarlyAccessFeature } from "../../services/EarlyAccessFeatureStore.js"
import { newFlag } from "../../flags/flagEntity.js"
import { FlagStore, type StoredFlag } from "../../services/FlagStore.js"
import type { StorageError } from "../../services/StorageError.js"
import { Transactor } from "../../services/Transactor.js"
import { uuidv7 } from "../../ingest/uuid.js"
import { NotFound } from "../errors.js"
import { ValidationError } from "../../schema/ValidationError.js"
import { createFlag, updateFlag } from "../flagWrites.js"
import { flagsById, MinimalFlag, minimalFlag } from "../minimalFlag.js"
import { PageParams, Paginated, paginated, toPage } from "../../domain/pagination.js"
import { publicJson, tokenProject } from "../projectToken.js"
import { Reply } from "../reply.js"
import { environmentRoute, publicRoute } from "../route.js"
import { check, IntIn, Text } from "../../schema/fields.js"
import { failure } from "../captureEdge.js"

// Early access features (PostHog's `/early_access_feature/`): each is released through a flag,
// made with it (or an existing one named by `feature_flag_id`). At a release stage the flag turns on
// for whoever opts in from posthog-js (`$feature_enrollment/<key>`), which flag evaluation honours.
// posthog-js lists them from the public `/api/early_access_features/`.

const TAG = "early access features"

const invalid = (detail: string, attr: string | null) => new ValidationError({ code: "invalid_input", detail, attr })
const notFound = () => new NotFound({ detail: "Not found." })

const Stage = Schema.Literal(...STAGES)
const DocumentationUrl = Schema.String.pipe(
  check(
    (s: string) => s === "" || (URL.canParse(s) && /^https?:/.test(s) && s.length <= 800),
    "invalid_input",
    "Enter a valid URL."
  )
)

// The wire checks a name's length, the stage and the documentation URL; the description is the
// entity's as declared.
const FeatureFields = {
  name: Text(200),
  description: Schema.optional(Entity.fields.description),
  stage: Stage,
  documentation_url: Schema.optional(DocumentationUrl)
}

const FeatureCreate = Schema.Struct({
  ...FeatureFields,
  feature_flag_id: Schema.optional(
    IntIn(1).annotations({
      description: "Release through this existing flag (not group-based, not multivariate) instead of a new one."
    })
  )
}).annotations({ identifier: "EarlyAccessFeatureCreate" })

const FeatureUpdate = Schema.Struct({
  name: Schema.optional(FeatureFields.name),
  description: FeatureFields.description,
  stage: Schema.optional(Stage),
  documentation_url: FeatureFields.documentation_url
}).annotations({ identifier: "EarlyAccessFeatureUpdate" })

const Feature = Schema.Struct({
  ...Struct.pick(Entity.fields, "id"),
  feature_flag: Schema.NullOr(MinimalFlag),
  ...Struct.pick(Entity.fields, "name", "description", "stage", "documentation_url"),
  created_at: Schema.Date
}).annotations({ identifier: "EarlyAccessFeature" })

const present = (projectId: number, features: ReadonlyArray<StoredEarlyAccessFeature>) =>
  Effect.gen(function* () {
    const flags = yield* flagsById(projectId)
    return features.map(({ feature_flag_id, ...feature }): typeof Feature.Type => ({
      ...feature,
      feature_flag: minimalFlag(projectId, flags.get(feature_flag_id))
    }))
  })

const Ref = Schema.Struct({ id: Schema.String })

const findFeature = (projectId: number, id: string) =>
  Effect.flatMap(
    Effect.flatMap(EarlyAccessFeatureStore, (s) => s.get(projectId, id)),
    Option.match({ onNone: () => Effect.fail(notFound()), onSome: Effect.succeed })
  )

/** The flag an existing feature flag id names, if it can release a feature (PostHog's rules). */
const releasableFlag = (projectId: number, id: number) =>
  Effect.gen(function* () {
    const flag = yield* Effect.flatMap(
      (yield* FlagStore).get(projectId, id),
      Option.match({
        onNone: () => Effect.fail(invalid("Feature Flag with this ID does not exist", "feature_flag_id")),
        onSome: Effect.succeed
      })
    )
    if (flag.filters.aggregation_group_type_index != null)
      return yield* invalid("Group-based feature flags are not supported for Early Access Features.", "feature_flag_id")
    if ((flag.filters.multivariate?.variants ?? []).length > 0)
      return yield* invalid(
        "Multivariate feature flags are not supported for Early Access Features.",
        "feature_flag_id"
      )
    return flag
  })

/** Puts the flag's opt-in condition in line with the feature's stage. */
const stageFlag = (project: Project, flag: StoredFlag, stage: string, userId: number) =>
  updateFlag(project, flag.id, { filters: filtersAtStage(flag.key, flag.filters, stage), last_modified_by: userId })

const flagOf = (projectId: number, feature: StoredEarlyAccessFeature) =>
  Effect.map(
    Effect.flatMap(FlagStore, (s) => s.get(projectId, feature.feature_flag_id)),
    Option.getOrUndefined
  )

/** A conflict storing the feature is its flag releasing another one already. */
const flagTaken = <A>(flag: StoredFlag, effect: Effect.Effect<A, StorageError>) =>
  Effect.catchIf(
    effect,
    (e) => e.conflict === true,
    () =>
      Effect.fail(invalid(`Linked feature flag ${flag.key} already has a feature attached to it.`, "feature_flag_id"))
  )

const list = environmentRoute({
  method: "GET",
  path: "/early_access_feature",
  tag: TAG,
  summary: "List early access features",
  scope: "early_access_feature:read",
  query: PageParams,
  response: Paginated(Feature, "PaginatedEarlyAccessFeatureList"),
  handler: ({ project, query, request }) =>
    Effect.gen(function* () {
      const page = toPage(query)
      const { count, results } = yield* (yield* EarlyAccessFeatureStore).list(project.id, page)
      return paginated(request.url, page, count, yield* present(project.id, results))
    })
})

const create = environmentRoute({
  method: "POST",
  path: "/early_access_feature",
  tag: TAG,
  summary: "Create an early access feature",
  description:
    "Without `feature_flag_id`, a flag keyed by the slug of the name is made with it, off for everyone but those who opt in. At a release stage (`concept`, `alpha`, `beta`, `general-availability`) the flag turns on for people whose `$feature_enrollment/<key>` is true.",
  scope: "early_access_feature:write",
  body: FeatureCreate,
  response: Feature,
  status: 201,
  handler: ({ body, principal, project }) =>
    Effect.gen(function* () {
      const existing =
        body.feature_flag_id === undefined ? undefined : yield* releasableFlag(project.id, body.feature_flag_id)
      const key = existing?.key ?? flagKeyOf(body.name)
      if (key === "")
        return yield* invalid("The name needs letters or digits to make the feature's flag key from.", "name")
      const feature = yield* (yield* Transactor).transaction(
        Effect.gen(function* () {
          const flag =
            existing !== undefined
              ? yield* stageFlag(project, existing, body.stage, principal.user.id)
              : yield* Effect.mapError(
                  createFlag(
                    project,
                    newFlag({
                      key,
                      name: `Feature Flag for Feature ${body.name}`,
                      filters: newFeatureFilters(key, body.stage),
                      active: true,
                      created_by: principal.user.id
                    })
                  ),
                  (e) =>
                    e._tag === "ValidationError" && e.attr === "key"
                      ? invalid(
                          `There is already a feature flag with the key "${key}": name the feature otherwise, or release it through that flag with feature_flag_id.`,
                          "name"
                        )
                      : e
                )
          return yield* flagTaken(
            flag,
            (yield* EarlyAccessFeatureStore).create(
              project.id,
              newEarlyAccessFeature({ ...body, id: uuidv7(), feature_flag_id: flag.id })
            )
          )
        })
      )
      // Flags written inside the transaction may have been read back before it committed.
      yield* (yield* FlagDefinitions).invalidate(project.id)
      return (yield* present(project.id, [feature]))[0]!
    })
})

const retrieve = environmentRoute({
  method: "GET",
  path: "/early_access_feature/:id",
  tag: TAG,
  summary: "Retrieve an early access feature",
  scope: "early_access_feature:read",
  params: Ref,
  response: Feature,
  handler: ({ params, project }) =>
    Effect.flatMap(findFeature(project.id, params.id), (f) => Effect.map(present(project.id, [f]), (r) => r[0]!))
})

const update = environmentRoute({
  method: "PATCH",
  path: "/early_access_feature/:id",
  tag: TAG,
  summary: "Update an early access feature (moving it between stages)",
  description:
    "Entering a release stage adds the flag's opt-in condition; leaving them (`draft`, `archived`) removes it.",
  scope: "early_access_feature:write",
  params: Ref,
  body: FeatureUpdate,
  response: Feature,
  handler: ({ body, params, principal, project }) =>
    Effect.gen(function* () {
      yield* findFeature(project.id, params.id)
      const feature = yield* (yield* Transactor).transaction(
        Effect.gen(function* () {
          const saved = yield* Effect.flatMap(
            (yield* EarlyAccessFeatureStore).update(project.id, params.id, body),
            Option.match({ onNone: () => Effect.fail(notFound()), onSome: Effect.succeed })
          )
          const flag = yield* flagOf(project.id, saved)
          if (body.stage !== undefined && flag !== undefined)
            yield* stageFlag(project, flag, body.stage, principal.user.id)
          return saved
        })
      )
      yield* (yield* FlagDefinitions).invalidate(project.id)
      return (yield* present(project.id, [feature]))[0]!
    })
})

const remove = environmentRoute({
  method: "DELETE",
  path: "/early_access_feature/:id",
  tag: TAG,
  summary: "Delete an early access feature",
  description: "Its flag stays, without the opt-in condition.",
  scope: "early_access_feature:write",
  params: Ref,
  handler: ({ params, principal, project }) =>
    Effect.gen(function* () {
      const feature = yield* findFeature(project.id, params.id)
      yield* (yield* Transactor).transaction(
        Effect.gen(function* () {
          const flag = yield* flagOf(project.id, feature)
          if (flag !== undefined) yield* stageFlag(project, flag, "archived", principal.user.id)
          yield* (yield* EarlyAccessFeatureStore).remove(project.id, feature.id)
        })
      )
      yield* (yield* FlagDefinitions).invalidate(project.id)
      return Reply.empty(204)
    })
})

// posthog-js's shape renames the documentation URL and the flag; the rest are the entity's fields.
const PublicFeature = Schema.Struct({
  ...Struct.pick(Entity.fields, "id", "name", "description", "stage"),
  documentationUrl: Schema.String,
  flagKey: Schema.NullOr(Schema.String)
})

const publicList = publicRoute({
  method: "GET",
  path: "/api/early_access_features",
  tag: TAG,
  summary: "The early access features posthog-js lists (project API key in `token`)",
  description:
    "Those at the stages named by `stage` (repeatable; `beta` when none), in posthog-js's shape. 401 without a project's token.",
  query: Schema.Struct({ token: Schema.optional(Schema.String), stage: Schema.optional(Stage) }),
  response: Schema.Struct({ earlyAccessFeatures: Schema.Array(PublicFeature) }).annotations({
    identifier: "PublicEarlyAccessFeatures"
  }),
  handler: ({ request }) =>
    publicJson(
      request,
      Effect.gen(function* () {
        const project = yield* tokenProject(request)
        const asked = request.url.searchParams.getAll("stage")
        const unknown = asked.find((s) => !(STAGES as ReadonlyArray<string>).includes(s))
        if (unknown !== undefined)
          return yield* Effect.fail(
            failure(request, "invalid_payload", `Unknown stage "${unknown}": one of ${STAGES.join(", ")}.`)
          )
        const features = yield* (yield* EarlyAccessFeatureStore).atStages(
          project.id,
          asked.length === 0 ? DEFAULT_PUBLIC_STAGES : asked
        )
        const flags = yield* flagsById(project.id)
        return {
          earlyAccessFeatures: features.map((f) => ({
            id: f.id,
            name: f.name,
            description: f.description,
            stage: f.stage,
            documentationUrl: f.documentation_url,
            flagKey: flags.get(f.feature_flag_id)?.key ?? null
          }))
        }
      })
    )
})

export const earlyAccessFeatureRoutes = [list, create, retrieve, update, remove, publicList]
