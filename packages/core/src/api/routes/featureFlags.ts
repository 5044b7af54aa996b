import { createHash } from "node:crypto"
import { Effect, Option, Schema } from "effect"
import type { Project } from "../../domain/models.js"
import { UserBasic } from "../../domain/models.js"
import { FlagDefinitions } from "../../flags/definitions.js"
import { definitionsDocument } from "../../flags/localEvaluation.js"
import type { FlagFilters } from "../../flags/model.js"
import { FLAG_OPERATORS } from "../../flags/properties.js"
import { CohortStore } from "../../services/CohortStore.js"
import { EventStore } from "../../services/EventStore.js"
import { type FlagPatch, FlagStore, type StoredFlag } from "../../services/FlagStore.js"
import type { StorageError } from "../../services/StorageError.js"
import { NotFound, ValidationError } from "../errors.js"
import { etagMatches } from "../etag.js"
import { PageParams, Paginated, paginated, toPage } from "../pagination.js"
import { Reply } from "../reply.js"
import type { ZedRequest } from "../request.js"
import { environmentRoute } from "../route.js"
import { userLookup } from "../users.js"
import { check } from "../validation.js"

// Feature flag definitions. Deleting is soft (PATCH {"deleted": true}); every write invalidates the
// project's cached definitions so the next evaluation sees it.

const OPERATORS = new Set([...FLAG_OPERATORS, "in", "not_in", "flag_evaluates_to"])

const Percentage = Schema.Number.pipe(
  check((n: number) => Number.isFinite(n) && n >= 0 && n <= 100, "invalid_input", "Invalid rollout percentage: it must be between 0 and 100.")
)

/** Keys are text; flag dependencies often arrive as the numeric flag id. */
const KeyText = Schema.transform(Schema.Union(Schema.String, Schema.Number), Schema.String, {
  strict: true,
  decode: (key) => String(key),
  encode: (key) => key
})

const PropertyFilter = Schema.Struct({
  key: KeyText,
  value: Schema.optional(Schema.Unknown),
  operator: Schema.optionalWith(Schema.String.pipe(
    check((op: string) => OPERATORS.has(op), "invalid_input", (op: string) => `Unknown operator "${op}".`)
  ), { nullable: true }),
  type: Schema.optional(Schema.Literal("person", "group", "cohort", "flag", "person_metadata")),
  group_type_index: Schema.optional(Schema.NullOr(Schema.Int)),
  negation: Schema.optional(Schema.Boolean)
})

const Condition = Schema.Struct({
  properties: Schema.optional(Schema.Array(PropertyFilter)),
  rollout_percentage: Schema.optional(Schema.NullOr(Percentage)),
  variant: Schema.optional(Schema.NullOr(Schema.String)),
  aggregation_group_type_index: Schema.optional(Schema.NullOr(Schema.Int))
})

const Variant = Schema.Struct({
  key: Schema.String.pipe(check((k: string) => /^[A-Za-z0-9_-]+$/.test(k), "invalid_input", "Variant keys may hold only letters, digits, '-' and '_'.")),
  name: Schema.optional(Schema.NullOr(Schema.String)),
  rollout_percentage: Percentage
})

type FiltersInput = Schema.Schema.Type<typeof FiltersFields>
const FiltersFields = Schema.Struct({
  aggregation_group_type_index: Schema.optional(Schema.NullOr(Schema.Int)),
  groups: Schema.optional(Schema.Array(Condition)),
  multivariate: Schema.optional(Schema.NullOr(Schema.Struct({ variants: Schema.Array(Variant) }))),
  payloads: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  super_groups: Schema.optional(Schema.Array(Condition)),
  feature_enrollment: Schema.optional(Schema.Boolean),
  holdout: Schema.optional(Schema.NullOr(Schema.Struct({ id: Schema.Int, exclusion_percentage: Percentage }))),
  holdout_groups: Schema.optional(Schema.NullOr(Schema.Array(Condition)))
})

const variantsOf = (f: FiltersInput) => f.multivariate?.variants ?? []

const Filters = FiltersFields.pipe(
  check((f: FiltersInput) => {
    const variants = variantsOf(f)
    return variants.length === 0 || Math.abs(variants.reduce((sum, v) => sum + v.rollout_percentage, 0) - 100) < 1e-9
  }, "invalid_input", "Invalid variant definitions: variant rollout percentages must sum to 100."),
  check((f: FiltersInput) => new Set(variantsOf(f).map((v) => v.key)).size === variantsOf(f).length,
    "invalid_input", "Invalid variant definitions: variant keys must be unique."),
  check((f: FiltersInput) => (f.groups ?? []).every((c) => c.variant === undefined || c.variant === null || variantsOf(f).some((v) => v.key === c.variant)),
    "invalid_input", "A condition's variant must be one of the flag's variants."),
  check((f: FiltersInput) => Object.keys(f.payloads ?? {}).every((k) => k === "true" || variantsOf(f).some((v) => v.key === k)),
    "invalid_input", 'Payload keys must be variant keys, or "true" for a boolean flag.')
).annotations({ identifier: "FlagFilters", description: "Conditions, variants, payloads: PostHog's flag filters." })

const FlagKey = Schema.String.pipe(
  check((k: string) => /^[A-Za-z0-9_-]+$/.test(k), "invalid_key", "Only letters, numbers, hyphens (\"-\") & underscores (\"_\") are allowed."),
  check((k: string) => k.length <= 400, "max_length", "Ensure this field has no more than 400 characters.")
)

const Tags = Schema.Array(Schema.String)

const FlagFields = {
  name: Schema.optional(Schema.String),
  filters: Schema.optional(Filters),
  active: Schema.optional(Schema.Boolean),
  ensure_experience_continuity: Schema.optional(Schema.Boolean),
  bucketing_identifier: Schema.optional(Schema.NullOr(Schema.Literal("distinct_id", "device_id"))),
  evaluation_runtime: Schema.optional(Schema.Literal("server", "client", "all")),
  evaluation_tags: Schema.optional(Tags),
  tags: Schema.optional(Tags)
}

const FlagCreate = Schema.Struct({ key: FlagKey, ...FlagFields }).annotations({ identifier: "FeatureFlagCreate" })
const FlagUpdate = Schema.Struct({ key: Schema.optional(FlagKey), deleted: Schema.optional(Schema.Boolean), ...FlagFields })
  .annotations({ identifier: "FeatureFlagUpdate" })

const FeatureFlag = Schema.Struct({
  id: Schema.Int,
  key: Schema.String,
  name: Schema.String,
  filters: Schema.Unknown,
  active: Schema.Boolean,
  deleted: Schema.Boolean,
  version: Schema.Int,
  ensure_experience_continuity: Schema.Boolean,
  bucketing_identifier: Schema.NullOr(Schema.String),
  evaluation_runtime: Schema.String,
  evaluation_tags: Tags,
  tags: Tags,
  /** One condition, no properties, no variants: a plain percentage rollout. */
  is_simple_flag: Schema.Boolean,
  rollout_percentage: Schema.NullOr(Schema.Number),
  has_encrypted_payloads: Schema.Boolean,
  created_by: Schema.NullOr(UserBasic),
  last_modified_by: Schema.NullOr(UserBasic),
  created_at: Schema.Date,
  updated_at: Schema.Date,
  /** The newest `$feature_flag_called` event stored for the key, if any. */
  last_called_at: Schema.NullOr(Schema.Date)
}).annotations({ identifier: "FeatureFlag" })

const simple = (flag: StoredFlag) => {
  const groups = flag.filters.groups ?? []
  return groups.length === 1 && (groups[0]!.properties ?? []).length === 0 && !flag.filters.multivariate &&
    (flag.filters.aggregation_group_type_index ?? null) === null
}

/** Flags as the API shows them, with authors and last calls (one lookup each for the whole page). */
const present = (projectId: number, flags: ReadonlyArray<StoredFlag>) =>
  Effect.gen(function*() {
    const calls = yield* (yield* EventStore).lastFlagCalls(projectId, flags.map((f) => f.key))
    const user = yield* userLookup(flags.flatMap((f) => [f.created_by, f.last_modified_by]))
    return flags.map((flag): typeof FeatureFlag.Type => ({
      id: flag.id,
      key: flag.key,
      name: flag.name,
      filters: flag.filters,
      active: flag.active,
      deleted: flag.deleted,
      version: flag.version,
      ensure_experience_continuity: flag.ensure_experience_continuity,
      bucketing_identifier: flag.bucketing_identifier,
      evaluation_runtime: flag.evaluation_runtime,
      evaluation_tags: flag.evaluation_contexts,
      tags: flag.tags,
      is_simple_flag: simple(flag),
      rollout_percentage: simple(flag) ? (flag.filters.groups![0]!.rollout_percentage ?? 100) : null,
      has_encrypted_payloads: false,
      created_by: user(flag.created_by),
      last_modified_by: user(flag.last_modified_by),
      created_at: flag.created_at,
      updated_at: flag.updated_at,
      last_called_at: calls.get(flag.key) ?? null
    }))
  })

const invalid = (detail: string, attr = "filters") => new ValidationError({ code: "invalid_input", detail, attr })

/** What only storage can tell: cohorts and flags named by the filters exist, and dependencies do not loop. */
const checkReferences = (project: Project, filters: FlagFilters, self: number | undefined) =>
  Effect.gen(function*() {
    const conditions = [...(filters.groups ?? []), ...(filters.super_groups ?? [])]
    const properties = conditions.flatMap((c) => c.properties ?? [])
    const cohorts = yield* CohortStore
    for (const p of properties.filter((p) => p.type === "cohort")) {
      const id = Number(p.value)
      if (!Number.isInteger(id) || Option.isNone(yield* cohorts.get(project.id, id))) return yield* invalid(`Cohort with id ${String(p.value)} does not exist.`)
    }
    const flags = yield* (yield* FlagStore).all(project.id)
    const byId = new Map(flags.map((f) => [f.id, f]))
    const dependsOn = (f: FlagFilters) =>
      (f.groups ?? []).flatMap((c) => c.properties ?? []).filter((p) => p.type === "flag").map((p) => Number(p.key))
    for (const p of properties.filter((p) => p.type === "flag")) {
      const id = Number(p.key)
      if (!byId.has(id)) return yield* invalid(`Flag dependency ${String(p.key)} does not exist: name dependencies by flag id.`)
    }
    // Walk what the flag would depend on: reaching itself again is a cycle.
    if (self !== undefined) {
      const seen = new Set<number>()
      const pending = dependsOn(filters)
      while (pending.length > 0) {
        const id = pending.pop()!
        if (id === self) return yield* invalid("Circular dependency: the flag would depend on itself.")
        if (seen.has(id)) continue
        seen.add(id)
        pending.push(...dependsOn(byId.get(id)?.filters ?? {}))
      }
    }
  })

/** A conflict on create or update is another live flag holding the key. */
const keyTaken = <A>(effect: Effect.Effect<A, StorageError | ValidationError>) =>
  Effect.catchIf(effect, (e) => e._tag === "StorageError" && e.conflict === true,
    () => Effect.fail(new ValidationError({ code: "unique", detail: "There is already a feature flag with this key.", attr: "key" })))

const FlagRef = Schema.Struct({ id: Schema.NumberFromString.pipe(Schema.int()) })

const find = (projectId: number, id: number) =>
  Effect.flatMap(Effect.flatMap(FlagStore, (s) => s.get(projectId, id)), Option.match({
    onNone: () => Effect.fail(new NotFound({ detail: "Not found." })),
    onSome: Effect.succeed
  }))

const list = environmentRoute({
  method: "GET",
  path: "/feature_flags",
  tag: "feature flags",
  summary: "List feature flags",
  scope: "feature_flag:read",
  query: PageParams.pipe(Schema.extend(Schema.Struct({
    search: Schema.optional(Schema.String.annotations({ description: "Part of the key or name." })),
    active: Schema.optional(Schema.Literal("true", "false"))
  }))),
  response: Paginated(FeatureFlag, "PaginatedFeatureFlagList"),
  handler: ({ project, query, request }) =>
    Effect.gen(function*() {
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
    Effect.gen(function*() {
      const filters: FlagFilters = body.filters ?? {}
      yield* checkReferences(project, filters, undefined)
      const flag = yield* keyTaken((yield* FlagStore).create(project.id, {
        key: body.key,
        name: body.name ?? "",
        filters,
        active: body.active ?? true,
        ensure_experience_continuity: body.ensure_experience_continuity ?? false,
        bucketing_identifier: body.bucketing_identifier ?? null,
        evaluation_runtime: body.evaluation_runtime ?? "all",
        evaluation_contexts: body.evaluation_tags ?? [],
        tags: body.tags ?? [],
        created_by: principal.user.id
      }))
      yield* (yield* FlagDefinitions).invalidate(project.id)
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
  handler: ({ params, project }) => Effect.flatMap(find(project.id, params.id), (flag) => Effect.map(present(project.id, [flag]), (f) => f[0]!))
})

const update = environmentRoute({
  method: "PATCH",
  path: "/feature_flags/:id",
  tag: "feature flags",
  summary: "Update a feature flag (also soft-deletes it with {\"deleted\": true})",
  scope: "feature_flag:write",
  params: FlagRef,
  body: FlagUpdate,
  response: FeatureFlag,
  handler: ({ body, params, principal, project }) =>
    Effect.gen(function*() {
      yield* find(project.id, params.id)
      if (body.filters !== undefined) yield* checkReferences(project, body.filters, params.id)
      const { evaluation_tags, ...rest } = body
      const patch: FlagPatch = { ...rest, evaluation_contexts: evaluation_tags, last_modified_by: principal.user.id }
      const updated = yield* keyTaken((yield* FlagStore).update(project.id, params.id, patch))
      yield* (yield* FlagDefinitions).invalidate(project.id)
      const flag = yield* Option.match(updated, { onNone: () => Effect.fail(new NotFound({ detail: "Not found." })), onSome: Effect.succeed })
      return (yield* present(project.id, [flag]))[0]!
    })
})

const remove = environmentRoute({
  method: "DELETE",
  path: "/feature_flags/:id",
  tag: "feature flags",
  summary: "Not allowed: delete with PATCH {\"deleted\": true}",
  description: "Answers 405 with no body, as PostHog does for resources deleted softly.",
  scope: "feature_flag:write",
  handler: () => Effect.succeed(Reply.empty(405, { allow: "GET, PATCH" }))
})

/** The definitions SDKs evaluate locally, with a weak ETag so an unchanged set costs a 304. */
export const definitionsReply = (request: ZedRequest, project: Project) =>
  Effect.gen(function*() {
    const snapshot = yield* (yield* FlagDefinitions).get(project.id)
    const body = JSON.stringify(definitionsDocument(snapshot, project.id, request.url.searchParams.has("send_cohorts")))
    const etag = `W/"${createHash("sha1").update(body).digest("hex")}"`
    const headers = { etag, "cache-control": "private, must-revalidate" }
    if (etagMatches(request.header("if-none-match"), etag)) return Reply.empty(304, headers)
    return new Reply(200, body, { ...headers, "content-type": "application/json" })
  })

const localEvaluation = environmentRoute({
  method: "GET",
  path: "/feature_flags/local_evaluation",
  tag: "feature flags",
  summary: "Flag definitions for local evaluation in server SDKs",
  description: "Every live flag (inactive ones too), the group type mapping and, with `send_cohorts`, the cohorts they use. Honors If-None-Match.",
  scope: "feature_flag:read",
  handler: ({ project, request }) => definitionsReply(request, project)
})

export const featureFlagRoutes = [list, create, localEvaluation, retrieve, update, remove]
