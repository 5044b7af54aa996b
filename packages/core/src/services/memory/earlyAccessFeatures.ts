import { Effect, Option } from "effect"
import { EarlyAccessFeatureStore, type StoredEarlyAccessFeature } from "../EarlyAccessFeatureStore.js"
import { StorageError } from "../StorageError.js"
import type { Journal } from "./journal.js"

type Owned = StoredEarlyAccessFeature & { readonly project_id: number; readonly order: number }

const strip = ({ order: _, project_id: __, ...rest }: Owned): StoredEarlyAccessFeature => rest

const oldestFirst = (a: Owned, b: Owned) => a.created_at.getTime() - b.created_at.getTime() || a.order - b.order

export const makeMemoryEarlyAccessFeatures = (journal: Journal) => {
  const features = new Map<string, Owned>()
  let order = 0
  const key = (projectId: number, id: string) => `${projectId}:${id}`
  const inProject = (projectId: number) => [...features.values()].filter((f) => f.project_id === projectId)

  return EarlyAccessFeatureStore.of({
    list: (projectId, page) =>
      Effect.sync(() => {
        const all = inProject(projectId).sort(oldestFirst).reverse()
        return { count: all.length, results: all.slice(page.offset, page.offset + page.limit).map(strip) }
      }),
    atStages: (projectId, stages) =>
      Effect.sync(() =>
        inProject(projectId)
          .filter((f) => stages.includes(f.stage))
          .sort(oldestFirst)
          .map(strip)
      ),
    get: (projectId, id) =>
      Effect.sync(() => Option.fromNullable(features.get(key(projectId, id))).pipe(Option.map(strip))),
    create: (projectId, input) =>
      // What the SQL store's unique index reports: a conflict.
      [...features.values()].some((f) => f.feature_flag_id === input.feature_flag_id)
        ? Effect.fail(
            new StorageError({ message: `flag ${input.feature_flag_id} already releases a feature`, conflict: true })
          )
        : Effect.sync(() => {
            const feature: Owned = { ...input, project_id: projectId, order: order++, created_at: new Date() }
            journal.set(features, key(projectId, input.id), feature)
            return strip(feature)
          }),
    update: (projectId, id, patch) =>
      Effect.sync(() => {
        const feature = features.get(key(projectId, id))
        if (feature === undefined) return Option.none()
        const next: Owned = {
          ...feature,
          ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined))
        }
        journal.set(features, key(projectId, id), next)
        return Option.some(strip(next))
      }),
    remove: (projectId, id) =>
      Effect.sync(() => {
        if (!features.has(key(projectId, id))) return false
        journal.delete(features, key(projectId, id))
        return true
      })
  })
}
