import { isObject } from "../domain/json.js"
import type { IncomingEvent } from "./normalize.js"

/** Group types per project; events name groups of at most this many types (`$group_0`…`$group_4`). */
export const GROUP_TYPE_LIMIT = 5

export interface GroupUpdate {
  readonly group_type_index: number
  readonly group_key: string
  /** `$group_set` of every `$groupidentify` for this group in the batch, later ones winning. */
  readonly properties: Record<string, unknown>
  readonly first_seen: Date
}

const keyText = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : typeof value === "number" ? String(value) : undefined

const identified = (event: IncomingEvent) => {
  if (event.event !== "$groupidentify") return undefined
  const type = event.properties["$group_type"]
  const key = keyText(event.properties["$group_key"])
  return typeof type === "string" && type !== "" && key !== undefined ? { type, key } : undefined
}

/** Group types the events mention, in order of first sight (so indexes are assigned in that order). */
export const groupTypesOf = (events: ReadonlyArray<IncomingEvent>): Array<string> => {
  const types = new Set<string>()
  for (const event of events) {
    const groups = event.properties["$groups"]
    if (isObject(groups)) for (const type of Object.keys(groups)) types.add(type)
    const group = identified(event)
    if (group) types.add(group.type)
  }
  return [...types]
}

/** The event's `$group_0`…`$group_4` keys under the project's type → index mapping. */
export const groupColumns = (event: IncomingEvent, mapping: ReadonlyMap<string, number>): Array<string | null> => {
  const columns: Array<string | null> = Array(GROUP_TYPE_LIMIT).fill(null)
  const groups = event.properties["$groups"]
  if (isObject(groups)) {
    for (const [type, key] of Object.entries(groups)) {
      const index = mapping.get(type)
      const text = keyText(key)
      if (index !== undefined && text !== undefined) columns[index] = text
    }
  }
  return columns
}

export const groupUpdates = (
  events: ReadonlyArray<IncomingEvent>,
  mapping: ReadonlyMap<string, number>
): Array<GroupUpdate> => {
  const updates = new Map<string, GroupUpdate>()
  for (const event of events) {
    const group = identified(event)
    const index = group && mapping.get(group.type)
    if (group === undefined || index === undefined) continue
    const id = `${index}:${group.key}`
    const set = event.properties["$group_set"]
    const previous = updates.get(id)
    updates.set(id, {
      group_type_index: index,
      group_key: group.key,
      properties: { ...previous?.properties, ...(isObject(set) ? set : {}) },
      first_seen: previous?.first_seen ?? event.timestamp
    })
  }
  return [...updates.values()]
}
