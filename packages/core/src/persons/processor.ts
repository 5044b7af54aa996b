import { INITIAL_PROPERTIES, type IncomingEvent } from "../ingest/normalize.js"
import { setOwn } from "../ingest/sanitize.js"
import { isIllegalDistinctId, type Person, personUuid } from "./model.js"
import { isObject } from "../domain/json.js"

// Person processing for a batch of one project's events, in arrival order, over a working set
// loaded beforehand. Pure: the result says what to write.

/** A person as processing leaves it. `id` is absent for persons this batch creates. */
export interface PersonDraft {
  id: number | undefined
  uuid: string
  properties: Record<string, unknown>
  is_identified: boolean
  created_at: Date
  version: number
  distinct_ids: Array<string>
  changed: boolean
  merged: boolean
  /** The distinct ids this person had in storage when loaded. */
  readonly stored_ids: ReadonlySet<string>
}

export interface PersonChanges {
  /** Persons to insert (their distinct ids are among `claimed` and `moved`). */
  readonly created: ReadonlyArray<PersonDraft>
  /** Stored persons whose properties, flags or distinct ids changed. */
  readonly updated: ReadonlyArray<PersonDraft>
  /**
   * Distinct ids that had no person before this batch and now have one (new persons, identify,
   * alias). Stored as new rows: should another writer claim the same id meanwhile, the insert fails
   * and the batch is retried against what that writer committed.
   */
  readonly claimed: ReadonlyArray<{ readonly distinct_id: string; readonly person: PersonDraft }>
  /** Distinct ids that belonged to another person before this batch (merges); that person was loaded, hence locked. */
  readonly moved: ReadonlyArray<{ readonly distinct_id: string; readonly person: PersonDraft }>
  /** Stored persons merged into others, to delete once their ids (and flag hash keys) are moved to `into`. */
  readonly deleted: ReadonlyArray<{ readonly id: number; readonly uuid: string; readonly into: PersonDraft }>
  /** Events stored under `from` belong to `to` now. */
  readonly repoint: ReadonlyArray<{ readonly from: string; readonly to: string }>
}

export type PersonWarning =
  | { readonly type: "cannot_merge_with_illegal_distinct_id"; readonly distinct_ids: ReadonlyArray<string> }
  | { readonly type: "cannot_merge_already_identified"; readonly distinct_ids: ReadonlyArray<string> }

export interface PersonResult {
  /** The person id each event carries, in input order. */
  readonly personIds: ReadonlyArray<string>
  /** Every person the batch loaded or created and did not merge away, as it leaves them. */
  readonly persons: ReadonlyArray<PersonDraft>
  readonly changes: PersonChanges
  readonly warnings: ReadonlyArray<PersonWarning>
}

/** Equal as JSON values; primitives need no serializing. */
const same = (a: unknown, b: unknown): boolean =>
  a === b ||
  (typeof a === "object" &&
    a !== null &&
    typeof b === "object" &&
    b !== null &&
    JSON.stringify(a) === JSON.stringify(b))

/** The distinct ids processing of these events may touch: load their persons first. */
export const referencedDistinctIds = (events: ReadonlyArray<IncomingEvent>): Array<string> => {
  const ids = new Set<string>()
  for (const event of events) {
    ids.add(event.distinct_id)
    const other = mergeTarget(event)
    if (other !== undefined) ids.add(other)
  }
  return [...ids]
}

/** The id an identify/alias/merge event joins into its own distinct id, if any. */
const mergeTarget = (event: IncomingEvent): string | undefined => {
  if (!event.processPerson) return undefined
  const key =
    event.event === "$identify"
      ? "$anon_distinct_id"
      : event.event === "$create_alias" || event.event === "$merge_dangerously"
        ? "alias"
        : undefined
  const value = key === undefined ? undefined : event.properties[key]
  return typeof value === "string" && value !== "" ? value : typeof value === "number" ? String(value) : undefined
}

/** Applies `$set_once` (only absent keys), then `$set`, then `$unset`; whether anything changed. */
export const applyPropertyUpdates = (target: Record<string, unknown>, properties: Record<string, unknown>): boolean => {
  let changed = false
  const setOnce = properties["$set_once"]
  if (isObject(setOnce)) {
    for (const [key, value] of Object.entries(setOnce)) {
      if (!Object.hasOwn(target, key)) {
        setOwn(target, key, value)
        changed = true
      }
    }
  }
  const set = properties["$set"]
  if (isObject(set)) {
    for (const [key, value] of Object.entries(set)) {
      if (!Object.hasOwn(target, key) || !same(target[key], value)) {
        setOwn(target, key, value)
        changed = true
      }
    }
  }
  const unset = properties["$unset"]
  const keys = Array.isArray(unset) ? unset : isObject(unset) ? Object.keys(unset) : []
  for (const key of keys) {
    if (typeof key === "string" && Object.hasOwn(target, key)) {
      delete target[key]
      changed = true
    }
  }
  return changed
}

/** Events whose very purpose is to change persons; they are always applied in full. */
const PERSON_EVENTS = new Set(["$identify", "$set", "$create_alias", "$merge_dangerously", "$groupidentify"])
const AUTO_PROPERTIES = new Set(INITIAL_PROPERTIES)

/**
 * Whether the event would only overwrite properties SDKs attach to every event (`$current_url`,
 * `$browser`, …) that the person already has. PostHog writes nothing then: they change on every
 * page view. New keys, `$set_once` additions and unsets are always written.
 */
const onlyRefreshesAutoProperties = (person: Record<string, unknown>, properties: Record<string, unknown>): boolean => {
  const setOnce = properties["$set_once"]
  if (isObject(setOnce) && Object.keys(setOnce).some((key) => !Object.hasOwn(person, key))) return false
  const unset = properties["$unset"]
  const unsetKeys = Array.isArray(unset) ? unset : isObject(unset) ? Object.keys(unset) : []
  if (unsetKeys.some((key) => typeof key === "string" && Object.hasOwn(person, key))) return false
  const set = properties["$set"]
  return (
    !isObject(set) ||
    Object.entries(set).every(
      ([key, value]) => Object.hasOwn(person, key) && (AUTO_PROPERTIES.has(key) || same(person[key], value))
    )
  )
}

export const processPersons = (
  projectId: number,
  events: ReadonlyArray<IncomingEvent>,
  loaded: ReadonlyArray<Person>
): PersonResult => {
  const byDistinctId = new Map<string, PersonDraft>()
  const stored = loaded.map((person): PersonDraft => {
    const draft = {
      ...person,
      properties: { ...person.properties },
      distinct_ids: [...person.distinct_ids],
      changed: false,
      merged: false,
      stored_ids: new Set(person.distinct_ids)
    }
    for (const id of person.distinct_ids) byDistinctId.set(id, draft)
    return draft
  })
  const created: Array<PersonDraft> = []
  const deleted: Array<{ id: number; uuid: string; into: PersonDraft }> = []
  const repoint: Array<{ from: string; to: string }> = []
  const warnings: Array<PersonWarning> = []
  const mergedInto = new Map<string, PersonDraft>()

  const createFor = (distinctId: string, event: IncomingEvent): PersonDraft => {
    const draft: PersonDraft = {
      id: undefined,
      uuid: personUuid(projectId, distinctId),
      // Set once: the event's own `$set` may still overwrite it.
      properties: { $creator_event_uuid: event.uuid },
      is_identified: false,
      created_at: event.timestamp,
      version: 0,
      distinct_ids: [distinctId],
      changed: true,
      merged: false,
      stored_ids: new Set()
    }
    created.push(draft)
    byDistinctId.set(distinctId, draft)
    return draft
  }

  const attach = (distinctId: string, person: PersonDraft) => {
    person.distinct_ids.push(distinctId)
    person.changed = true
    byDistinctId.set(distinctId, person)
    // Events sent before this id had a person carry the id's own deterministic uuid.
    const own = personUuid(projectId, distinctId)
    if (own !== person.uuid) repoint.push({ from: own, to: person.uuid })
  }

  const merge = (other: PersonDraft, into: PersonDraft) => {
    into.properties = { ...other.properties, ...into.properties }
    if (other.created_at < into.created_at) into.created_at = other.created_at
    into.version = Math.max(into.version, other.version)
    for (const id of other.distinct_ids) {
      into.distinct_ids.push(id)
      byDistinctId.set(id, into)
    }
    into.changed = true
    other.merged = true
    mergedInto.set(other.uuid, into)
    repoint.push({ from: other.uuid, to: into.uuid })
    if (other.id !== undefined) deleted.push({ id: other.id, uuid: other.uuid, into })
  }

  const identify = (event: IncomingEvent, otherId: string, intoId: string): PersonDraft => {
    const into = byDistinctId.get(intoId)
    if (otherId === intoId) return into ?? createFor(intoId, event)
    if (isIllegalDistinctId(otherId) || isIllegalDistinctId(intoId)) {
      warnings.push({ type: "cannot_merge_with_illegal_distinct_id", distinct_ids: [otherId, intoId] })
      return into ?? createFor(intoId, event)
    }
    const other = byDistinctId.get(otherId)
    if (into === undefined && other === undefined) {
      const person = createFor(intoId, event)
      attach(otherId, person)
      return person
    }
    if (into === undefined) {
      attach(intoId, other!)
      return other!
    }
    if (other === undefined) {
      attach(otherId, into)
      return into
    }
    if (other === into) return into
    if (other.is_identified && event.event !== "$merge_dangerously") {
      warnings.push({ type: "cannot_merge_already_identified", distinct_ids: [otherId, intoId] })
      return into
    }
    merge(other, into)
    return into
  }

  const personIds = events.map((event) => {
    const existing = byDistinctId.get(event.distinct_id)
    if (!event.processPerson) return existing?.uuid ?? personUuid(projectId, event.distinct_id)
    const otherId = mergeTarget(event)
    const person =
      otherId !== undefined
        ? identify(event, otherId, event.distinct_id)
        : (existing ?? createFor(event.distinct_id, event))
    const skipUpdates =
      existing !== undefined &&
      !PERSON_EVENTS.has(event.event) &&
      onlyRefreshesAutoProperties(person.properties, event.properties)
    if (otherId !== undefined || event.event === "$identify") {
      if (!person.is_identified) {
        person.is_identified = true
        person.changed = true
      }
    }
    if (!skipUpdates && applyPropertyUpdates(person.properties, event.properties)) person.changed = true
    return person.uuid
  })

  // Persons merged away hand over to whoever they were merged into, at the end of the chain.
  const survivor = (person: PersonDraft): PersonDraft => {
    let at = person
    while (at.merged) at = mergedInto.get(at.uuid)!
    return at
  }
  // Events processed before a merge later in the batch belong to the surviving person.
  const resolve = (uuid: string): string => {
    const into = mergedInto.get(uuid)
    return into === undefined ? uuid : survivor(into).uuid
  }

  const updated = stored.filter((p) => p.changed && !p.merged)
  for (const person of updated) person.version += 1
  // Where each distinct id ends up, against where storage had it.
  const storedOwner = new Map(stored.flatMap((p) => [...p.stored_ids].map((id) => [id, p] as const)))
  const claimed: Array<{ distinct_id: string; person: PersonDraft }> = []
  const moved: Array<{ distinct_id: string; person: PersonDraft }> = []
  for (const person of [...created, ...stored]) {
    if (person.merged) continue
    for (const id of person.distinct_ids) {
      const owner = storedOwner.get(id)
      if (owner === undefined) claimed.push({ distinct_id: id, person })
      else if (owner !== person) moved.push({ distinct_id: id, person })
    }
  }
  return {
    personIds: personIds.map(resolve),
    persons: [...created, ...stored].filter((p) => !p.merged),
    changes: {
      created: created.filter((p) => !p.merged),
      updated,
      claimed,
      moved,
      // A person merged into one that is merged later in the batch hands over to the last survivor.
      deleted: deleted.map((d) => ({ ...d, into: survivor(d.into) })),
      repoint: repoint.map(({ from, to }) => ({ from, to: resolve(to) })).filter(({ from, to }) => from !== to)
    },
    warnings
  }
}
