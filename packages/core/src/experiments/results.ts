import { Effect, Option } from "effect"
import type { Project } from "../domain/models.js"
import { answerPlanned } from "../queries/planned.js"
import type { QueryRequest } from "../queries/request.js"
import { ExperimentStore, type StoredExperiment } from "../services/ExperimentStore.js"
import { FlagStore } from "../services/FlagStore.js"
import { HoldoutStore } from "../services/HoldoutStore.js"
import { exclusionOf, holdoutVariant } from "./holdoutEntity.js"
import { QueryFailed } from "../services/QueryExecutor.js"
import {
  type ExposureCriteria,
  exposureCriteriaOf,
  type Metric,
  modelOf,
  type Variant,
  variantsOf
} from "./definition.js"
import { type ExperimentScope, planMetric, type Rows } from "./plan.js"
import { bayesian, frequentist, sampleRatioMismatch, type VariantSums } from "./statistics.js"

// An experiment's result for one metric: the exposures and the metric's sums per variant (plan.ts),
// then the statistics (statistics.ts), through the query runner as any planned kind: cached, under
// the refresh modes.

/** Variants with control first: the statistics compare each other variant with it. */
export const controlFirst = (variants: ReadonlyArray<Variant>): ReadonlyArray<Variant> => [
  ...variants.filter((v) => v.key === "control"),
  ...variants.filter((v) => v.key !== "control")
]

const num = (v: unknown) => (v == null ? 0 : Number(v))

/**
 * The groups an experiment's results compare, control first: its variants, each with its share of
 * everyone, then its holdout's persons (`holdout-<id>`) as a group of their own.
 */
export const experimentArms = (projectId: number, experiment: StoredExperiment) =>
  Effect.gen(function* () {
    const variants = controlFirst(variantsOf(experiment.parameters))
    if (experiment.holdout_id === null) return variants
    const holdout = Option.getOrUndefined(yield* (yield* HoldoutStore).get(projectId, experiment.holdout_id))
    if (holdout === undefined) return variants
    const held = exclusionOf(holdout)
    return [
      ...variants.map((v) => ({ ...v, rollout_percentage: (v.rollout_percentage * (100 - held)) / 100 })),
      { key: holdoutVariant(holdout.id), name: holdout.name, rollout_percentage: held }
    ]
  })

/** The metric's result from the statements' rows. */
export const shapeResult = (
  metric: Metric,
  variants: ReadonlyArray<Variant>,
  exposure: Rows,
  sums: Rows,
  criteria: ExposureCriteria
) => {
  const exposed = new Map(exposure.map((r) => [String(r[0]), { persons: num(r[1]), multiple: num(r[2]) }]))
  const summed = new Map(sums.map((r) => [String(r[0]), r]))
  const model = modelOf(metric)
  const stats: ReadonlyArray<VariantSums> = variants.map((v) => {
    const r = summed.get(v.key) ?? []
    return {
      key: v.key,
      n: num(r[1]),
      sum: num(r[2]),
      sumSquares: num(r[3]),
      denominatorSum: num(r[4]),
      denominatorSumSquares: num(r[5]),
      crossSum: num(r[6])
    }
  })
  const lowerIsBetter = metric.goal === "decrease"
  const bayes = bayesian(model, stats, { lowerIsBetter })
  const tests = new Map(frequentist(model, stats).map((r) => [r.key, r]))
  const multiple = [...exposed.values()].reduce((s, e) => s + e.multiple, 0)
  return {
    metric,
    model,
    /** Persons seen with more than one variant: left out (`exclude`) or counted in their first (`first_seen`). */
    multiple_variant_persons: multiple,
    multiple_variant_handling: criteria.multiple_variant_handling ?? "exclude",
    variants: stats.map((s, i) => ({
      key: s.key,
      exposures: exposed.get(s.key)?.persons ?? 0,
      number_of_samples: s.n,
      sum: s.sum,
      sum_squares: s.sumSquares,
      ...(model === "ratio"
        ? { denominator_sum: s.denominatorSum, denominator_sum_squares: s.denominatorSumSquares, cross_sum: s.crossSum }
        : {}),
      estimate: model === "ratio" ? (s.denominatorSum ? s.sum / s.denominatorSum : null) : s.n ? s.sum / s.n : null,
      bayesian: bayes[i]!,
      frequentist: tests.get(s.key) ?? null
    })),
    sample_ratio_mismatch: sampleRatioMismatch(
      variants.map((v) => ({ key: v.key, n: exposed.get(v.key)?.persons ?? 0, percentage: v.rollout_percentage }))
    )
  }
}

/** The experiment of a project, or a query failure naming it. */
export const experimentOf = (projectId: number, id: number) =>
  Effect.flatMap(
    Effect.flatMap(ExperimentStore, (s) => s.get(projectId, id)),
    Option.match({
      onNone: () => Effect.fail(new QueryFailed({ message: `Experiment ${id} does not exist.` })),
      onSome: Effect.succeed
    })
  )

/** The metric's result for the experiment, through the runner (cache, refresh modes, background runs). */
export const answerExperimentMetric = (
  project: Project,
  experiment: StoredExperiment,
  metric: Metric,
  request: Pick<QueryRequest, "refresh" | "async" | "client_query_id">
) =>
  Effect.gen(function* () {
    const flag = yield* Effect.flatMap(
      Effect.flatMap(FlagStore, (s) => s.get(project.id, experiment.feature_flag_id)),
      Option.match({
        onNone: () => Effect.fail(new QueryFailed({ message: "The experiment's feature flag was deleted." })),
        onSome: Effect.succeed
      })
    )
    if (experiment.start_date === null) {
      return yield* Effect.fail(new QueryFailed({ message: "The experiment has not started: it has no results yet." }))
    }
    const variants = yield* experimentArms(project.id, experiment)
    const criteria = exposureCriteriaOf(experiment.exposure_criteria)
    const scope: ExperimentScope = {
      flagKey: flag.key,
      variants: variants.map((v) => v.key),
      start: experiment.start_date,
      end: experiment.end_date,
      exposure: criteria,
      testAccountFilters: project.test_account_filters
    }
    // What the result depends on names it in the cache: an edit of any of it computes it anew.
    const node = {
      kind: "ExperimentQuery",
      experiment_id: experiment.id,
      metric,
      flag_key: flag.key,
      variants,
      start: experiment.start_date.toISOString(),
      end: experiment.end_date?.toISOString() ?? null,
      criteria,
      test_accounts: criteria.filterTestAccounts === false ? [] : project.test_account_filters
    }
    return yield* answerPlanned(
      project,
      { query: node as never, ...request },
      {
        kind: "ExperimentQuery",
        node,
        plan: Effect.sync(() =>
          planMetric(scope, metric, new Date(), (exposure, sums) =>
            shapeResult(metric, variants, exposure, sums, criteria)
          )
        )
      }
    )
  })
