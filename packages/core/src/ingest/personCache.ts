import { Context, Effect, Layer } from "effect"
import type { Person } from "../persons/model.js"
import { Transactor } from "../services/Transactor.js"

/**
 * Persons this process wrote last, by distinct id, so ingestion need not read them back. Only sound
 * where this process is the store's only writer (an embedded store behind its directory lock);
 * elsewhere it remembers nothing. Filled only after a commit.
 */
export class PersonCache extends Context.Tag("@zed/core/PersonCache")<PersonCache, {
  /** The cached persons of these distinct ids, and the ids to load from storage. */
  readonly lookup: (projectId: number, distinctIds: ReadonlyArray<string>) => {
    readonly found: ReadonlyArray<Person>
    readonly missing: ReadonlyArray<string>
  }
  readonly remember: (projectId: number, persons: ReadonlyArray<Person>) => void
  /** Forget a project's persons, after a change made outside ingestion (a person deleted). */
  readonly forget: (projectId: number) => void
}>() {}

/** Distinct ids remembered at most; the least recently used go first. */
const CAPACITY = 200_000

export const noPersonCache: PersonCache["Type"] = {
  lookup: (_, distinctIds) => ({ found: [], missing: distinctIds }),
  remember: () => {},
  forget: () => {}
}

const makeCache = (): PersonCache["Type"] => {
  const entries = new Map<string, Person>()
  const key = (projectId: number, distinctId: string) => `${projectId}\u0000${distinctId}`
  return {
    lookup: (projectId, distinctIds) => {
      const found = new Map<number, Person>()
      const missing: Array<string> = []
      for (const id of distinctIds) {
        const k = key(projectId, id)
        const person = entries.get(k)
        if (person === undefined) {
          missing.push(id)
          continue
        }
        entries.delete(k)
        entries.set(k, person)
        found.set(person.id, person)
      }
      return { found: [...found.values()], missing }
    },
    remember: (projectId, persons) => {
      for (const person of persons) {
        for (const id of person.distinct_ids) {
          const k = key(projectId, id)
          entries.delete(k)
          entries.set(k, person)
        }
      }
      for (const k of entries.keys()) {
        if (entries.size <= CAPACITY) break
        entries.delete(k)
      }
    },
    forget: (projectId) => {
      const prefix = `${projectId}\u0000`
      for (const k of [...entries.keys()]) if (k.startsWith(prefix)) entries.delete(k)
    }
  }
}

export const PersonCacheLive = Layer.effect(
  PersonCache,
  Effect.map(Transactor, (transactor) => (transactor.soleWriter ? makeCache() : noPersonCache))
)
