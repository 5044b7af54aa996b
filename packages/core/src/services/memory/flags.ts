import { Effect, Option } from "effect"
import { FlagStore, type StoredFlag } from "../FlagStore.js"
import { StorageError } from "../StorageError.js"
import type { Journal } from "./journal.js"

/** `hasExperiment`: whether a live, unarchived experiment uses the flag (the experiments store knows). */
export const makeMemoryFlags = (journal: Journal, hasExperiment: (projectId: number, flagId: number) => boolean) => {
  const flags = new Map<number, StoredFlag & { readonly project_id: number }>()
  let nextId = 1
  const live = (projectId: number) => [...flags.values()].filter((f) => f.project_id === projectId && !f.deleted)
  const taken = (projectId: number, key: string, except?: number) =>
    live(projectId).some((f) => f.key === key && f.id !== except)
  // What the SQL store's unique index reports: a conflict.
  const keyTaken = (key: string) =>
    Effect.fail(new StorageError({ message: `a flag with key ${key} exists`, conflict: true }))
  const strip = ({ project_id, ...flag }: StoredFlag & { project_id: number }): StoredFlag => ({
    ...flag,
    has_experiment: hasExperiment(project_id, flag.id)
  })
  const newestFirst = (a: StoredFlag, b: StoredFlag) => b.created_at.getTime() - a.created_at.getTime() || b.id - a.id

  return FlagStore.of({
    list: (projectId, query) =>
      Effect.sync(() => {
        const search = query.search?.toLowerCase()
        const all = live(projectId)
          .filter(
            (f) =>
              (query.active === undefined || f.active === query.active) &&
              (search === undefined || f.key.toLowerCase().includes(search) || f.name.toLowerCase().includes(search))
          )
          .sort(newestFirst)
        return { count: all.length, results: all.slice(query.offset, query.offset + query.limit).map(strip) }
      }),
    get: (projectId, id) =>
      Effect.sync(() =>
        Option.fromNullable(flags.get(id)).pipe(
          Option.filter((f) => f.project_id === projectId && !f.deleted),
          Option.map(strip)
        )
      ),
    findByKey: (projectId, key) =>
      Effect.sync(() => Option.fromNullable(live(projectId).find((f) => f.key === key)).pipe(Option.map(strip))),
    create: (projectId, input) =>
      Effect.suspend(() => {
        if (taken(projectId, input.key)) return keyTaken(input.key)
        const now = new Date()
        const flag = {
          ...input,
          id: nextId++,
          project_id: projectId,
          deleted: false,
          version: 1,
          has_experiment: false,
          last_modified_by: input.created_by,
          created_at: now,
          updated_at: now
        }
        journal.set(flags, flag.id, flag)
        return Effect.succeed(strip(flag))
      }),
    update: (projectId, id, patch) =>
      Effect.suspend(() => {
        const flag = flags.get(id)
        if (flag === undefined || flag.project_id !== projectId || flag.deleted) return Effect.succeed(Option.none())
        if (patch.key !== undefined && patch.deleted !== true && taken(projectId, patch.key, id))
          return keyTaken(patch.key)
        const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined))
        const next = { ...flag, ...defined, version: flag.version + 1, updated_at: new Date() }
        journal.set(flags, id, next)
        return Effect.succeed(Option.some(strip(next)))
      }),
    all: (projectId) =>
      Effect.sync(() =>
        live(projectId)
          .sort((a, b) => a.id - b.id)
          .map(strip)
      )
  })
}
