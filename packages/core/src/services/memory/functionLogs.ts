import { Effect } from "effect"
import { FunctionLogStore, type LogEntry } from "../FunctionLogStore.js"
import type { Journal } from "./journal.js"

export const makeMemoryFunctionLogs = (journal: Journal) => {
  // By the order of writing, as SQL's sequence column.
  const entries = new Map<number, LogEntry>()
  let seq = 1

  return FunctionLogStore.of({
    append: (written) =>
      Effect.sync(() => {
        for (const entry of written) journal.set(entries, seq++, entry)
      }),
    list: (projectId, owner, query) =>
      Effect.sync(() => {
        const search = query.search?.toLowerCase()
        const matching = [...entries]
          .filter(
            ([, e]) =>
              e.project_id === projectId &&
              e.owner.kind === owner.kind &&
              e.owner.id === owner.id &&
              (query.types.length === 0 || query.types.includes(e.type)) &&
              (search === undefined || e.message.toLowerCase().includes(search)) &&
              (query.after === undefined || e.timestamp > query.after) &&
              (query.before === undefined || e.timestamp < query.before)
          )
          .sort(([s, a], [t, b]) => b.timestamp.getTime() - a.timestamp.getTime() || t - s)
          .map(([, e]) => e)
        return { count: matching.length, results: matching.slice(query.offset, query.offset + query.limit) }
      })
  })
}
