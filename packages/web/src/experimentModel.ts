import type { Paginated } from "./api.js"
import type { Variant } from "./flagModel.js"

export type { Variant }

// Experiments as the API holds them, and what the pages build from a form: PostHog's
// `ExperimentMetric`s from a metric's kind and events.

export interface Holdout {
  readonly id: number
  readonly name: string
  readonly filters: ReadonlyArray<{ readonly rollout_percentage: number }>
}

export interface Experiment {
  readonly id: number
  readonly name: string
  readonly description: string
  readonly hypothesis: string | null
  readonly status: "draft" | "running" | "stopped"
  readonly start_date: string | null
  readonly end_date: string | null
  readonly archived: boolean
  readonly feature_flag_key: string
  readonly feature_flag: { readonly id: number } | null
  readonly holdout: Holdout | null
  readonly parameters: { readonly feature_flag_variants?: ReadonlyArray<Variant> }
  readonly metrics: ReadonlyArray<unknown>
  readonly metrics_secondary: ReadonlyArray<unknown>
  readonly conclusion: string | null
}

export type ExperimentList = Paginated<Experiment>

/** What a metric is, as the form picks it. */
export const METRIC_KINDS = {
  funnel: "Conversion (funnel)",
  count: "Count per person",
  sum: "Sum of a property per person",
  ratio: "Ratio of two events"
} as const
export type MetricKind = keyof typeof METRIC_KINDS

/** A metric as the form holds it: events by name (steps one a line for a funnel). */
export interface MetricDraft {
  readonly kind: MetricKind
  readonly events: string
  readonly property: string
  readonly denominator: string
}

export const blankMetric: MetricDraft = { kind: "funnel", events: "", property: "", denominator: "" }

const source = (event: string, extra: Record<string, unknown> = {}) => ({
  kind: "EventsNode",
  event: event.trim(),
  ...extra
})

/** PostHog's `ExperimentMetric` for a drafted metric. */
export const metricOf = (draft: MetricDraft) => {
  const events = draft.events
    .split("\n")
    .map((e) => e.trim())
    .filter((e) => e !== "")
  const first = events[0] ?? ""
  const base = { kind: "ExperimentMetric" }
  switch (draft.kind) {
    case "funnel":
      return { ...base, metric_type: "funnel", series: events.map((e) => source(e)) }
    case "count":
      return { ...base, metric_type: "mean", source: source(first, { math: "total" }) }
    case "sum":
      return { ...base, metric_type: "mean", source: source(first, { math: "sum", math_property: draft.property }) }
    case "ratio":
      return {
        ...base,
        metric_type: "ratio",
        numerator: source(first, { math: "total" }),
        denominator: source(draft.denominator, { math: "total" })
      }
  }
}

interface Source {
  readonly event: string | null
  readonly math?: string | null
  readonly math_property?: string | null
}

/** A stored metric in a line: what it measures. */
export const describeMetric = (metric: unknown): string => {
  const m = metric as {
    metric_type: string
    series?: ReadonlyArray<Source>
    source?: Source
    numerator?: Source
    denominator?: Source
  }
  const name = (s: Source | undefined) => s?.event ?? "any event"
  if (m.metric_type === "funnel") return `Conversion: ${(m.series ?? []).map(name).join(" → ")}`
  if (m.metric_type === "ratio") return `Ratio: ${name(m.numerator)} / ${name(m.denominator)}`
  return m.source?.math === "sum"
    ? `Sum of ${m.source.math_property} per person: ${name(m.source)}`
    : `${name(m.source)} per person`
}

export interface Interval {
  readonly lower: number
  readonly upper: number
}

export interface VariantResult {
  readonly key: string
  readonly exposures: number
  readonly number_of_samples: number
  readonly sum: number
  readonly estimate: number | null
  readonly bayesian: {
    readonly chance_to_win: number
    readonly credible_interval: Interval | null
    readonly significant?: boolean
  }
  readonly frequentist: {
    readonly p_value: number
    readonly adjusted_p_value: number
    readonly relative_interval: Interval | null
    readonly significant: boolean
  } | null
}

export interface MetricResult {
  readonly results: {
    readonly model: string
    readonly multiple_variant_persons: number
    readonly variants: ReadonlyArray<VariantResult>
    readonly sample_ratio_mismatch: { readonly p_value: number; readonly mismatch: boolean }
  }
}

export interface ExperimentResults {
  readonly variants: ReadonlyArray<Variant>
  readonly primary: ReadonlyArray<MetricResult>
  readonly secondary: ReadonlyArray<MetricResult>
}

export const percent = (x: number | null | undefined, digits = 1) =>
  x === null || x === undefined ? "—" : `${(x * 100).toFixed(digits)}%`
