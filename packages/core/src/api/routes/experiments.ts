import { ArchivedSearchQuery, archivedFilter } from "../archivedSearchQuery.js"
import { Effect, Option, Schema, Struct } from "effect"
import type { Project } from "../../domain/models.js"
import { UserBasic } from "../../domain/models.js"
import { Paginated, paginated, toPage } from "../../domain/pagination.js"
import {
  ExposureCriteria,
  Metric,
  metricsOf,
  Parameters,
  type Variant,
  Variants,
  variantsOf
} from "../../experiments/definition.js"
import { Experiment as Entity, newExperiment, statusOf } from "../../experiments/experimentEntity.js"
import { flagHoldoutFilters } from "../../experiments/holdoutEntity.js"
import { answerExperimentMetric, experimentArms } from "../../experiments/results.js"
import { sampleSize } from "../../experiments/statistics.js"
import { FlagDefinitions } from "../../flags/definitions.js"
import { newFlag } from "../../flags/flagEntity.js"
import { RefreshMode } from "../../queries/cachePolicy.js"
import type { QueryAnswer } from "../../queries/runner.js"
import { check, Instant, PathId } from "../../schema/fields.js"
import { ValidationError } from "../../schema/ValidationError.js"
import { ExperimentStore, type StoredExperiment } from "../../services/ExperimentStore.js"
import { HoldoutStore } from "../../services/HoldoutStore.js"
import { FlagStore, type StoredFlag } from "../../services/FlagStore.js"
import { PropertyDefinitions } from "../../services/PropertyDefinitions.js"
import { Transactor } from "../../services/Transactor.js"
import { NotFound } from "../errors.js"
import { createFlag, FlagKey, updateFlag } from "../flagWrites.js"
import { setFlagHoldout } from "../holdoutFlags.js"
import { Holdout, holdoutFor, presentHoldouts } from "../wire/holdouts.js"
import { flagsById, MinimalFlag, minimalFlag } from "../minimalFlag.js"
import { queryFailure } from "../queryReplies.js"
import { Reply } from "../reply.js"
import { environmentRoute, softDeleteOnly } from "../route.js"
import { userLookup } from "../users.js"

// Experiments (PostHog's `/experiments/`): an A/B test on a multivariate flag, made with the
// experiment or an existing one. Draft (no start date) → running (start date) → stopped (end date,
// optionally shipping a variant to everyone) → archived; deleted softly. While one runs, its flag
// keeps its key, variants and split (flagWrites asks `experimentLock`). Results per metric come from
// experiments/results.ts, through the query runner.

const TAG = "experiments"

const invalid = (detail: string, attr: string | null) => new ValidationError({ code: "invalid_input", detail, attr })

const DEFAULT_VARIANTS: ReadonlyArray<Variant> = [
  { key: "control", name: "Control", rollout_percentage: 50 },
  { key: "test", name: "Test", rollout_percentage: 50 }
]

const ExperimentWrite = Schema.Struct({
  name: Schema.optional(
    Schema.String.pipe(
      check((s: string) => s.trim() !== "", "required", "This field may not be blank."),
      check((s: string) => s.length <= 400, "max_length", "Ensure this field has no more than 400 characters.")
    )
  ),
  description: Schema.optional(Schema.NullOr(Schema.String)),
  hypothesis: Schema.optional(Schema.NullOr(Schema.String)).annotations({
    description: "Zed's own: what the experiment sets out to show (PostHog keeps it in the description)."
  }),
  holdout_id: Schema.optional(Schema.NullOr(Schema.Int)).annotations({
    description: "A holdout (`/experiment_holdouts/`) whose persons get `holdout-<id>`; set while a draft."
  }),
  parameters: Schema.optional(Schema.NullOr(Parameters)),
  filters: Schema.optional(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  metrics: Schema.optional(Schema.NullOr(Schema.Array(Metric))),
  metrics_secondary: Schema.optional(Schema.NullOr(Schema.Array(Metric))),
  exposure_criteria: Schema.optional(Schema.NullOr(ExposureCriteria)),
  stats_config: Schema.optional(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  start_date: Schema.optional(Schema.NullOr(Instant)).annotations({ description: "Launches the experiment." }),
  end_date: Schema.optional(Schema.NullOr(Instant)).annotations({ description: "Stops it." }),
  archived: Schema.optional(Schema.Boolean),
  type: Schema.optional(Schema.Literal("product", "web")),
  conclusion: Schema.optional(Schema.NullOr(Schema.String)),
  conclusion_comment: Schema.optional(Schema.NullOr(Schema.String))
}).annotations({ identifier: "ExperimentWrite" })
type ExperimentWrite = typeof ExperimentWrite.Type

const ExperimentCreate = Schema.Struct({
  ...ExperimentWrite.fields,
  name: ExperimentWrite.fields.name.from,
  feature_flag_key: FlagKey.annotations({
    description: "The flag's key: an existing multivariate flag with a control variant, or a new flag Zed makes."
  })
}).annotations({ identifier: "ExperimentCreate" })

const ExperimentUpdate = Schema.Struct({
  ...ExperimentWrite.fields,
  deleted: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "ExperimentUpdate" })

const Experiment = Schema.Struct({
  ...Struct.pick(Entity.fields, "id", "name", "description", "hypothesis"),
  start_date: Schema.NullOr(Schema.Date),
  end_date: Schema.NullOr(Schema.Date),
  feature_flag_key: Schema.String,
  feature_flag: Schema.NullOr(MinimalFlag),
  holdout: Schema.NullOr(Holdout),
  holdout_id: Schema.NullOr(Schema.Int),
  exposure_cohort: Schema.Null,
  ...Struct.pick(Entity.fields, "parameters", "filters", "archived", "deleted"),
  secondary_metrics: Schema.Array(Schema.Unknown),
  saved_metrics: Schema.Array(Schema.Unknown),
  created_by: Schema.NullOr(UserBasic),
  created_at: Schema.Date,
  updated_at: Schema.Date,
  ...Struct.pick(
    Entity.fields,
    "type",
    "exposure_criteria",
    "metrics",
    "metrics_secondary",
    "stats_config",
    "conclusion",
    "conclusion_comment"
  ),
  /** Zed's own: where the experiment is in its life. */
  status: Schema.Literal("draft", "running", "stopped")
}).annotations({ identifier: "Experiment" })

const present = (projectId: number, experiments: ReadonlyArray<StoredExperiment>) =>
  Effect.gen(function* () {
    const flags = yield* flagsById(projectId)
    const user = yield* userLookup(experiments.map((e) => e.created_by))
    const store = yield* HoldoutStore
    const used = [...new Set(experiments.flatMap((e) => (e.holdout_id === null ? [] : [e.holdout_id])))]
    const found = yield* Effect.forEach(used, (id) => store.get(projectId, id))
    const holdouts = new Map(
      (yield* presentHoldouts(found.flatMap((h) => (Option.isSome(h) ? [h.value] : [])))).map((h) => [h.id, h])
    )
    return experiments.map((e): typeof Experiment.Type => {
      const flag = flags.get(e.feature_flag_id)
      return {
        ...e,
        feature_flag_key: flag?.key ?? "",
        feature_flag: minimalFlag(projectId, flag),
        holdout: e.holdout_id === null ? null : (holdouts.get(e.holdout_id) ?? null),
        exposure_cohort: null,
        secondary_metrics: [],
        saved_metrics: [],
        created_by: user(e.created_by),
        status: statusOf(e)
      }
    })
  })

const presentOne = (projectId: number, e: StoredExperiment) => Effect.map(present(projectId, [e]), (r) => r[0]!)

const ExperimentRef = Schema.Struct({ id: PathId })

const findExperiment = (projectId: number, id: number) =>
  Effect.flatMap(
    Effect.flatMap(ExperimentStore, (s) => s.get(projectId, id)),
    Option.match({ onNone: () => Effect.fail(new NotFound({ detail: "Not found." })), onSome: Effect.succeed })
  )

/** Where in a metric an event is named, as the attr of a 400. */
const metricEventPaths = (metric: Metric): ReadonlyArray<readonly [string, string | null]> =>
  metric.metric_type === "mean"
    ? [["source__event", metric.source.event]]
    : metric.metric_type === "funnel"
      ? metric.series.map((s, i) => [`series__${i}__event`, s.event] as const)
      : [
          ["numerator__event", metric.numerator.event],
          ["denominator__event", metric.denominator.event]
        ]

/** Every event the metrics name must have been seen in the project. */
const checkMetricEvents = (project: Project, body: ExperimentWrite) =>
  Effect.gen(function* () {
    const lists = [
      ["metrics", body.metrics ?? []],
      ["metrics_secondary", body.metrics_secondary ?? []]
    ] as const
    if (lists.every(([, m]) => m.length === 0)) return
    const known = new Set((yield* (yield* PropertyDefinitions).listEvents(project.id)).map((e) => e.name))
    for (const [field, metrics] of lists) {
      for (const [i, metric] of metrics.entries()) {
        for (const [path, event] of metricEventPaths(metric)) {
          if (event !== null && !known.has(event))
            return yield* invalid(
              `The event "${event}" has never been seen in this project.`,
              `${field}__${i}__${path}`
            )
        }
      }
    }
  })

/** Dates and life-cycle checks of what the experiment will be after the write. */
const checkLifecycle = (
  before: StoredExperiment | undefined,
  after: { start_date: Date | null; end_date: Date | null; archived: boolean },
  flag: StoredFlag
) =>
  Effect.gen(function* () {
    if (after.end_date !== null && after.start_date === null)
      return yield* invalid("An experiment that has not started cannot end.", "end_date")
    if (after.start_date !== null && after.end_date !== null && after.end_date < after.start_date)
      return yield* invalid("The end date must not be before the start date.", "end_date")
    const launching = after.start_date !== null && (before === undefined || before.start_date === null)
    if (launching && !flag.active)
      return yield* invalid(
        `The feature flag "${flag.key}" is inactive: activate it before launching the experiment.`,
        "start_date"
      )
    if (after.archived && after.start_date !== null && after.end_date === null)
      return yield* invalid("Stop the experiment (set its end date) before archiving it.", "archived")
  })

/** A flag an experiment can run on: multivariate, with a control and at least one test variant. */
const experimentVariants = (flag: StoredFlag) =>
  Effect.gen(function* () {
    const variants = flag.filters.multivariate?.variants ?? []
    const decoded = Schema.decodeUnknownOption(Variants)(variants)
    if (Option.isNone(decoded))
      return yield* invalid(
        `The feature flag "${flag.key}" is not a multivariate flag with a "control" variant and at least one test variant (splits summing to 100).`,
        "feature_flag_key"
      )
    return decoded.value
  })

const list = environmentRoute({
  method: "GET",
  path: "/experiments",
  tag: TAG,
  summary: "List experiments",
  description: "Newest first; `archived` and `search` (part of the name) filter.",
  scope: "experiment:read",
  query: ArchivedSearchQuery,
  response: Paginated(Experiment, "PaginatedExperimentList"),
  handler: ({ project, query, request }) =>
    Effect.gen(function* () {
      const page = toPage(query)
      const { count, results } = yield* (yield* ExperimentStore).list(project.id, {
        archived: archivedFilter(query.archived),
        search: query.search,
        ...page
      })
      return paginated(request.url, page, count, yield* present(project.id, results))
    })
})

const create = environmentRoute({
  method: "POST",
  path: "/experiments",
  tag: TAG,
  summary: "Create an experiment",
  description:
    "`name` and `feature_flag_key` are required. An existing flag must be multivariate with a `control` variant; otherwise Zed makes the flag from `parameters.feature_flag_variants` (default control/test, 50/50).",
  scope: "experiment:write",
  body: ExperimentCreate,
  response: Experiment,
  status: 201,
  handler: ({ body, principal, project }) =>
    Effect.gen(function* () {
      yield* checkMetricEvents(project, body)
      const holdout = body.holdout_id == null ? null : yield* holdoutFor(project.id, body.holdout_id, "holdout_id")
      const flags = yield* FlagStore
      const created = yield* (yield* Transactor).transaction(
        Effect.gen(function* () {
          const existing = Option.getOrUndefined(yield* flags.findByKey(project.id, body.feature_flag_key))
          const given = body.parameters?.feature_flag_variants
          let flag: StoredFlag
          if (existing !== undefined) {
            flag = existing
            if (holdout !== null) yield* setFlagHoldout(project, flag.id, holdout, principal.user.id)
          } else {
            const variants = given ?? DEFAULT_VARIANTS
            flag = yield* createFlag(
              project,
              newFlag({
                key: body.feature_flag_key,
                name: `Feature Flag for Experiment ${body.name}`,
                filters: {
                  groups: [{ properties: [], rollout_percentage: 100, variant: null }],
                  multivariate: { variants: variants.map((v) => ({ ...v, name: v.name ?? null })) },
                  ...(holdout === null ? {} : flagHoldoutFilters(holdout))
                },
                created_by: principal.user.id
              })
            )
          }
          const variants = yield* experimentVariants(flag)
          const after = {
            start_date: body.start_date ?? null,
            end_date: body.end_date ?? null,
            archived: body.archived ?? false
          }
          yield* checkLifecycle(undefined, after, flag)
          return yield* (yield* ExperimentStore).create(
            project.id,
            newExperiment({
              ...body,
              ...after,
              description: body.description ?? undefined,
              feature_flag_id: flag.id,
              holdout_id: holdout?.id ?? null,
              parameters: { ...body.parameters, feature_flag_variants: variants },
              filters: body.filters ?? undefined,
              metrics: body.metrics ?? undefined,
              metrics_secondary: body.metrics_secondary ?? undefined,
              created_by: principal.user.id
            })
          )
        })
      )
      yield* (yield* FlagDefinitions).invalidate(project.id)
      return yield* presentOne(project.id, created)
    })
})

const retrieve = environmentRoute({
  method: "GET",
  path: "/experiments/:id",
  tag: TAG,
  summary: "Retrieve an experiment",
  scope: "experiment:read",
  params: ExperimentRef,
  response: Experiment,
  handler: ({ params, project }) =>
    Effect.flatMap(findExperiment(project.id, params.id), (e) => presentOne(project.id, e))
})

const update = environmentRoute({
  method: "PATCH",
  path: "/experiments/:id",
  tag: TAG,
  summary: 'Update an experiment: launch (start_date), stop (end_date), archive, or soft-delete ({"deleted": true})',
  scope: "experiment:write",
  params: ExperimentRef,
  body: ExperimentUpdate,
  response: Experiment,
  handler: ({ body, params, principal, project }) =>
    Effect.gen(function* () {
      const before = yield* findExperiment(project.id, params.id)
      yield* checkMetricEvents(project, body)
      const flag = yield* Effect.flatMap(
        Effect.flatMap(FlagStore, (s) => s.get(project.id, before.feature_flag_id)),
        Option.match({
          onNone: () => Effect.fail(invalid("The experiment's feature flag was deleted.", "feature_flag_key")),
          onSome: Effect.succeed
        })
      )
      const after = {
        start_date: body.start_date === undefined ? before.start_date : body.start_date,
        end_date: body.end_date === undefined ? before.end_date : body.end_date,
        archived: body.archived ?? before.archived
      }
      if (body.deleted !== true) yield* checkLifecycle(before, after, flag)
      const variants = body.parameters?.feature_flag_variants
      if (variants !== undefined && statusOf(before) !== "draft")
        return yield* invalid(
          "The variants of an experiment that has started cannot change.",
          "parameters__feature_flag_variants"
        )
      const holdoutChange = body.holdout_id !== undefined && body.holdout_id !== before.holdout_id
      if (holdoutChange && statusOf(before) !== "draft")
        return yield* invalid("The holdout of an experiment that has started cannot change.", "holdout_id")
      const holdout =
        holdoutChange && body.holdout_id != null ? yield* holdoutFor(project.id, body.holdout_id, "holdout_id") : null
      const updated = yield* (yield* Transactor).transaction(
        Effect.gen(function* () {
          if (variants !== undefined) {
            // A draft's variants are its flag's: they change together.
            yield* updateFlag(project, flag.id, {
              last_modified_by: principal.user.id,
              filters: {
                ...flag.filters,
                multivariate: { variants: variants.map((v) => ({ ...v, name: v.name ?? null })) }
              }
            })
          }
          if (holdoutChange) yield* setFlagHoldout(project, flag.id, holdout, principal.user.id)
          const saved = yield* (yield* ExperimentStore).update(project.id, params.id, {
            ...body,
            ...after,
            description: body.description ?? undefined,
            parameters:
              body.parameters == null
                ? undefined
                : { ...body.parameters, feature_flag_variants: variants ?? variantsOf(before.parameters) },
            filters: body.filters ?? undefined,
            metrics: body.metrics ?? undefined,
            metrics_secondary: body.metrics_secondary ?? undefined
          })
          return yield* Option.match(saved, {
            onNone: () => Effect.fail(new NotFound({ detail: "Not found." })),
            onSome: Effect.succeed
          })
        })
      )
      // Archiving or deleting it changes its flag's `has_experiment`.
      yield* (yield* FlagDefinitions).invalidate(project.id)
      return yield* presentOne(project.id, updated)
    })
})

const ShipVariant = Schema.Struct({
  variant_key: Schema.String,
  conclusion: Schema.optional(Schema.NullOr(Schema.String)),
  conclusion_comment: Schema.optional(Schema.NullOr(Schema.String))
}).annotations({ identifier: "ShipVariant" })

const shipVariant = environmentRoute({
  method: "POST",
  path: "/experiments/:id/ship_variant",
  tag: TAG,
  summary: "Stop the experiment and roll one variant out to everyone",
  description:
    "Ends the experiment now (if it runs) and sets its flag to serve `variant_key` to every person matching one condition with no properties at 100 %.",
  scope: "experiment:write",
  params: ExperimentRef,
  body: ShipVariant,
  response: Experiment,
  handler: ({ body, params, principal, project }) =>
    Effect.gen(function* () {
      const before = yield* findExperiment(project.id, params.id)
      if (before.start_date === null) return yield* invalid("The experiment has not started.", "variant_key")
      const variants = variantsOf(before.parameters)
      if (!variants.some((v) => v.key === body.variant_key))
        return yield* invalid(
          `"${body.variant_key}" is not a variant of this experiment: ${variants.map((v) => v.key).join(", ")}.`,
          "variant_key"
        )
      const updated = yield* (yield* Transactor).transaction(
        Effect.gen(function* () {
          const saved = yield* (yield* ExperimentStore).update(project.id, params.id, {
            end_date: before.end_date ?? new Date(),
            conclusion: body.conclusion ?? "won",
            conclusion_comment: body.conclusion_comment ?? null
          })
          const flag = yield* (yield* FlagStore).get(project.id, before.feature_flag_id)
          if (Option.isSome(flag)) {
            yield* updateFlag(project, flag.value.id, {
              last_modified_by: principal.user.id,
              active: true,
              filters: {
                ...flag.value.filters,
                groups: [{ properties: [], rollout_percentage: 100, variant: null }],
                multivariate: {
                  variants: (flag.value.filters.multivariate?.variants ?? []).map((v) => ({
                    ...v,
                    rollout_percentage: v.key === body.variant_key ? 100 : 0
                  }))
                }
              }
            })
          }
          return Option.getOrThrow(saved)
        })
      )
      return yield* presentOne(project.id, updated)
    })
})

const ResultsQuery = Schema.Struct({
  refresh: Schema.optional(RefreshMode),
  client_query_id: Schema.optional(Schema.String)
})

const results = environmentRoute({
  method: "GET",
  path: "/experiments/:id/results",
  tag: TAG,
  summary: "An experiment's results: each metric per variant, with Bayesian and frequentist statistics",
  description:
    "`primary` and `secondary` hold one result per metric, as `ExperimentQuery` answers it through `/query/` (cached; `refresh` as there). 202 while any runs in the background.",
  scope: "experiment:read",
  params: ExperimentRef,
  query: ResultsQuery,
  handler: ({ params, project, query }) =>
    Effect.gen(function* () {
      const experiment = yield* findExperiment(project.id, params.id)
      const answer = (metric: Metric) =>
        answerExperimentMetric(project, experiment, metric, query).pipe(Effect.catchAll(queryFailure))
      const primary: ReadonlyArray<QueryAnswer> = yield* Effect.forEach(metricsOf(experiment.metrics), answer)
      const secondary: ReadonlyArray<QueryAnswer> = yield* Effect.forEach(
        metricsOf(experiment.metrics_secondary),
        answer
      )
      const running = [...primary, ...secondary].some((a) => a.state !== "complete")
      return Reply.json(running ? 202 : 200, {
        experiment_id: experiment.id,
        status: statusOf(experiment),
        variants: yield* experimentArms(project.id, experiment),
        primary: primary.map((a) => a.body),
        secondary: secondary.map((a) => a.body)
      })
    })
})

const SampleSizeQuery = Schema.Struct({
  baseline_rate: Schema.optional(Schema.NumberFromString.pipe(Schema.greaterThan(0), Schema.lessThan(1))),
  baseline_mean: Schema.optional(Schema.NumberFromString),
  standard_deviation: Schema.optional(Schema.NumberFromString.pipe(Schema.positive())),
  minimum_detectable_effect: Schema.NumberFromString.pipe(Schema.positive()),
  variants: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.greaterThanOrEqualTo(2))),
  alpha: Schema.optional(Schema.NumberFromString.pipe(Schema.greaterThan(0), Schema.lessThan(1))),
  power: Schema.optional(Schema.NumberFromString.pipe(Schema.greaterThan(0), Schema.lessThan(1))),
  daily_exposures: Schema.optional(Schema.NumberFromString.pipe(Schema.positive()))
})

const sampleSizeRoute = environmentRoute({
  method: "GET",
  path: "/experiments/sample_size",
  tag: TAG,
  summary: "Sample size and running time to detect a minimum effect",
  description:
    "Persons per variant for a two-sided test of each test variant against control at `alpha` (default 0.05, Bonferroni-corrected over the test variants) with `power` (default 0.8); `days` from `daily_exposures`.",
  scope: "experiment:read",
  query: SampleSizeQuery,
  handler: ({ query }) =>
    query.baseline_rate === undefined && (query.baseline_mean === undefined || query.standard_deviation === undefined)
      ? Effect.fail(
          new ValidationError({
            code: "required",
            detail: "Give baseline_rate (conversion), or baseline_mean and standard_deviation (means).",
            attr: "baseline_rate"
          })
        )
      : Effect.succeed(Reply.json(200, sampleSize({ ...query, variants: query.variants ?? 2 })))
})

export const experimentRoutes = [
  list,
  create,
  sampleSizeRoute,
  retrieve,
  update,
  shipVariant,
  results,
  softDeleteOnly("/experiments/:id", TAG, "experiment:write")
]
