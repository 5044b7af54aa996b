import type { SeenEvent } from "../services/PropertyDefinitions.js"
import type { IncomingEvent } from "./normalize.js"
import { isRecordedKey, MAX_WRITES_PER_EVENT } from "./propertyTypes.js"

/** How stale a recorded last-seen time may get: a known event name is written again only once it is this old. */
export const LAST_SEEN_STEP_MS = 60 * 60 * 1000

/** What is recorded already of a project's event names: when each was last seen, and its linked properties. */
export interface KnownEvents {
  readonly lastSeen: (name: string) => Date | undefined
  readonly linked: (name: string, key: string) => boolean
}

/**
 * The event names these events imply recording, each once: new ones, those last recorded more than
 * `LAST_SEEN_STEP_MS` before, and those with properties not linked to them yet (an event whose
 * properties would take more than `MAX_WRITES_PER_EVENT` rows links none).
 */
export const seenEventsOf = (events: ReadonlyArray<IncomingEvent>, known: KnownEvents): Array<SeenEvent> => {
  const found = new Map<string, { seenAt: Date; properties: Set<string> }>()
  for (const event of events) {
    const name = event.event
    const keys = Object.keys(event.properties)
    const fresh =
      1 + 2 * keys.length <= MAX_WRITES_PER_EVENT
        ? keys.filter((key) => isRecordedKey("event", key) && !known.linked(name, key))
        : []
    const last = known.lastSeen(name)
    const stale = last === undefined || event.received_at.getTime() - last.getTime() >= LAST_SEEN_STEP_MS
    if (!stale && fresh.length === 0) continue
    const entry = found.get(name)
    if (entry === undefined) found.set(name, { seenAt: event.received_at, properties: new Set(fresh) })
    else {
      if (entry.seenAt < event.received_at) entry.seenAt = event.received_at
      for (const key of fresh) entry.properties.add(key)
    }
  }
  return [...found].map(([name, { properties, seenAt }]) => ({ name, seenAt, properties: [...properties] }))
}
