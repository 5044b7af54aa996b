import { Effect } from "effect"
import { matches } from "../../filters/property.js"
import { EventStore, type StoredEvent } from "../EventStore.js"
import type { Journal } from "./journal.js"

export const makeMemoryEvents = (journal: Journal) => {
  const byProject = new Map<number, Map<string, StoredEvent>>()
  const of = (projectId: number) => {
    let events = byProject.get(projectId)
    if (events === undefined) journal.set(byProject, projectId, (events = new Map()))
    return events
  }
  return EventStore.of({
    insert: (projectId, events) =>
      Effect.sync(() => {
        const stored = of(projectId)
        const inserted = new Set<string>()
        for (const event of events) {
          if (stored.has(event.uuid)) continue
          journal.set(stored, event.uuid, event)
          inserted.add(event.uuid)
        }
        return inserted
      }),
    repoint: (projectId, moves) =>
      Effect.sync(() => {
        const stored = of(projectId)
        for (const { from, to } of moves) {
          for (const event of [...stored.values()])
            if (event.person_id === from) journal.set(stored, event.uuid, { ...event, person_id: to })
        }
      }),
    list: (projectId, query) =>
      Effect.sync(() =>
        [...of(projectId).values()]
          .filter(
            (e) =>
              (query.uuid === undefined || e.uuid === query.uuid) &&
              (query.event === undefined || e.event === query.event) &&
              (query.distinct_id === undefined || e.distinct_id === query.distinct_id) &&
              (query.person_id === undefined || e.person_id === query.person_id) &&
              (query.after === undefined || e.timestamp > query.after) &&
              (query.before === undefined || e.timestamp < query.before) &&
              (query.beyond === undefined ||
                e.timestamp < query.beyond.timestamp ||
                (e.timestamp.getTime() === query.beyond.timestamp.getTime() && e.uuid < query.beyond.uuid)) &&
              (query.properties ?? []).every((f) => matches(e.properties, f))
          )
          .sort((a, b) => b.timestamp.getTime() - a.timestamp.getTime() || (a.uuid < b.uuid ? 1 : -1))
          .slice(query.offset, query.offset + query.limit)
      ),
    lastFlagCalls: (projectId, keys) =>
      Effect.sync(() => {
        const wanted = new Set(keys)
        const last = new Map<string, Date>()
        for (const e of of(projectId).values()) {
          const key = e.properties["$feature_flag"]
          if (e.event !== "$feature_flag_called" || typeof key !== "string" || !wanted.has(key)) continue
          if ((last.get(key)?.getTime() ?? -Infinity) < e.timestamp.getTime()) last.set(key, e.timestamp)
        }
        return last
      }),
    volumes: (projectId, names, since) =>
      Effect.sync(() => {
        const wanted = new Set(names)
        const counts = new Map<string, number>()
        for (const e of of(projectId).values())
          if (wanted.has(e.event) && e.timestamp >= since) counts.set(e.event, (counts.get(e.event) ?? 0) + 1)
        return counts
      }),
    deleteByPerson: (projectId, personId) =>
      Effect.sync(() => {
        const stored = of(projectId)
        let deleted = 0
        for (const event of [...stored.values()]) {
          if (event.person_id === personId) {
            journal.delete(stored, event.uuid)
            deleted++
          }
        }
        return deleted
      })
  })
}
