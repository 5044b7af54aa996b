import { Effect, Option } from "effect"
import { matches } from "../../filters/property.js"
import type { Person } from "../../persons/model.js"
import { PersonStore } from "../PersonStore.js"
import type { Journal } from "./journal.js"

interface Row {
  id: number
  uuid: string
  properties: Record<string, unknown>
  is_identified: boolean
  created_at: Date
  version: number
}

export const makeMemoryPersons = (journal: Journal) => {
  const persons = new Map<number, Row & { project_id: number }>()
  const distinctIds = new Map<string, number>() // `${project}:${distinct_id}` → person id
  // Experience continuity: person id → flag key → hash key (they follow the person in merges).
  const hashKeys = new Map<number, Readonly<Record<string, string>>>()
  let nextId = 1
  const key = (projectId: number, distinctId: string) => `${projectId}:${distinctId}`

  const view = (row: Row & { project_id: number }): Person => ({
    id: row.id,
    uuid: row.uuid,
    properties: structuredClone(row.properties),
    is_identified: row.is_identified,
    created_at: row.created_at,
    version: row.version,
    distinct_ids: [...distinctIds]
      .filter(([k, id]) => id === row.id && k.startsWith(`${row.project_id}:`))
      .map(([k]) => k.slice(String(row.project_id).length + 1))
  })
  const inProject = (projectId: number) => [...persons.values()].filter((p) => p.project_id === projectId)
  const newestFirst = (
    a: { readonly created_at: Date; readonly id: number },
    b: { readonly created_at: Date; readonly id: number }
  ) => b.created_at.getTime() - a.created_at.getTime() || b.id - a.id

  const store = PersonStore.of({
    load: (projectId, ids) =>
      Effect.sync(() => {
        const found = new Set(ids.map((id) => distinctIds.get(key(projectId, id))).filter((id) => id !== undefined))
        return [...found].map((id) => view(persons.get(id)!))
      }),
    save: (projectId, changes) =>
      Effect.sync(() => {
        const ids = new Map<string, number>()
        for (const draft of changes.created) {
          const row = {
            id: nextId++,
            project_id: projectId,
            uuid: draft.uuid,
            properties: structuredClone(draft.properties),
            is_identified: draft.is_identified,
            created_at: draft.created_at,
            version: draft.version
          }
          journal.set(persons, row.id, row)
          ids.set(draft.uuid, row.id)
        }
        for (const draft of changes.updated) {
          const row = persons.get(draft.id!)!
          journal.set(persons, row.id, {
            ...row,
            properties: structuredClone(draft.properties),
            is_identified: draft.is_identified,
            created_at: draft.created_at,
            version: draft.version
          })
        }
        for (const { distinct_id, person } of [...changes.claimed, ...changes.moved]) {
          journal.set(distinctIds, key(projectId, distinct_id), person.id ?? ids.get(person.uuid)!)
        }
        for (const { id, into } of changes.deleted) {
          const target = into.id ?? ids.get(into.uuid)!
          const moved = hashKeys.get(id)
          if (moved !== undefined) journal.set(hashKeys, target, { ...moved, ...hashKeys.get(target) })
          journal.delete(hashKeys, id)
          journal.delete(persons, id)
        }
        return ids
      }),
    list: (projectId, query) =>
      Effect.sync(() => {
        const search = query.search?.toLowerCase()
        const all = inProject(projectId)
          .map(view)
          .filter(
            (p) =>
              (query.distinct_id === undefined || p.distinct_ids.includes(query.distinct_id)) &&
              (query.email === undefined || p.properties["email"] === query.email) &&
              (query.distinct_ids === undefined || p.distinct_ids.some((d) => query.distinct_ids!.includes(d))) &&
              (query.emails === undefined || query.emails.includes(p.properties["email"] as string)) &&
              (query.beyond === undefined || newestFirst(p, query.beyond) > 0) &&
              (search === undefined ||
                p.distinct_ids.some((d) => d.toLowerCase() === search) ||
                ["email", "name"].some(
                  (k) =>
                    typeof p.properties[k] === "string" && (p.properties[k] as string).toLowerCase().includes(search)
                )) &&
              query.properties.every((f) => matches(p.properties, f))
          )
          .sort(newestFirst)
        return { count: all.length, results: all.slice(query.offset, query.offset + query.limit) }
      }),
    get: (projectId, ref) =>
      Effect.sync(() => {
        const row = "id" in ref ? persons.get(ref.id) : inProject(projectId).find((p) => p.uuid === ref.uuid)
        return row === undefined || row.project_id !== projectId ? Option.none() : Option.some(view(row))
      }),
    getMany: (projectId, uuids) =>
      Effect.sync(() => {
        const wanted = new Set(uuids)
        return inProject(projectId)
          .filter((p) => wanted.has(p.uuid))
          .map(view)
      }),
    remove: (projectId, personId) =>
      Effect.sync(() => {
        if (persons.get(personId)?.project_id !== projectId) return
        journal.delete(persons, personId)
        journal.delete(hashKeys, personId)
        for (const [k, id] of [...distinctIds]) if (id === personId) journal.delete(distinctIds, k)
      }),
    values: (projectId, key, search) =>
      Effect.sync(() => {
        const counts = new Map<string, { value: unknown; count: number }>()
        for (const person of inProject(projectId)) {
          if (!Object.hasOwn(person.properties, key)) continue
          const value = person.properties[key]
          const text = typeof value === "string" ? value : JSON.stringify(value)
          if (search !== undefined && !text.toLowerCase().includes(search.toLowerCase())) continue
          const entry = counts.get(text) ?? { value, count: 0 }
          entry.count++
          counts.set(text, entry)
        }
        const text = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v))
        return [...counts.values()]
          .sort(
            (a, b) => b.count - a.count || (text(a.value) < text(b.value) ? -1 : text(a.value) > text(b.value) ? 1 : 0)
          )
          .slice(0, 100)
      })
  })

  return {
    store,
    /** The person id a distinct id belongs to, if any. */
    personOf: (projectId: number, distinctId: string): number | undefined =>
      distinctIds.get(key(projectId, distinctId)),
    hashKeysOf: (personId: number): Readonly<Record<string, string>> => hashKeys.get(personId) ?? {},
    /** Adds overrides for the flag keys a person has none for yet. */
    addHashKeys: (personId: number, flagKeys: ReadonlyArray<string>, hashKey: string): void => {
      const current = hashKeys.get(personId) ?? {}
      const missing = flagKeys.filter((k) => !Object.hasOwn(current, k))
      if (missing.length > 0)
        journal.set(hashKeys, personId, { ...current, ...Object.fromEntries(missing.map((k) => [k, hashKey])) })
    }
  }
}
