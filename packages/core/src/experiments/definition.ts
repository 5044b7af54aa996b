import { Schema } from "effect"
import { WINDOW_UNITS } from "../insights/planners/funnels.js"
import { Properties } from "../insights/planners/properties.js"
import { check } from "../schema/fields.js"
import type { MetricModel } from "./statistics.js"

// What an experiment is defined by, as PostHog's API takes it: the variants and their split
// (`parameters.feature_flag_variants`), the metrics (PostHog's `ExperimentMetric`: mean, funnel or
// ratio over events) and the exposure criteria. Checked where they come in; what only storage can
// tell (that an event exists) is checked by the API.

const Strict = { onExcessProperty: "ignore" } as const

export const Variant = Schema.Struct({
  key: Schema.String.pipe(
    check(
      (k: string) => /^[A-Za-z0-9_-]+$/.test(k),
      "invalid_input",
      "Variant keys may hold only letters, digits, '-' and '_'."
    )
  ),
  name: Schema.optional(Schema.NullOr(Schema.String)),
  rollout_percentage: Schema.Number.pipe(
    check((n: number) => n >= 0 && n <= 100, "invalid_input", "A variant's rollout percentage is between 0 and 100.")
  )
})
export type Variant = typeof Variant.Type

const variantProblem = (variants: ReadonlyArray<Variant>): string | undefined => {
  if (variants.length < 2) return "An experiment needs a control variant and at least one test variant."
  if (variants[0]?.key !== "control" && !variants.some((v) => v.key === "control"))
    return 'One variant must be the control, with the key "control".'
  if (new Set(variants.map((v) => v.key)).size !== variants.length) return "Variant keys must be unique."
  if (Math.abs(variants.reduce((s, v) => s + v.rollout_percentage, 0) - 100) > 1e-9)
    return "Invalid variant definitions: variant rollout percentages must sum to 100."
  return undefined
}

export const Variants = Schema.Array(Variant).pipe(
  check(
    (v: ReadonlyArray<Variant>) => variantProblem(v) === undefined,
    "invalid_input",
    (v) => variantProblem(v)!
  )
)

/** PostHog's experiment parameters; those Zed does not use are kept as given. */
export const Parameters = Schema.Struct(
  {
    feature_flag_variants: Schema.optional(Variants),
    /** Percent, relative to control: what the running-time calculator plans for. */
    minimum_detectable_effect: Schema.optional(Schema.NullOr(Schema.Number.pipe(Schema.positive()))),
    recommended_sample_size: Schema.optional(Schema.NullOr(Schema.Number)),
    recommended_running_time: Schema.optional(Schema.NullOr(Schema.Number)),
    rollout_percentage: Schema.optional(Schema.NullOr(Schema.Number))
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)
export type Parameters = typeof Parameters.Type

/** An event source of a metric: an event (null for any) with property filters and, for means, its math. */
const SourceFields = Schema.Struct({
  kind: Schema.optional(Schema.Literal("EventsNode")),
  event: Schema.NullOr(Schema.String),
  name: Schema.optional(Schema.NullOr(Schema.String)),
  custom_name: Schema.optional(Schema.NullOr(Schema.String)),
  properties: Schema.optional(Properties),
  /** `total`: events per person (a count); `sum`: the sum of `math_property` per person (a mean). */
  math: Schema.optional(Schema.NullOr(Schema.Literal("total", "sum"))),
  math_property: Schema.optional(Schema.NullOr(Schema.String))
})
export const MetricSource = SourceFields.pipe(
  check(
    (s: typeof SourceFields.Type) => s.math !== "sum" || (s.math_property ?? "") !== "",
    "invalid_input",
    'A metric with math "sum" names the numeric property it sums (math_property).'
  )
)
export type MetricSource = typeof MetricSource.Type

const common = {
  kind: Schema.optional(Schema.Literal("ExperimentMetric")),
  uuid: Schema.optional(Schema.NullOr(Schema.String)),
  name: Schema.optional(Schema.NullOr(Schema.String)),
  goal: Schema.optional(Schema.NullOr(Schema.Literal("increase", "decrease"))),
  /** Only events within this long after a person's exposure count (default: until the experiment ends). */
  conversion_window: Schema.optional(Schema.NullOr(Schema.Int.pipe(Schema.positive()))),
  conversion_window_unit: Schema.optional(Schema.NullOr(Schema.Literal(...WINDOW_UNITS)))
}

export const Metric = Schema.Union(
  Schema.Struct({ ...common, metric_type: Schema.Literal("mean"), source: MetricSource }),
  Schema.Struct({
    ...common,
    metric_type: Schema.Literal("funnel"),
    series: Schema.Array(MetricSource).pipe(Schema.minItems(1))
  }),
  Schema.Struct({ ...common, metric_type: Schema.Literal("ratio"), numerator: MetricSource, denominator: MetricSource })
).annotations({ identifier: "ExperimentMetric", parseOptions: Strict })
export type Metric = typeof Metric.Type

/** How a metric's per-person values are modelled by the statistics. */
export const modelOf = (metric: Metric): MetricModel =>
  metric.metric_type === "funnel" ? "proportion" : metric.metric_type === "mean" ? "mean" : "ratio"

/** Every event a metric names (null: any event). */
export const metricEvents = (metric: Metric): ReadonlyArray<string> =>
  (metric.metric_type === "mean"
    ? [metric.source]
    : metric.metric_type === "funnel"
      ? metric.series
      : [metric.numerator, metric.denominator]
  ).flatMap((s) => (s.event === null ? [] : [s.event]))

/** Who counts as exposed: by default `$feature_flag_called` for the flag with a variant. */
export const ExposureCriteria = Schema.Struct({
  /** Leave out the project's test accounts (PostHog's default). */
  filterTestAccounts: Schema.optional(Schema.NullOr(Schema.Boolean)),
  /** A custom exposure event instead; its variant is the `$feature/<flag key>` property posthog-js adds. */
  exposure_config: Schema.optional(
    Schema.NullOr(
      Schema.Struct({
        kind: Schema.optional(Schema.Literal("ExperimentEventExposureConfig")),
        event: Schema.String,
        properties: Schema.optional(Properties)
      })
    )
  ),
  /** Persons seen with several variants: left out (`exclude`, the default) or kept in the first one seen. */
  multiple_variant_handling: Schema.optional(Schema.NullOr(Schema.Literal("exclude", "first_seen")))
}).annotations({ parseOptions: Strict })
export type ExposureCriteria = typeof ExposureCriteria.Type

/** The variants stored with an experiment, when its parameters hold valid ones. */
export const variantsOf = (parameters: unknown): ReadonlyArray<Variant> => {
  const decoded = Schema.decodeUnknownOption(Parameters)(parameters)
  return decoded._tag === "Some" ? (decoded.value.feature_flag_variants ?? []) : []
}

/** Metrics as stored, each decoded (they were validated on the way in). */
export const metricsOf = (stored: ReadonlyArray<unknown>): ReadonlyArray<Metric> =>
  stored.flatMap((m) => {
    const decoded = Schema.decodeUnknownOption(Metric)(m)
    return decoded._tag === "Some" ? [decoded.value] : []
  })

export const exposureCriteriaOf = (stored: unknown): ExposureCriteria =>
  stored == null
    ? {}
    : Schema.decodeUnknownOption(ExposureCriteria)(stored).pipe((o) => (o._tag === "Some" ? o.value : {}))
