import { Context, Effect, Layer } from "effect"
import { approximateBytes, makeBoundedMap } from "../cache/bounded.js"
import type { Person } from "../persons/model.js"
import { Transactor } from "../services/Transactor.js"

type Properties = Readonly<Record<string, unknown>>

/**
 * What this process knows of persons by distinct id, so that neither ingestion nor flag evaluation
 * need read them back: the persons it wrote last, the properties flag evaluation read, and the
 * distinct ids found to have no person.
 *
 * Only where this process is the store's only writer (an embedded store behind its directory lock)
 * is any of it kept for good: every person is written here, and each write replaces what was known.
 * Sharing a store with other writers, it keeps only absences, for `SHARED_ABSENCE_MS`: another
 * instance may create the person meanwhile.
 */
export class PersonCache extends Context.Tag("@zed/core/PersonCache")<
  PersonCache,
  {
    /** The cached persons of these distinct ids, and the ids to load from storage (ingestion). */
    readonly lookup: (
      projectId: number,
      distinctIds: ReadonlyArray<string>
    ) => {
      readonly found: ReadonlyArray<Person>
      readonly missing: ReadonlyArray<string>
    }
    /** Persons just committed by this process. */
    readonly remember: (projectId: number, persons: ReadonlyArray<Person>) => void
    /** Forget a project's persons, after a change made outside ingestion (a person deleted). */
    readonly forget: (projectId: number) => void
    /** A distinct id's person properties; null when it is known to have no person, undefined when not known. */
    readonly properties: (projectId: number, distinctId: string) => Properties | null | undefined
    /**
     * Starts reading these distinct ids' properties from storage; the answer is handed back with
     * what was found, and kept for the ids no person was written for meanwhile.
     */
    readonly reading: (
      projectId: number,
      distinctIds: ReadonlyArray<string>
    ) => (found: ReadonlyMap<string, Properties>) => void
  }
>() {}

/**
 * Distinct ids remembered at most, and the approximate bytes of what is remembered of them (persons'
 * properties vary from a few keys to thousands); past either, the one remembered longest ago goes
 * first. Forgetting costs a storage read, never a wrong answer.
 */
export const PERSON_CACHE_BOUNDS = { entries: 200_000, bytes: 64 * 1024 * 1024 }

/** How long an absence is trusted on a store other instances write to. */
export const SHARED_ABSENCE_MS = 2_000

type Entry =
  | { readonly _tag: "Person"; readonly person: Person }
  | { readonly _tag: "Properties"; readonly properties: Properties }
  | { readonly _tag: "Absent"; readonly until: number }

/** A distinct id being read, until a write makes the answer too old to keep. */
interface Read {
  stale: boolean
}

export const makePersonCache = (soleWriter: boolean): PersonCache["Type"] => {
  const entries = makeBoundedMap<string, Entry>({
    maxEntries: PERSON_CACHE_BOUNDS.entries,
    maxWeight: PERSON_CACHE_BOUNDS.bytes,
    weigh: (entry, k) =>
      64 +
      k.length +
      (entry._tag === "Person"
        ? approximateBytes(entry.person.properties)
        : entry._tag === "Properties"
          ? approximateBytes(entry.properties)
          : 0)
  })
  const reads = new Map<string, Read>()
  const key = (projectId: number, distinctId: string) => `${projectId}\u0000${distinctId}`
  const written = (k: string) => {
    const read = reads.get(k)
    if (read !== undefined) read.stale = true
  }
  return {
    lookup: (projectId, distinctIds) => {
      const found = new Map<number, Person>()
      const missing: Array<string> = []
      for (const id of distinctIds) {
        const entry = entries.peek(key(projectId, id))
        if (entry?._tag === "Person") found.set(entry.person.id, entry.person)
        else missing.push(id)
      }
      return { found: [...found.values()], missing }
    },
    remember: (projectId, persons) => {
      for (const person of persons) {
        for (const id of person.distinct_ids) {
          const k = key(projectId, id)
          written(k)
          if (soleWriter) entries.set(k, { _tag: "Person", person })
          else entries.delete(k)
        }
      }
    },
    forget: (projectId) => {
      const prefix = `${projectId}\u0000`
      for (const k of [...entries.keys()]) if (k.startsWith(prefix)) entries.delete(k)
      for (const [k, read] of reads) if (k.startsWith(prefix)) read.stale = true
    },
    properties: (projectId, distinctId) => {
      const entry = entries.peek(key(projectId, distinctId))
      if (entry === undefined) return undefined
      if (entry._tag === "Person") return entry.person.properties
      if (entry._tag === "Properties") return entry.properties
      return Date.now() < entry.until ? null : undefined
    },
    reading: (projectId, distinctIds) => {
      const keys = distinctIds.map((id) => key(projectId, id))
      const marks = keys.map((k) => {
        const read: Read = { stale: false }
        reads.set(k, read)
        return read
      })
      return (found) => {
        for (const [i, k] of keys.entries()) {
          const read = marks[i]!
          if (reads.get(k) !== read) continue
          reads.delete(k)
          if (read.stale) continue
          const properties = found.get(distinctIds[i]!)
          if (properties !== undefined) {
            // A person another instance may change is read again every time.
            if (soleWriter) entries.set(k, { _tag: "Properties", properties })
          } else
            entries.set(k, {
              _tag: "Absent",
              until: soleWriter ? Number.POSITIVE_INFINITY : Date.now() + SHARED_ABSENCE_MS
            })
        }
      }
    }
  }
}

export const PersonCacheLive = Layer.effect(
  PersonCache,
  Effect.map(Transactor, (transactor) => makePersonCache(transactor.soleWriter))
)
