import { Effect, Option } from "effect"
import { FlagInputs } from "../FlagInputs.js"
import type { GroupStore } from "../GroupStore.js"
import type { PersonStore } from "../PersonStore.js"

export const makeMemoryFlagInputs = (deps: {
  readonly persons: PersonStore["Type"]
  readonly groups: GroupStore["Type"]
  readonly personOf: (projectId: number, distinctId: string) => number | undefined
  readonly hashKeysOf: (personId: number) => Readonly<Record<string, string>>
  readonly addHashKeys: (personId: number, flagKeys: ReadonlyArray<string>, hashKey: string) => void
  readonly isMember: (cohortId: number, personId: number) => boolean
}) =>
  FlagInputs.of({
    load: (projectId, query) =>
      Effect.gen(function* () {
        const personId = deps.personOf(projectId, query.distinctId)
        const { continuity } = query
        if (continuity !== undefined) {
          for (const id of [query.distinctId, continuity.anonDistinctId]) {
            const owner = deps.personOf(projectId, id)
            if (owner !== undefined) deps.addHashKeys(owner, continuity.flagKeys, continuity.anonDistinctId)
          }
        }
        const person = personId === undefined ? Option.none() : yield* deps.persons.get(projectId, { id: personId })
        const groupProperties = new Map<number, Map<string, Readonly<Record<string, unknown>>>>()
        for (const { index, key } of query.groups) {
          const group = yield* deps.groups.get(projectId, index, key)
          if (Option.isNone(group)) continue
          const byKey = groupProperties.get(index) ?? new Map()
          byKey.set(key, group.value.properties)
          groupProperties.set(index, byKey)
        }
        return {
          personProperties: Option.match(person, { onNone: () => null, onSome: (p) => p.properties }),
          groupProperties,
          staticCohorts: new Set(
            personId === undefined ? [] : query.staticCohortIds.filter((id) => deps.isMember(id, personId))
          ),
          hashKeyOverrides: personId === undefined ? {} : deps.hashKeysOf(personId)
        }
      }),
    persons: (projectId, distinctIds) =>
      Effect.gen(function* () {
        const found = new Map<string, Readonly<Record<string, unknown>>>()
        for (const id of distinctIds) {
          const personId = deps.personOf(projectId, id)
          const person = personId === undefined ? Option.none() : yield* deps.persons.get(projectId, { id: personId })
          if (Option.isSome(person)) found.set(id, person.value.properties)
        }
        return found
      })
  })
