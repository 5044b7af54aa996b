import { Effect, Option } from "effect"
import { ExperimentStore, type StoredExperiment } from "../ExperimentStore.js"
import type { Journal } from "./journal.js"
import { makeOwnedTable } from "./ownedTable.js"

export const makeMemoryExperiments = (journal: Journal) => {
  const table = makeOwnedTable<StoredExperiment, { project_id: number }>(journal, ["project_id"])
  const live = (projectId: number) => table.live((e) => e.project_id === projectId)
  const find = (projectId: number, id: number) => live(projectId).find((e) => e.id === id)
  /** Whether a live, unarchived experiment runs on the flag: the flags store's `has_experiment`. */
  const onFlag = (projectId: number, flagId: number) =>
    live(projectId).some((e) => e.feature_flag_id === flagId && !e.archived)
  const store = ExperimentStore.of({
    list: (projectId, q) =>
      Effect.sync(() => {
        const search = q.search?.toLowerCase()
        const selected = live(projectId).filter(
          (e) =>
            (search === undefined || e.name.toLowerCase().includes(search)) &&
            (q.archived === undefined || e.archived === q.archived)
        )
        return { count: selected.length, results: selected.slice(q.offset, q.offset + q.limit).map(table.strip) }
      }),
    get: (projectId, id) => Effect.sync(() => Option.fromNullable(find(projectId, id)).pipe(Option.map(table.strip))),
    ofFlag: (projectId, flagId) =>
      Effect.sync(() =>
        live(projectId)
          .filter((e) => e.feature_flag_id === flagId)
          .map(table.strip)
      ),
    ofFlags: (projectId, flagIds) =>
      Effect.sync(() =>
        live(projectId)
          .filter((e) => flagIds.includes(e.feature_flag_id))
          .map(table.strip)
      ),
    ofHoldout: (projectId, holdoutId) =>
      Effect.sync(() =>
        live(projectId)
          .filter((e) => e.holdout_id === holdoutId)
          .map(table.strip)
      ),
    create: (projectId, input) => Effect.sync(() => table.insert(input, { project_id: projectId })),
    update: (projectId, id, patch) =>
      Effect.sync(() => Option.map(Option.fromNullable(find(projectId, id)), (e) => table.patch(e, patch)))
  })
  return { store, onFlag }
}
