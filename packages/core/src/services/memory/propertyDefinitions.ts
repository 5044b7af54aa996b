import { randomUUID } from "node:crypto"
import { Effect, Option } from "effect"
import type { StoredEventDefinition, StoredPropertyDefinition } from "../../definitions/definitionEntity.js"
import { PropertyDefinitions } from "../PropertyDefinitions.js"
import type { Journal } from "./journal.js"

const undescribed = { description: "", tags: [], verified: false, hidden: false, updated_at: null, verified_at: null }

const changed = <D extends object>(definition: D, patch: object): D => ({
  ...definition,
  ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)),
  updated_at: new Date()
})

export const makeMemoryPropertyDefinitions = (journal: Journal) => {
  const properties = new Map<number, Map<string, StoredPropertyDefinition>>()
  const events = new Map<number, Map<string, StoredEventDefinition>>()
  // Per project, `event\0key` for each property seen with an event.
  const links = new Map<number, Map<string, true>>()
  const id = (d: { owner: string; groupTypeIndex: number | null; key: string }) =>
    `${d.owner}:${d.groupTypeIndex ?? ""}:${d.key}`
  const of = <V>(maps: Map<number, Map<string, V>>, projectId: number) => {
    let map = maps.get(projectId)
    if (map === undefined) journal.set(maps, projectId, (map = new Map()))
    return map
  }
  const update = <D extends { readonly id: string }>(map: Map<string, D> | undefined, at: string, patch: object) => {
    const found = [...(map?.entries() ?? [])].find(([, d]) => d.id === at)
    if (found === undefined) return Option.none<D>()
    const next = changed(found[1], patch)
    journal.set(map!, found[0], next)
    return Option.some(next)
  }
  return PropertyDefinitions.of({
    record: (projectId, definitions) =>
      Effect.sync(() => {
        const known = of(properties, projectId)
        for (const definition of definitions)
          if (!known.has(id(definition)))
            journal.set(known, id(definition), { ...definition, ...undescribed, id: randomUUID() })
      }),
    recordEvents: (projectId, seen) =>
      Effect.sync(() => {
        const known = of(events, projectId)
        const linked = of(links, projectId)
        for (const { name, properties: keys, seenAt } of seen) {
          const stored = known.get(name)
          if (stored === undefined)
            journal.set(known, name, {
              ...undescribed,
              id: randomUUID(),
              name,
              created_at: new Date(),
              last_seen_at: seenAt
            })
          else if (stored.last_seen_at === null || stored.last_seen_at < seenAt)
            journal.set(known, name, { ...stored, last_seen_at: seenAt })
          for (const key of keys) if (!linked.has(`${name}\0${key}`)) journal.set(linked, `${name}\0${key}`, true)
        }
      }),
    list: (projectId) => Effect.sync(() => [...(properties.get(projectId)?.values() ?? [])]),
    listEvents: (projectId) => Effect.sync(() => [...(events.get(projectId)?.values() ?? [])]),
    seenWith: (projectId, names) =>
      Effect.sync(() => {
        const wanted = new Set(names)
        const keys = new Set<string>()
        for (const link of links.get(projectId)?.keys() ?? []) {
          const cut = link.indexOf("\0")
          if (wanted.has(link.slice(0, cut))) keys.add(link.slice(cut + 1))
        }
        return keys
      }),
    updateEvent: (projectId, at, patch) => Effect.sync(() => update(events.get(projectId), at, patch)),
    updateProperty: (projectId, at, patch) => Effect.sync(() => update(properties.get(projectId), at, patch))
  })
}
