import { Context, type Effect } from "effect"
import type { StorageError } from "./StorageError.js"

// How many times each zed function ran, and how it went, counted per hour (PostHog's app metrics).

/** A metric's name (`succeeded`, `failed`) and its kind (`success`, `failure`), as PostHog names them. */
export interface FunctionMetric {
  readonly name: string
  readonly kind: string
}

export interface MetricCount extends FunctionMetric {
  readonly project_id: number
  readonly function_id: string
  /** The start of the hour (UTC) the invocations fell in. */
  readonly hour: Date
  readonly count: number
}

export interface MetricRange {
  /** Inclusive bounds on the hour. */
  readonly after?: Date | undefined
  readonly before?: Date | undefined
}

export class FunctionMetricStore extends Context.Tag("@zed/core/FunctionMetricStore")<
  FunctionMetricStore,
  {
    /** Adds the counts to those stored (one count per function, hour and name). */
    readonly add: (counts: ReadonlyArray<MetricCount>) => Effect.Effect<void, StorageError>
    /** A function's counts in the range, oldest hour first. */
    readonly counts: (
      projectId: number,
      functionId: string,
      range: MetricRange
    ) => Effect.Effect<ReadonlyArray<MetricCount>, StorageError>
  }
>() {}

/** One count per function, hour and metric name. */
export const metricKey = (count: Pick<MetricCount, "function_id" | "hour" | "name">) =>
  `${count.function_id} ${count.hour.getTime()} ${count.name}`
