import { Effect, Schema } from "effect"
import type { Project } from "../domain/models.js"
import { Metric } from "../experiments/definition.js"
import { answerExperimentMetric, experimentOf } from "../experiments/results.js"
import { PASSED_FIELDS } from "./nodeFields.js"
import type { QueryRequest } from "./request.js"

// PostHog's ExperimentQuery: one metric of an experiment (one of its own or any other), per variant
// over the experiment's exposed persons, with its statistics.

export const ExperimentQueryNode = Schema.Struct({
  kind: Schema.Literal("ExperimentQuery"),
  experiment_id: Schema.Int,
  metric: Metric,
  name: Schema.optional(Schema.NullOr(Schema.String)),
  ...PASSED_FIELDS
}).annotations({ identifier: "ExperimentQuery", parseOptions: { onExcessProperty: "error" } })
export type ExperimentQueryNode = typeof ExperimentQueryNode.Type

export const answerExperimentQuery = (
  project: Project,
  request: QueryRequest & { readonly query: ExperimentQueryNode }
) =>
  Effect.flatMap(experimentOf(project.id, request.query.experiment_id), (experiment) =>
    answerExperimentMetric(project, experiment, request.query.metric, request)
  )
