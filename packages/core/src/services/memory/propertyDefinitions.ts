import { Effect } from "effect"
import { type PropertyDefinition, PropertyDefinitions } from "../PropertyDefinitions.js"
import type { Journal } from "./journal.js"

export const makeMemoryPropertyDefinitions = (journal: Journal) => {
  const byProject = new Map<number, Map<string, PropertyDefinition>>()
  const id = (d: PropertyDefinition) => `${d.owner}:${d.groupTypeIndex ?? ""}:${d.key}`
  return PropertyDefinitions.of({
    record: (projectId, definitions) =>
      Effect.sync(() => {
        let known = byProject.get(projectId)
        if (known === undefined) journal.set(byProject, projectId, (known = new Map()))
        for (const definition of definitions)
          if (!known.has(id(definition))) journal.set(known, id(definition), definition)
      }),
    list: (projectId) => Effect.sync(() => [...(byProject.get(projectId)?.values() ?? [])])
  })
}
