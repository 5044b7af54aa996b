import { Context, Effect, Layer } from "effect"
import { type FunctionMetric, FunctionMetricStore, type MetricCount } from "../services/FunctionMetricStore.js"
import { periodicWrite } from "./periodicWrite.js"

// Each invocation of a zed function is counted where it runs (on the ingestion path for
// transformations): a counter per function, hour and outcome is bumped in memory, and the counters
// are added to the store in one write every FLUSH_EVERY. Memory holds at most one counter per
// function, outcome and hour since the last write, however many events pass.

export const SUCCEEDED: FunctionMetric = { name: "succeeded", kind: "success" }
export const FAILED: FunctionMetric = { name: "failed", kind: "failure" }

const HOUR_MS = 3_600_000
const FLUSH_EVERY = "1 second"

/**
 * Counters not yet written, drained in one go. Kept by hour and function, each a pair of counts
 * bumped in place: counting an invocation allocates nothing once its function has one that hour.
 */
export const makeMetricCounts = () => {
  let hours = new Map<number, Map<string, { readonly projectId: number; succeeded: number; failed: number }>>()
  return {
    add: (projectId: number, functionId: string, succeeded: boolean, at = Date.now()) => {
      const hour = at - (at % HOUR_MS)
      let functions = hours.get(hour)
      if (functions === undefined) hours.set(hour, (functions = new Map()))
      const counts = functions.get(functionId)
      if (counts === undefined)
        functions.set(functionId, { projectId, succeeded: succeeded ? 1 : 0, failed: succeeded ? 0 : 1 })
      else if (succeeded) counts.succeeded++
      else counts.failed++
    },
    drain: (): ReadonlyArray<MetricCount> => {
      const drained: Array<MetricCount> = []
      for (const [hour, functions] of hours)
        for (const [function_id, counts] of functions)
          for (const [metric, count] of [
            [SUCCEEDED, counts.succeeded],
            [FAILED, counts.failed]
          ] as const)
            if (count > 0)
              drained.push({ project_id: counts.projectId, function_id, hour: new Date(hour), ...metric, count })
      hours = new Map()
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
