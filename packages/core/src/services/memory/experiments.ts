import { Effect, Option } from "effect"
import { ExperimentStore, type StoredExperiment } from "../ExperimentStore.js"
import type { Journal } from "./journal.js"

type Owned = StoredExperiment & { readonly project_id: number }

const strip = ({ project_id: _, ...rest }: Owned): StoredExperiment => rest

export const makeMemoryExperiments = (journal: Journal) => {
  const experiments = new Map<number, Owned>()
  let next = 1
  const live = (projectId: number) =>
    [...experiments.values()].filter((e) => e.project_id === projectId && !e.deleted).sort((a, b) => b.id - a.id)
  const find = (projectId: number, id: number) => live(projectId).find((e) => e.id === id)
  return ExperimentStore.of({
    list: (projectId, q) =>
      Effect.sync(() => {
        const search = q.search?.toLowerCase()
        const selected = live(projectId).filter(
          (e) =>
            (search === undefined || e.name.toLowerCase().includes(search)) &&
            (q.archived === undefined || e.archived === q.archived)
        )
        return { count: selected.length, results: selected.slice(q.offset, q.offset + q.limit).map(strip) }
      }),
    get: (projectId, id) => Effect.sync(() => Option.fromNullable(find(projectId, id)).pipe(Option.map(strip))),
    ofFlag: (projectId, flagId) =>
      Effect.sync(() =>
        live(projectId)
          .filter((e) => e.feature_flag_id === flagId)
          .map(strip)
      ),
    create: (projectId, input) =>
      Effect.sync(() => {
        const now = new Date()
        const experiment: Owned = {
          ...input,
          id: next++,
          project_id: projectId,
          deleted: false,
          created_at: now,
          updated_at: now
        }
        journal.set(experiments, experiment.id, experiment)
        return strip(experiment)
      }),
    update: (projectId, id, patch) =>
      Effect.sync(() => {
        const experiment = find(projectId, id)
        if (experiment === undefined) return Option.none()
        const changed: Owned = {
          ...experiment,
          ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)),
          updated_at: new Date()
        }
        journal.set(experiments, id, changed)
        return Option.some(strip(changed))
      })
  })
}
