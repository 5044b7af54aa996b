import type { PropertyDefinition, PropertyOwner } from "../services/PropertyDefinitions.js"
import type { KnownDefinition } from "./propertyTypes.js"

/**
 * The property definitions this process knows to be stored, per project, so that ingestion sends
 * only new ones and writes them rarely. Definitions are never removed and recording one again
 * changes nothing, so this holds beside other writers too. Filled only after a commit, so that a
 * rolled-back attempt leaves nothing behind.
 */
export interface RecordedDefinitions {
  readonly known: (projectId: number) => KnownDefinition
  readonly remember: (projectId: number, definitions: ReadonlyArray<PropertyDefinition>) => void
}

/** Keys remembered at most, over all projects; past it all are forgotten, and recorded again when next seen. */
const CAPACITY = 100_000

export const makeRecordedDefinitions = (): RecordedDefinitions => {
  // Per project, per owner (and group type), the keys.
  const byProject = new Map<number, Map<string, Set<string>>>()
  let size = 0
  const scope = (owner: PropertyOwner, groupTypeIndex: number | null) =>
    owner === "group" ? `group:${groupTypeIndex}` : owner
  return {
    known: (projectId) => {
      const scopes = byProject.get(projectId)
      return (owner, groupTypeIndex, key) => scopes?.get(scope(owner, groupTypeIndex))?.has(key) === true
    },
    remember: (projectId, definitions) => {
      if (size + definitions.length > CAPACITY) {
        byProject.clear()
        size = 0
      }
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
    }
  }
}
