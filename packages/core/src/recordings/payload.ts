import { isStorableDate } from "../domain/dates.js"
import { isObject } from "../domain/json.js"
import { cleanString } from "../ingest/sanitize.js"
import type { RrwebEvent } from "./rrweb.js"

// posthog-js's `/s/` payload: `$snapshot` events of one session, each carrying rrweb events in
// `$snapshot_data` (mobile SDKs: `$snapshot_items`). The whole request is one unit: any invalid
// part refuses it all.

export const MAX_SESSION_ID_LENGTH = 100

export interface SnapshotBatch {
  readonly sessionId: string
  readonly distinctId: string
  /** `web` unless the sender said otherwise (`$snapshot_source`). */
  readonly source: string
  readonly library: string | null
  /** Each rrweb event with the window it was recorded in, as sent. */
  readonly items: ReadonlyArray<{ readonly windowId: string; readonly event: RrwebEvent }>
}

export type ParsedSnapshots =
  | { readonly _tag: "Snapshots"; readonly batch: SnapshotBatch }
  | { readonly _tag: "Invalid"; readonly detail: string }

const SNAPSHOT_EVENTS = new Set(["$snapshot", "$snapshot_items"])

const invalid = (detail: string): ParsedSnapshots => ({ _tag: "Invalid", detail })

// Texts kept in columns are made storable as capture makes them (NUL, lone surrogates to U+FFFD);
// the rrweb events themselves are stored as JSON text, which escapes both.
const text = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? cleanString(value) : typeof value === "number" ? String(value) : undefined

const isRrweb = (value: unknown): value is RrwebEvent =>
  isObject(value) &&
  Number.isInteger(value["type"]) &&
  typeof value["timestamp"] === "number" &&
  Number.isFinite(value["timestamp"])

export const parseSnapshots = (events: ReadonlyArray<unknown>): ParsedSnapshots => {
  const first = events[0]
  const firstProperties = isObject(first) && isObject(first["properties"]) ? first["properties"] : {}
  const sessionId = firstProperties["$session_id"]
  if (typeof sessionId !== "string" || sessionId === "")
    return invalid("$session_id is required (the recording's session)")
  if (sessionId.length > MAX_SESSION_ID_LENGTH)
    return invalid(`$session_id is longer than ${MAX_SESSION_ID_LENGTH} characters`)
  const items: Array<SnapshotBatch["items"][number]> = []
  let distinctId: string | undefined
  for (const [index, event] of events.entries()) {
    if (!isObject(event) || !isObject(event["properties"]))
      return invalid(`event ${index}: an event object with properties is required`)
    const properties = event["properties"]
    if (!SNAPSHOT_EVENTS.has(event["event"] as string))
      return invalid(`event ${index}: only $snapshot events are recorded here (got ${JSON.stringify(event["event"])})`)
    if (properties["$session_id"] !== sessionId)
      return invalid(`event ${index}: every event of a request must have the same $session_id`)
    distinctId ??= text(properties["distinct_id"]) ?? text(event["distinct_id"])
    const windowId = text(properties["$window_id"]) ?? sessionId
    const data = properties["$snapshot_data"] ?? properties["$snapshot_items"]
    const list = Array.isArray(data) ? data : isObject(data) ? [data] : undefined
    if (list === undefined) return invalid(`event ${index}: $snapshot_data must hold rrweb events`)
    for (const [at, item] of list.entries()) {
      if (!isRrweb(item))
        return invalid(
          `event ${index}: $snapshot_data[${at}] is not an rrweb event (integer type and numeric timestamp)`
        )
      if (!isStorableDate(new Date(item.timestamp))) {
        return invalid(
          `event ${index}: $snapshot_data[${at}] has timestamp ${item.timestamp}, outside the years 1 to 9999 (milliseconds since 1970 expected)`
        )
      }
      items.push({ windowId: text(item["$window_id"]) ?? windowId, event: item })
    }
  }
  if (distinctId === undefined) return invalid("distinct_id is required")
  if (items.length === 0) return invalid("the request holds no rrweb event")
  return {
    _tag: "Snapshots",
    batch: {
      sessionId: cleanString(sessionId),
      distinctId,
      source: text(firstProperties["$snapshot_source"]) ?? "web",
      library: text(firstProperties["$lib"]) ?? null,
      items
    }
  }
}
