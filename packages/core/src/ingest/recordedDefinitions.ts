import type { PropertyDefinition, PropertyOwner, SeenEvent } from "../services/PropertyDefinitions.js"
import type { KnownDefinition } from "./propertyTypes.js"
import type { KnownEvents } from "./seenEvents.js"

/**
 * The property definitions and event names this process knows to be stored, per project, so that
 * ingestion sends only new ones and writes them rarely. Definitions are never removed and recording
 * one again changes nothing (a last-seen time only moves forward), so this holds beside other writers
 * too. Filled only after a commit, so that a rolled-back attempt leaves nothing behind.
 */
export interface RecordedDefinitions {
  readonly known: (projectId: number) => KnownDefinition
  readonly remember: (projectId: number, definitions: ReadonlyArray<PropertyDefinition>) => void
  readonly knownEvents: (projectId: number) => KnownEvents
  readonly rememberEvents: (projectId: number, events: ReadonlyArray<SeenEvent>) => void
}

/**
 * Keys (and event names, and their linked keys) remembered at most, over all projects; past it all
 * are forgotten, and recorded again when next seen.
 */
const CAPACITY = 100_000

export const makeRecordedDefinitions = (): RecordedDefinitions => {
  // Per project, per owner (and group type), the keys.
  const byProject = new Map<number, Map<string, Set<string>>>()
  // Per project, per event name, when it was last recorded as seen and its linked keys.
  const eventsByProject = new Map<number, Map<string, { lastSeen: Date; keys: Set<string> }>>()
  let size = 0
  const makeRoom = (more: number) => {
    if (size + more <= CAPACITY) return
    byProject.clear()
    eventsByProject.clear()
    size = 0
  }
  const scope = (owner: PropertyOwner, groupTypeIndex: number | null) =>
    owner === "group" ? `group:${groupTypeIndex}` : owner
  return {
    known: (projectId) => {
      const scopes = byProject.get(projectId)
      return (owner, groupTypeIndex, key) => scopes?.get(scope(owner, groupTypeIndex))?.has(key) === true
    },
    remember: (projectId, definitions) => {
      makeRoom(definitions.length)
      let scopes = byProject.get(projectId)
      if (scopes === undefined) byProject.set(projectId, (scopes = new Map()))
      for (const { groupTypeIndex, key, owner } of definitions) {
        const id = scope(owner, groupTypeIndex)
        let keys = scopes.get(id)
        if (keys === undefined) scopes.set(id, (keys = new Set()))
        if (!keys.has(key)) {
          keys.add(key)
          size++
        }
      }
    },
    knownEvents: (projectId) => {
      const events = eventsByProject.get(projectId)
      return {
        lastSeen: (name) => events?.get(name)?.lastSeen,
        linked: (name, key) => events?.get(name)?.keys.has(key) === true
      }
    },
    rememberEvents: (projectId, seen) => {
      makeRoom(seen.reduce((n, e) => n + 1 + e.properties.length, 0))
      let events = eventsByProject.get(projectId)
      if (events === undefined) eventsByProject.set(projectId, (events = new Map()))
      for (const { name, properties, seenAt } of seen) {
        let entry = events.get(name)
        if (entry === undefined) {
          events.set(name, (entry = { lastSeen: seenAt, keys: new Set() }))
          size++
        } else if (entry.lastSeen < seenAt) entry.lastSeen = seenAt
        for (const key of properties)
          if (!entry.keys.has(key)) {
            entry.keys.add(key)
            size++
          }
      }
    }
  }
}
