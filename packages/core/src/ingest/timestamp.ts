import { isStorableDate } from "../domain/dates.js"

// Event timestamps arrive as ISO-8601/RFC 3339 strings (also with `+03` offsets or date only) or as
// epoch numbers, from clocks that may be wrong.

const MAX_FUTURE_MS = 23 * 60 * 60 * 1000
const EPOCH = new Date(0)

const SHORT_OFFSET = /([+-]\d{2})$/

/** A time in any of those forms; undefined for anything else, and for numbers past JavaScript's dates (1e20). */
export const parseTimestamp = (value: unknown): Date | undefined => {
  if (typeof value === "number" && Number.isFinite(value)) {
    // Seconds or milliseconds since the epoch: 1e11 s is the year 5138, 1e11 ms is 1973.
    const date = new Date(Math.abs(value) < 1e11 ? value * 1000 : value)
    return Number.isNaN(date.getTime()) ? undefined : date
  }
  if (typeof value !== "string" || value.trim() === "") return undefined
  const text = value.trim()
  if (/^-?\d+(\.\d+)?$/.test(text)) return parseTimestamp(Number(text))
  const ms = Date.parse(SHORT_OFFSET.test(text) && text.includes("T") ? `${text}:00` : text)
  return Number.isNaN(ms) ? undefined : new Date(ms)
}

export interface TimestampInput {
  readonly timestamp: unknown
  readonly offset: unknown
  readonly clockSkew: unknown
  readonly sentAt: Date | undefined
  readonly ignoreSentAt: boolean
  readonly now: Date
  /** Historical imports keep timestamps exactly as given. */
  readonly historical: boolean
}

/**
 * When the event happened: its timestamp corrected by the difference between the server's clock
 * and the sender's (`sent_at`), or `now - offset`; never more than 23 hours ahead of now.
 */
export const eventTimestamp = (input: TimestampInput): Date => {
  const { now } = input
  const given = parseTimestamp(input.timestamp)
  if (input.historical && given !== undefined) return inRange(given)
  let ts = now.getTime()
  if (given !== undefined) {
    ts =
      input.sentAt !== undefined && !input.ignoreSentAt
        ? now.getTime() + (given.getTime() - input.sentAt.getTime())
        : given.getTime()
  }
  if (typeof input.offset === "number" && Number.isFinite(input.offset)) ts = now.getTime() - input.offset
  if (typeof input.clockSkew === "number" && Number.isFinite(input.clockSkew)) ts += input.clockSkew
  if (ts > now.getTime() + MAX_FUTURE_MS) ts = now.getTime()
  return inRange(new Date(ts))
}

const inRange = (date: Date): Date => (isStorableDate(date) ? date : EPOCH)
