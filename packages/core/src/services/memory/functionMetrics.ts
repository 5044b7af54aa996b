import { Effect } from "effect"
import { FunctionMetricStore, type MetricCount, metricKey } from "../FunctionMetricStore.js"
import type { Journal } from "./journal.js"

export const makeMemoryFunctionMetrics = (journal: Journal) => {
  const counts = new Map<string, MetricCount>()
  return FunctionMetricStore.of({
    add: (added) =>
      Effect.sync(() => {
        for (const count of added) {
          const key = metricKey(count)
          journal.set(counts, key, { ...count, count: (counts.get(key)?.count ?? 0) + count.count })
        }
      }),
    counts: (projectId, functionId, range) =>
      Effect.sync(() =>
        [...counts.values()]
          .filter(
            (c) =>
              c.project_id === projectId &&
              c.function_id === functionId &&
              (range.after === undefined || c.hour >= range.after) &&
              (range.before === undefined || c.hour <= range.before)
          )
          .sort((a, b) => a.hour.getTime() - b.hour.getTime())
      )
  })
}
