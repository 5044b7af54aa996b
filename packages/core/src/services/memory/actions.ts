import { Effect, Option } from "effect"
import { ActionStore, type StoredAction } from "../ActionStore.js"
import type { Journal } from "./journal.js"

type Owned = StoredAction & { readonly project_id: number }

const strip = ({ project_id: _, ...rest }: Owned): StoredAction => rest

export const makeMemoryActions = (journal: Journal) => {
  const actions = new Map<number, Owned>()
  let next = 1
  const live = (projectId: number) =>
    [...actions.values()].filter((a) => a.project_id === projectId && !a.deleted).sort((a, b) => b.id - a.id)
  const find = (projectId: number, id: number) => live(projectId).find((a) => a.id === id)
  return ActionStore.of({
    list: (projectId, q) =>
      Effect.sync(() => {
        const search = q.search?.toLowerCase()
        const selected = live(projectId).filter((a) => search === undefined || a.name.toLowerCase().includes(search))
        return { count: selected.length, results: selected.slice(q.offset, q.offset + q.limit).map(strip) }
      }),
    all: (projectId) => Effect.sync(() => live(projectId).map(strip)),
    get: (projectId, id) => Effect.sync(() => Option.fromNullable(find(projectId, id)).pipe(Option.map(strip))),
    named: (projectId, name) =>
      Effect.sync(() => Option.fromNullable(live(projectId).find((a) => a.name === name)).pipe(Option.map(strip))),
    create: (projectId, input) =>
      Effect.sync(() => {
        const now = new Date()
        const action: Owned = {
          ...input,
          id: next++,
          project_id: projectId,
          deleted: false,
          created_at: now,
          updated_at: now
        }
        journal.set(actions, action.id, action)
        return strip(action)
      }),
    update: (projectId, id, patch) =>
      Effect.sync(() => {
        const action = find(projectId, id)
        if (action === undefined) return Option.none()
        const changed: Owned = {
          ...action,
          ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)),
          updated_at: new Date()
        }
        journal.set(actions, id, changed)
        return Option.some(strip(changed))
      })
  })
}
