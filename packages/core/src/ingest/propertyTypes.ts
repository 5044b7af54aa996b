import { isObject } from "../domain/json.js"
import type { PropertyDefinition, PropertyOwner, PropertyType } from "../services/PropertyDefinitions.js"
import type { IncomingEvent } from "./normalize.js"

// Which type a property gets when ingestion first sees it, by PostHog's rules: the type stays, so
// a wrong guess sticks, and the rules lean towards String where first values tend to mislead.

/** Keys with a special meaning on events, not properties of their own. */
const SKIPPED_EVENT_KEYS = new Set([
  "$set",
  "$set_once",
  "$unset",
  "$groups",
  "$group_0",
  "$group_1",
  "$group_2",
  "$group_3",
  "$group_4"
])

/** Longest key recorded, in UTF-8 bytes (PostHog's column limit); longer ones are not recorded. */
export const MAX_KEY_BYTES = 200

/**
 * An event that would make PostHog write more definition rows than this records none: one for the
 * event's name, two per event property (with the event-property link), one per person or group property.
 */
export const MAX_WRITES_PER_EVENT = 10_000

/** Numbers under keys like these that could be recent Unix times (seconds or milliseconds) are DateTime. */
const TIME_KEY = /time|date|_at|-at|createdat|updatedat/
/** Six months, in seconds: how far back a number may reach and still count as a recent Unix time. */
const SIX_MONTHS_S = 15_768_000

// A date first (`2024-01-31`, `2024/01/31`, `01-31-2024`, …), with nothing after it or a time of day.
const DATE_PREFIX = /^(?:\d{4}[/-][0-2]\d[/-][0-3]\d|[0-2]\d[/-][0-3]\d[/-]\d{4})(?:[ T][0-2]\d:[0-6]\d:[0-6]\d.*)?$/
// RFC 3339 also allows lower-case separators.
const RFC_3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/
// RFC 2822, as e-mail headers and `Date.prototype.toUTCString` write it: `Tue, 1 Jul 2003 10:52:37 +0200`.
const RFC_2822 =
  /^(?:(?:mon|tue|wed|thu|fri|sat|sun),\s*)?\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\s+\d{2,4}\s+\d{2}:\d{2}(?::\d{2})?\s+(?:[+-]\d{4}|ut|gmt|[ecmp][sd]t|[a-ik-z])$/i

export const isLikelyDate = (text: string): boolean =>
  DATE_PREFIX.test(text) || RFC_3339.test(text) || RFC_2822.test(text)

const isRecentUnixTime = (value: number, now: Date) =>
  Number.isInteger(value) && value >= Math.floor(now.getTime() / 1000) - SIX_MONTHS_S && value < 2 ** 64

/**
 * The type of a property from its key and the first value seen; undefined for values that tell
 * nothing (null, arrays, objects): their key gets a type from the first value that does.
 * `now` is when the value arrived (recent Unix times are told from plain numbers by it).
 */
export const detectPropertyType = (key: string, value: unknown, now: Date): PropertyType | undefined => {
  const name = key.toLowerCase()
  // Campaign parameters, flag values and survey answers often start out looking like numbers or
  // booleans, but are text.
  if (
    name.startsWith("utm_") ||
    name.startsWith("$initial_utm_") ||
    name.startsWith("$feature/") ||
    name === "$feature_flag_response" ||
    name.startsWith("$survey_response")
  )
    return "String"
  switch (typeof value) {
    case "string": {
      const text = value.trim()
      if (text === "true" || text === "false" || text === "TRUE" || text === "FALSE") return "Boolean"
      // Text that merely looks numeric stays String.
      return isLikelyDate(text) ? "DateTime" : "String"
    }
    case "number":
      return TIME_KEY.test(name) && isRecentUnixTime(value, now) ? "DateTime" : "Numeric"
    case "boolean":
      return "Boolean"
    default:
      return undefined
  }
}

/** Whether a definition is recorded already (it is then not detected again). */
export type KnownDefinition = (owner: PropertyOwner, groupTypeIndex: number | null, key: string) => boolean

const nothingKnown: KnownDefinition = () => false

const idOf = (owner: PropertyOwner, groupTypeIndex: number | null, key: string) =>
  `${owner}:${groupTypeIndex ?? ""}:${key}`

const fits = (key: string) => key.length * 3 <= MAX_KEY_BYTES || Buffer.byteLength(key) <= MAX_KEY_BYTES

/** Whether a key is recorded as a property of its owner: not one with a special meaning on events, nor too long. */
export const isRecordedKey = (owner: PropertyOwner, key: string) =>
  !(owner === "event" && SKIPPED_EVENT_KEYS.has(key)) && fits(key)

/**
 * The definitions these events imply, not `known` yet, each key once with the type of its first
 * value: an event's top-level properties, a person's from `$set` then `$set_once`, and for
 * `$groupidentify` only its group's from `$group_set` (under the index `groupTypes` gives its type;
 * groups of unmapped types are not recorded).
 */
export const propertyDefinitionsOf = (
  events: ReadonlyArray<IncomingEvent>,
  groupTypes: ReadonlyMap<string, number>,
  known: KnownDefinition = nothingKnown
): Array<PropertyDefinition> => {
  const found: Array<PropertyDefinition> = []
  const seen = new Set<string>()
  for (const event of events) {
    const own: Array<PropertyDefinition> = []
    let writes = 1
    const collect = (owner: PropertyOwner, groupTypeIndex: number | null, properties: Record<string, unknown>) => {
      for (const key in properties) {
        if (!isRecordedKey(owner, key)) continue
        writes += owner === "event" ? 2 : 1
        if (known(owner, groupTypeIndex, key)) continue
        const id = idOf(owner, groupTypeIndex, key)
        if (seen.has(id)) continue
        const propertyType = detectPropertyType(key, properties[key], event.received_at)
        if (propertyType === undefined) continue
        seen.add(id)
        own.push({ owner, key, propertyType, groupTypeIndex })
      }
    }
    const { properties } = event
    if (event.event === "$groupidentify") {
      const type = properties["$group_type"]
      const index = typeof type === "string" ? groupTypes.get(type) : undefined
      const set = properties["$group_set"]
      if (index !== undefined && isObject(set)) collect("group", index, set)
    } else {
      collect("event", null, properties)
      for (const op of ["$set", "$set_once"]) {
        const set = properties[op]
        if (isObject(set)) collect("person", null, set)
      }
    }
    if (writes <= MAX_WRITES_PER_EVENT) found.push(...own)
    else for (const d of own) seen.delete(idOf(d.owner, d.groupTypeIndex, d.key))
  }
  return found
}
