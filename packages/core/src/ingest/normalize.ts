import { isStorableDate } from "../domain/dates.js"
import { isObject } from "../domain/json.js"
import { cleanJson, TooDeep, truncate } from "./sanitize.js"
import { eventTimestamp, parseTimestamp } from "./timestamp.js"
import { isUuid, uuidv7 } from "./uuid.js"

export const MAX_NAME_LENGTH = 200
/** Largest event accepted, serialized; larger ones are refused with 413. */
export const MAX_EVENT_BYTES = 1024 * 1024

/** An event validated and normalized, ready for person processing and storage. */
export interface IncomingEvent {
  readonly uuid: string
  readonly event: string
  readonly distinct_id: string
  readonly properties: Record<string, unknown>
  readonly timestamp: Date
  /** When Zed received it. */
  readonly received_at: Date
  /** False for `$process_person_profile: false`: the event touches no person. */
  readonly processPerson: boolean
}

export interface NormalizeContext {
  readonly now: Date
  readonly sentAt: Date | undefined
  readonly ip: string | undefined
  readonly historical: boolean
  readonly anonymizeIps: boolean
  /** `/engage/` treats an event without a name as `$identify`. */
  readonly defaultEvent: string | undefined
  /** Size of the decoded request: when it is well under the event limit, no event needs measuring. */
  readonly payloadBytes?: number | undefined
}

export type Normalized =
  | { readonly _tag: "Event"; readonly event: IncomingEvent }
  /** Valid but not stored: person events sent with `$process_person_profile: false`. */
  | { readonly _tag: "Dropped" }
  | { readonly _tag: "Rejected"; readonly problem: "invalid_payload" | "payload_too_large"; readonly detail: string }

const PERSON_EVENTS = new Set(["$identify", "$create_alias", "$merge_dangerously", "$groupidentify"])

/** Properties copied into `$set`, and into `$set_once` as `$initial_<name>`, on personful events. */
export const INITIAL_PROPERTIES = [
  "$app_build",
  "$app_name",
  "$app_namespace",
  "$app_version",
  "$browser",
  "$browser_version",
  "$device_type",
  "$current_url",
  "$pathname",
  "$os",
  "$os_version",
  "$referring_domain",
  "$referrer",
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "utm_content",
  "utm_name",
  "utm_term",
  "gclid",
  "gad_source",
  "gbraid",
  "wbraid",
  "fbclid",
  "msclkid"
]

const reject = (detail: string, problem: "invalid_payload" | "payload_too_large" = "invalid_payload"): Normalized => ({
  _tag: "Rejected",
  problem,
  detail
})

/** Strings as they are; anything else (numbers, objects) as its JSON text, depth-checked first. */
const asText = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(cleanJson(value)))

/** An event name or distinct id as stored: text, cut to its length, storable; throws TooDeep for deep JSON. */
export const nameText = (value: unknown): string => truncate(asText(value), MAX_NAME_LENGTH)

const distinctIdOf = (raw: Record<string, unknown>, properties: Record<string, unknown>): unknown =>
  [raw["distinct_id"], raw["$distinct_id"], properties["distinct_id"]].find(
    (v) => v !== undefined && v !== null && v !== ""
  )

export const normalizeEvent = (raw: unknown, context: NormalizeContext): Normalized => {
  try {
    return normalize(raw, context)
  } catch (error) {
    // Anything nested too deeply to copy or print (names, ids, person updates) is the sender's error.
    if (error instanceof TooDeep || error instanceof RangeError) return reject("the event is nested too deeply")
    throw error
  }
}

const normalize = (raw: unknown, context: NormalizeContext): Normalized => {
  if (!isObject(raw)) return reject("each event must be a JSON object")
  const name = raw["event"] ?? context.defaultEvent
  if (name === undefined || name === null || name === "") return reject("event name is missing")
  if (raw["properties"] !== undefined && raw["properties"] !== null && !isObject(raw["properties"])) {
    return reject("properties must be a JSON object")
  }
  let properties: Record<string, unknown>
  try {
    properties = cleanJson(raw["properties"] ?? {}) as Record<string, unknown>
  } catch (error) {
    if (error instanceof TooDeep) return reject("properties are nested too deeply")
    throw error
  }
  const distinctId = distinctIdOf(raw, properties)
  if (distinctId === undefined) return reject("distinct_id is missing")
  const uuid = raw["uuid"]
  if (uuid !== undefined && uuid !== null && uuid !== "" && (typeof uuid !== "string" || !isUuid(uuid))) {
    return reject(
      `uuid is not a valid UUID: ${typeof uuid === "string" ? JSON.stringify(uuid.slice(0, 60)) : `a ${typeof uuid}`}`
    )
  }

  for (const op of ["$set", "$set_once", "$unset"] as const) {
    const top = raw[op] === undefined || raw[op] === null ? undefined : cleanJson(raw[op])
    if (top === undefined) continue
    if (op === "$unset" && Array.isArray(top)) {
      properties[op] = [...new Set([...(Array.isArray(properties[op]) ? properties[op] : []), ...top])]
    } else if (isObject(top)) {
      properties[op] = { ...(isObject(properties[op]) ? properties[op] : {}), ...top }
    }
  }

  const event = nameText(name)
  const processPerson = properties["$process_person_profile"] !== false
  if (!processPerson) {
    if (PERSON_EVENTS.has(event)) return { _tag: "Dropped" }
    delete properties["$set"]
    delete properties["$set_once"]
    delete properties["$unset"]
  } else {
    delete properties["$process_person_profile"]
    addInitialProperties(properties)
  }

  if (properties["$ip"] === undefined && context.ip !== undefined) properties["$ip"] = context.ip
  if (context.anonymizeIps) delete properties["$ip"]
  if (context.sentAt !== undefined) properties["$sent_at"] = context.sentAt.toISOString()

  const timestamp = eventTimestamp({
    timestamp: raw["timestamp"],
    offset: raw["offset"],
    clockSkew: raw["$clock_skew"] ?? raw["clock_skew"],
    sentAt: context.sentAt,
    ignoreSentAt: properties["$ignore_sent_at"] === true,
    now: context.now,
    historical: context.historical
  })

  const normalized: IncomingEvent = {
    uuid: typeof uuid === "string" && uuid !== "" ? uuid.toLowerCase() : uuidv7(context.now.getTime()),
    event,
    distinct_id: nameText(distinctId),
    properties,
    timestamp,
    received_at: context.now,
    processPerson
  }
  // What normalization adds to an event is small next to the limit, so events of a request well under
  // it need not be serialized to be measured.
  const measured = context.payloadBytes === undefined || context.payloadBytes > MAX_EVENT_BYTES / 2
  if (measured && Buffer.byteLength(JSON.stringify(properties)) > MAX_EVENT_BYTES) {
    return reject(`maximum event size exceeded: ${event} is larger than ${MAX_EVENT_BYTES} bytes`, "payload_too_large")
  }
  return { _tag: "Event", event: normalized }
}

const addInitialProperties = (properties: Record<string, unknown>) => {
  const set = isObject(properties["$set"]) ? { ...properties["$set"] } : {}
  const setOnce = isObject(properties["$set_once"]) ? { ...properties["$set_once"] } : {}
  let changed = false
  for (const key of INITIAL_PROPERTIES) {
    const value = properties[key]
    if (value === undefined) continue
    if (properties["$is_server"] === true && (key === "$os" || key === "$os_version")) continue
    if (!(key in set)) set[key] = value
    const initial = `$initial_${key.replace(/^\$/, "")}`
    if (!(initial in setOnce)) setOnce[initial] = value
    changed = true
  }
  if (changed) {
    properties["$set"] = set
    properties["$set_once"] = setOnce
  }
}

/**
 * `sent_at` from the body, else from the query's `_` (ms); unusable values are ignored, as PostHog
 * ignores them: unparseable, or outside the dates a store holds (1e20, the year 20000).
 */
export const sentAtOf = (bodySentAt: unknown, queryMs: number | undefined): Date | undefined => {
  const fromBody = parseTimestamp(bodySentAt)
  return fromBody !== undefined && isStorableDate(fromBody)
    ? fromBody
    : queryMs === undefined
      ? undefined
      : new Date(queryMs)
}
