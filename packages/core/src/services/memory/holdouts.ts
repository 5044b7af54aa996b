import { Effect, Option } from "effect"
import { HoldoutStore, type StoredHoldout } from "../HoldoutStore.js"
import type { Journal } from "./journal.js"
import { makeOwnedTable } from "./ownedTable.js"

export const makeMemoryHoldouts = (journal: Journal) => {
  const table = makeOwnedTable<StoredHoldout, { project_id: number }>(journal, ["project_id"])
  const live = (projectId: number) => table.live((h) => h.project_id === projectId)
  const find = (projectId: number, id: number) => live(projectId).find((h) => h.id === id)
  return HoldoutStore.of({
    list: (projectId, q) =>
      Effect.sync(() => {
        const all = live(projectId)
        return { count: all.length, results: all.slice(q.offset, q.offset + q.limit).map(table.strip) }
      }),
    get: (projectId, id) => Effect.sync(() => Option.fromNullable(find(projectId, id)).pipe(Option.map(table.strip))),
    create: (projectId, input) => Effect.sync(() => table.insert(input, { project_id: projectId })),
    update: (projectId, id, patch) =>
      Effect.sync(() => Option.map(Option.fromNullable(find(projectId, id)), (h) => table.patch(h, patch)))
  })
}
