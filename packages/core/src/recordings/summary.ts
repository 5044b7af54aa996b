import { isObject } from "../domain/json.js"
import { cleanString } from "../ingest/sanitize.js"
import { ACTIVITY_THRESHOLD_MS, type ChunkSummary } from "../services/RecordingStore.js"
import { ACTIVE_SOURCES, CLICKS, CONSOLE_PLUGIN, EventType, MOUSE_SOURCES, type RrwebEvent, Source } from "./rrweb.js"

// What a chunk of rrweb events adds to its recording's metadata. Compressed events (posthog-js's
// `cv: "2024-10"`) keep `type` and `data.source` readable, so they count like any other.

type Counts = {
  -readonly [K in
    | "clickCount"
    | "keypressCount"
    | "mouseActivityCount"
    | "consoleLogCount"
    | "consoleWarnCount"
    | "consoleErrorCount"]: number
}

const consoleLevel = (data: Record<string, unknown>): keyof Counts | undefined => {
  if (data["plugin"] !== CONSOLE_PLUGIN) return undefined
  const level = isObject(data["payload"]) ? data["payload"]["level"] : undefined
  return level === "error" || level === "assert"
    ? "consoleErrorCount"
    : level === "warn"
      ? "consoleWarnCount"
      : "consoleLogCount"
}

/** Summarizes events already in timestamp order; `bytes` is the size of their stored form. */
export const summarize = (events: ReadonlyArray<RrwebEvent>, bytes: number): ChunkSummary => {
  const counts: Counts = {
    clickCount: 0,
    keypressCount: 0,
    mouseActivityCount: 0,
    consoleLogCount: 0,
    consoleWarnCount: 0,
    consoleErrorCount: 0
  }
  let firstUrl: ChunkSummary["firstUrl"] = null
  let firstActive: number | null = null
  let lastActive: number | null = null
  let activeMs = 0
  for (const event of events) {
    const data = isObject(event.data) ? event.data : undefined
    if (event.type === EventType.Meta && firstUrl === null && typeof data?.["href"] === "string") {
      firstUrl = { url: cleanString(data["href"]), at: new Date(event.timestamp) }
    } else if (event.type === EventType.Plugin && data !== undefined) {
      const level = consoleLevel(data)
      if (level !== undefined) counts[level]++
    } else if (event.type === EventType.IncrementalSnapshot && typeof data?.["source"] === "number") {
      const source = data["source"]
      if (source === Source.MouseInteraction && CLICKS.has(data["type"] as number)) counts.clickCount++
      if (source === Source.Input) counts.keypressCount++
      if (MOUSE_SOURCES.has(source)) counts.mouseActivityCount++
      if (ACTIVE_SOURCES.has(source)) {
        // Time between two interactions less than the threshold apart is time spent using the page.
        if (lastActive !== null && event.timestamp - lastActive < ACTIVITY_THRESHOLD_MS)
          activeMs += event.timestamp - lastActive
        firstActive ??= event.timestamp
        lastActive = event.timestamp
      }
    }
  }
  return {
    firstTimestamp: new Date(events[0]!.timestamp),
    lastTimestamp: new Date(events[events.length - 1]!.timestamp),
    eventCount: events.length,
    bytes,
    ...counts,
    activeMs,
    firstActive: firstActive === null ? null : new Date(firstActive),
    lastActive: lastActive === null ? null : new Date(lastActive),
    firstUrl
  }
}
