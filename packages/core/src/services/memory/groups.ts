import { Effect, Option } from "effect"
import { GROUP_TYPE_LIMIT } from "../../ingest/groups.js"
import { type Group, GroupStore } from "../GroupStore.js"
import type { Journal } from "./journal.js"

export const makeMemoryGroups = (journal: Journal) => {
  const types = new Map<number, Map<string, number>>()
  const groups = new Map<string, Group>()
  const mapping = (projectId: number) => {
    let m = types.get(projectId)
    if (m === undefined) journal.set(types, projectId, (m = new Map()))
    return m
  }
  return GroupStore.of({
    ensureTypes: (projectId, wanted) =>
      Effect.sync(() => {
        const m = mapping(projectId)
        for (const type of wanted) if (!m.has(type) && m.size < GROUP_TYPE_LIMIT) journal.set(m, type, m.size)
        return new Map(m)
      }),
    types: (projectId) => Effect.sync(() => new Map(mapping(projectId))),
    upsert: (projectId, updates) =>
      Effect.sync(() => {
        for (const u of updates) {
          const id = `${projectId}:${u.group_type_index}:${u.group_key}`
          const previous = groups.get(id)
          journal.set(groups, id, {
            group_type_index: u.group_type_index,
            group_key: u.group_key,
            properties: { ...previous?.properties, ...structuredClone(u.properties) },
            created_at: previous?.created_at ?? u.first_seen,
            version: (previous?.version ?? -1) + 1
          })
        }
      }),
    get: (projectId, typeIndex, key) =>
      Effect.sync(() => Option.fromNullable(groups.get(`${projectId}:${typeIndex}:${key}`)))
  })
}
