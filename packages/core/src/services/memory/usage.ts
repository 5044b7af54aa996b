import { Effect } from "effect"
import { UsageStore } from "../UsageStore.js"
import type { Journal } from "./journal.js"

export const makeMemoryUsage = (journal: Journal) => {
  const totals = new Map<string, number>()
  return UsageStore.of({
    addFlagEvaluations: (organizationId, period, count) =>
      Effect.sync(() => {
        const key = `${organizationId}:${period}`
        const total = (totals.get(key) ?? 0) + count
        journal.set(totals, key, total)
        return total
      })
  })
}
