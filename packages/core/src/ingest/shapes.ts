import { isObject } from "../domain/json.js"
// The three body shapes a capture request may carry, tried in this order: an array of events, a
// batch object `{api_key|token, batch, sent_at?, historical_migration?}`, or a single event.

export interface CaptureBatch {
  readonly token: string | undefined
  readonly events: ReadonlyArray<unknown>
  readonly sentAt: unknown
  readonly historical: boolean
}

export type ShapeResult =
  | { readonly _tag: "Batch"; readonly batch: CaptureBatch }
  | { readonly _tag: "Invalid"; readonly problem: "invalid_payload" | "invalid_api_key"; readonly detail: string }

const stringOr = (...values: ReadonlyArray<unknown>): string | undefined =>
  values.find((v): v is string => typeof v === "string" && v !== "")

/** The token an event carries itself. */
export const eventToken = (event: unknown): string | undefined =>
  isObject(event)
    ? stringOr(
        event["token"],
        event["$token"],
        event["api_key"],
        isObject(event["properties"]) ? event["properties"]["token"] : undefined
      )
    : undefined

const tokenOfEvents = (events: ReadonlyArray<unknown>): ShapeResult | string | undefined => {
  const tokens = new Set(events.map(eventToken).filter((t) => t !== undefined))
  if (tokens.size > 1)
    return { _tag: "Invalid", problem: "invalid_api_key", detail: "batch submitted with inconsistent api_key values" }
  return [...tokens][0]
}

export const parseShape = (payload: unknown): ShapeResult => {
  let batch: CaptureBatch
  if (Array.isArray(payload)) {
    const token = tokenOfEvents(payload)
    if (typeof token === "object") return token
    batch = { token, events: payload, sentAt: undefined, historical: false }
  } else if (isObject(payload) && "batch" in payload) {
    if (!Array.isArray(payload["batch"]))
      return { _tag: "Invalid", problem: "invalid_payload", detail: "batch must be an array of events" }
    const own = stringOr(payload["api_key"], payload["token"])
    const token = own ?? tokenOfEvents(payload["batch"])
    if (typeof token === "object") return token
    batch = {
      token,
      events: payload["batch"],
      sentAt: payload["sent_at"],
      historical: payload["historical_migration"] === true
    }
  } else if (isObject(payload)) {
    batch = { token: eventToken(payload), events: [payload], sentAt: payload["sent_at"], historical: false }
  } else {
    return {
      _tag: "Invalid",
      problem: "invalid_payload",
      detail: "request must hold an event, an array of events or a batch"
    }
  }
  if (batch.events.length === 0)
    return { _tag: "Invalid", problem: "invalid_payload", detail: "request holds no event" }
  return { _tag: "Batch", batch }
}

/**
 * Whether a token is even shaped like a project API key: a personal API key (`phx_`) sent by
 * mistake, an empty or huge value, or one with control characters never is.
 */
export const plausibleToken = (token: string): boolean =>
  token.length > 0 && token.length <= 256 && !token.startsWith("phx_") && /^[\x21-\x7e]+$/.test(token)
