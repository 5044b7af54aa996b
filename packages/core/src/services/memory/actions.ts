import { Effect, Option } from "effect"
import { ActionStore, type StoredAction } from "../ActionStore.js"
import type { Journal } from "./journal.js"
import { makeOwnedTable } from "./ownedTable.js"

export const makeMemoryActions = (journal: Journal) => {
  const table = makeOwnedTable<StoredAction, { project_id: number }>(journal, ["project_id"])
  const live = (projectId: number) => table.live((a) => a.project_id === projectId)
  const find = (projectId: number, id: number) => live(projectId).find((a) => a.id === id)
  return ActionStore.of({
    list: (projectId, q) =>
      Effect.sync(() => {
        const search = q.search?.toLowerCase()
        const selected = live(projectId).filter((a) => search === undefined || a.name.toLowerCase().includes(search))
        return { count: selected.length, results: selected.slice(q.offset, q.offset + q.limit).map(table.strip) }
      }),
    all: (projectId) => Effect.sync(() => live(projectId).map(table.strip)),
    get: (projectId, id) => Effect.sync(() => Option.fromNullable(find(projectId, id)).pipe(Option.map(table.strip))),
    named: (projectId, name) =>
      Effect.sync(() =>
        Option.fromNullable(live(projectId).find((a) => a.name === name)).pipe(Option.map(table.strip))
      ),
    create: (projectId, input) => Effect.sync(() => table.insert(input, { project_id: projectId })),
    update: (projectId, id, patch) =>
      Effect.sync(() => Option.map(Option.fromNullable(find(projectId, id)), (a) => table.patch(a, patch)))
  })
}
