import { Context, Effect, Layer } from "effect"
import {
  type FunctionMetric,
  FunctionMetricStore,
  type MetricCount,
  metricKey
} from "../services/FunctionMetricStore.js"
import { periodicWrite } from "./periodicWrite.js"

// Each invocation of a zed function is counted where it runs (on the ingestion path for
// transformations): a counter per function, hour and outcome is bumped in memory, and the counters
// are added to the store in one write every FLUSH_EVERY. Memory holds at most one counter per
// function, outcome and hour since the last write, however many events pass.

export const SUCCEEDED: FunctionMetric = { name: "succeeded", kind: "success" }
export const FAILED: FunctionMetric = { name: "failed", kind: "failure" }

const HOUR_MS = 3_600_000
const FLUSH_EVERY = "1 second"

/** Counters not yet written, drained in one go. */
export const makeMetricCounts = () => {
  let counts = new Map<string, MetricCount>()
  return {
    add: (projectId: number, functionId: string, succeeded: boolean, at = Date.now()) => {
      const metric = succeeded ? SUCCEEDED : FAILED
      const hour = new Date(Math.floor(at / HOUR_MS) * HOUR_MS)
      const key = metricKey({ function_id: functionId, hour, name: metric.name })
      const known = counts.get(key)
      if (known === undefined)
        counts.set(key, { project_id: projectId, function_id: functionId, hour, ...metric, count: 1 })
      else counts.set(key, { ...known, count: known.count + 1 })
    },
    drain: (): ReadonlyArray<MetricCount> => {
      const drained = [...counts.values()]
      counts = new Map()
      return drained
    }
  }
}

export class FunctionMetrics extends Context.Tag("@zed/core/FunctionMetrics")<
  FunctionMetrics,
  {
    /** Counts one invocation and how it went. */
    readonly record: (projectId: number, functionId: string, succeeded: boolean) => void
    /** Writes what is counted (tests and shutdown wait on it). */
    readonly flush: Effect.Effect<void>
  }
>() {}

export const FunctionMetricsLive = Layer.scoped(
  FunctionMetrics,
  Effect.gen(function* () {
    const store = yield* FunctionMetricStore
    const counts = makeMetricCounts()
    const serialized = yield* periodicWrite(
      counts.drain,
      store.add,
      "function metrics: could not write counts",
      FLUSH_EVERY
    )
    return FunctionMetrics.of({
      record: (projectId, functionId, succeeded) => counts.add(projectId, functionId, succeeded),
      flush: serialized
    })
  })
)
