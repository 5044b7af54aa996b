import { Effect, Schema } from "effect"
import type { Project } from "../../domain/models.js"
import {
  intervalStart,
  labelCount,
  MAX_LABELS,
  METRIC_INTERVALS,
  metricSeries,
  metricTotals
} from "../../functions/metricSeries.js"
import { FunctionMetrics } from "../../functions/metrics.js"
import { dateInZone } from "../../schema/fields.js"
import { ValidationError } from "../../schema/ValidationError.js"
import { FunctionMetricStore, type MetricRange } from "../../services/FunctionMetricStore.js"
import { environmentRoute } from "../route.js"
import { FunctionParams, findFunction } from "../zedFunctionLookup.js"

// A zed function's invocations over time, at PostHog's app metrics endpoints for hog functions:
// `succeeded` (kind `success`) and `failed` (kind `failure`), counted per hour as the function runs.

const TAG = "zed functions"

const MetricsQuery = Schema.Struct({
  after: Schema.optional(
    Schema.String.annotations({ description: "Start: a date, a date-time or relative (-7d); default -7d." })
  ),
  before: Schema.optional(Schema.String.annotations({ description: "End, as `after`; default now." })),
  interval: Schema.optional(Schema.Literal(...METRIC_INTERVALS).annotations({ description: "Default day." })),
  breakdown_by: Schema.optional(
    Schema.Literal("name", "kind").annotations({ description: "Series per metric name or kind; default kind." })
  ),
  name: Schema.optional(Schema.String.annotations({ description: "Only these names (comma-separated)." })),
  kind: Schema.optional(Schema.String.annotations({ description: "Only these kinds (comma-separated)." })),
  instance_id: Schema.optional(Schema.String.annotations({ description: "Ignored: one instance per function." }))
}).annotations({ identifier: "ZedFunctionMetricsQuery" })
type MetricsQuery = typeof MetricsQuery.Type

const MetricsResponse = Schema.Struct({
  labels: Schema.Array(Schema.String),
  series: Schema.Array(Schema.Struct({ name: Schema.String, values: Schema.Array(Schema.Number) }))
}).annotations({ identifier: "ZedFunctionMetrics" })

const TotalsResponse = Schema.Struct({
  totals: Schema.Record({ key: Schema.String, value: Schema.Number })
}).annotations({ identifier: "ZedFunctionMetricTotals" })

const listOf = (text: string | undefined) =>
  text === undefined
    ? undefined
    : new Set(
        text
          .split(",")
          .map((part) => part.trim())
          .filter((part) => part !== "")
      )

/** The function's counts in the range, filtered by name and kind, after writing what is counted. */
const countsOf = (project: Project, id: string, query: MetricsQuery, range: MetricRange) =>
  Effect.gen(function* () {
    yield* findFunction(project.id, id)
    yield* (yield* FunctionMetrics).flush
    const counts = yield* (yield* FunctionMetricStore).counts(project.id, id, range)
    const [names, kinds] = [listOf(query.name), listOf(query.kind)]
    return counts.filter((c) => (names?.has(c.name) ?? true) && (kinds?.has(c.kind) ?? true))
  })

const dateOf = (text: string | undefined, project: Project, now: Date, attr: string) =>
  text === undefined ? Effect.succeed(undefined) : dateInZone(text, project.timezone, now, attr)

const metrics = environmentRoute({
  method: "GET",
  path: "/zed_functions/:id/metrics",
  tag: TAG,
  summary: "A zed function's metrics over time",
  description:
    "Invocations per interval, in the project's time zone, from `after` to `before`: `labels` (hours as 2024-01-31T13:00, days and weeks, from Monday, as 2024-01-31) and one series per metric kind (`success`, `failure`) or name (`succeeded`, `failed`).",
  scope: "zed_function:read",
  params: FunctionParams,
  query: MetricsQuery,
  response: MetricsResponse,
  handler: ({ params, project, query }) =>
    Effect.gen(function* () {
      const now = new Date()
      const after = (yield* dateOf(query.after ?? "-7d", project, now, "after"))!
      const before = (yield* dateOf(query.before, project, now, "before")) ?? now
      const interval = query.interval ?? "day"
      if (labelCount(after, before, interval, project.timezone) > MAX_LABELS)
        return yield* new ValidationError({
          code: "invalid_input",
          detail: `At most ${MAX_LABELS} ${interval}s: choose a shorter range or a longer interval.`,
          attr: "interval"
        })
      // From the start of `after`'s interval, its first label.
      const from = new Date(intervalStart(after.getTime(), interval, project.timezone))
      const counts = yield* countsOf(project, params.id, query, { after: from, before })
      return metricSeries(counts, { after, before }, interval, query.breakdown_by ?? "kind", project.timezone)
    })
})

const totals = environmentRoute({
  method: "GET",
  path: "/zed_functions/:id/metrics/totals",
  tag: TAG,
  summary: "A zed function's metric totals",
  description: "Invocations by metric kind (or name, with `breakdown_by=name`), from `after` to `before` when given.",
  scope: "zed_function:read",
  params: FunctionParams,
  query: MetricsQuery,
  response: TotalsResponse,
  handler: ({ params, project, query }) =>
    Effect.gen(function* () {
      const now = new Date()
      const range = {
        after: yield* dateOf(query.after, project, now, "after"),
        before: yield* dateOf(query.before, project, now, "before")
      }
      const counts = yield* countsOf(project, params.id, query, range)
      return { totals: metricTotals(counts, query.breakdown_by ?? "kind") }
    })
})

export const functionMetricRoutes = [metrics, totals]
