import { Schema } from "effect"
import { parseDateText } from "../domain/dateText.js"
import { dateTime } from "../insights/planners/statements.js"
import type * as A from "../zedql/ast.js"
import * as Q from "../zedql/build.js"
import type { FlagPropertyFilter } from "./model.js"

// Behavioural cohort filters, in PostHog's shape (`type: "behavioral"`): what a person did, read from
// events with one ZedQL statement per filter answering the uuids of the persons who did it. Windows
// end now; a person with no matching event at all never matches (as in PostHog).

export const BEHAVIOURS = [
  "performed_event",
  "performed_event_multiple",
  "performed_event_first_time",
  "stopped_performing_event",
  "restarted_performing_event",
  "performed_event_sequence"
] as const

const INTERVALS = ["minute", "hour", "day", "week", "month", "year"] as const
type Interval = (typeof INTERVALS)[number]

/** A count or period length. */
const Count = Schema.Int.pipe(Schema.nonNegative())
/** An event's name, or an action's id as text. */
const Subject = Schema.String
const EventType = Schema.Literal("events", "actions")

export const BehaviouralFilter = Schema.Struct({
  type: Schema.Literal("behavioral"),
  value: Schema.Literal(...BEHAVIOURS),
  /** The event's name, or the action's id with `event_type: "actions"`. */
  key: Subject,
  event_type: Schema.optional(EventType),
  time_value: Schema.optional(Schema.NullOr(Count)),
  time_interval: Schema.optional(Schema.NullOr(Schema.Literal(...INTERVALS))),
  /** The window's start instead of `time_value`: a date, or relative text such as `-30d`. */
  explicit_datetime: Schema.optional(Schema.NullOr(Schema.String)),
  operator: Schema.optional(Schema.Literal("exact", "eq", "gte", "lte", "gt", "lt")),
  operator_value: Schema.optional(Schema.NullOr(Count)),
  seq_event: Schema.optional(Schema.NullOr(Subject)),
  seq_event_type: Schema.optional(Schema.NullOr(EventType)),
  seq_time_value: Schema.optional(Schema.NullOr(Count)),
  seq_time_interval: Schema.optional(Schema.NullOr(Schema.Literal(...INTERVALS))),
  negation: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "BehaviouralCohortFilter" })
export type BehaviouralFilter = typeof BehaviouralFilter.Type

/** A filter's problem that its schema cannot see: which field, and why. */
export interface Problem {
  readonly field: string
  readonly detail: string
}

const windowOf = (value: unknown, interval: unknown) => value != null && interval != null

/** What a behavioural filter lacks for its kind, or an unreadable date; undefined when it is whole. */
export const behaviourProblem = (f: BehaviouralFilter, timezone: string, now: Date): Problem | undefined => {
  if (f.event_type === "actions" && !/^\d+$/.test(f.key))
    return { field: "key", detail: "An action filter's key is the action's id." }
  if (f.explicit_datetime != null && parseDateText(f.explicit_datetime, timezone, now) === undefined)
    return { field: "explicit_datetime", detail: `"${f.explicit_datetime}" is not a date.` }
  const timed = f.explicit_datetime != null || windowOf(f.time_value, f.time_interval)
  if (!timed) return { field: "time_value", detail: `${f.value} needs time_value and time_interval.` }
  if (f.value === "performed_event_multiple" && f.operator_value == null)
    return { field: "operator_value", detail: "performed_event_multiple needs operator_value, the count." }
  const sequenced =
    f.value === "performed_event_sequence" ||
    f.value === "stopped_performing_event" ||
    f.value === "restarted_performing_event"
  if (sequenced && !windowOf(f.seq_time_value, f.seq_time_interval))
    return { field: "seq_time_value", detail: `${f.value} needs seq_time_value and seq_time_interval.` }
  if (f.value === "performed_event_sequence" && f.seq_event == null)
    return { field: "seq_event", detail: "performed_event_sequence needs seq_event, the event that follows." }
  if (f.seq_event_type === "actions" && !/^\d+$/.test(f.seq_event ?? ""))
    return { field: "seq_event", detail: "An action's id is its key." }
  if (f.value === "stopped_performing_event" || f.value === "restarted_performing_event") {
    const [start, recent] = [windowStart(f, timezone, now), since(now, f.seq_time_value!, f.seq_time_interval!)]
    if (recent <= start)
      return { field: "seq_time_value", detail: "The recent period (seq_time_value) must be shorter than time_value." }
  }
  return undefined
}

/** `now` less `count` intervals (months and years by the calendar, in UTC). */
const since = (now: Date, count: number, interval: Interval): number => {
  const d = new Date(now)
  switch (interval) {
    case "minute":
      return d.getTime() - count * 60_000
    case "hour":
      return d.getTime() - count * 3_600_000
    case "day":
      return d.getTime() - count * 86_400_000
    case "week":
      return d.getTime() - count * 7 * 86_400_000
    case "month":
      return d.setUTCMonth(d.getUTCMonth() - count)
    case "year":
      return d.setUTCFullYear(d.getUTCFullYear() - count)
  }
}

const lengthMs = (count: number, interval: Interval): number => {
  const origin = new Date(Date.UTC(2000, 0, 1))
  return origin.getTime() - since(origin, count, interval)
}

/** Where the filter's window starts, in epoch milliseconds. */
const windowStart = (f: BehaviouralFilter, timezone: string, now: Date): number =>
  f.explicit_datetime != null
    ? Number(parseDateText(f.explicit_datetime, timezone, now)! / 1_000_000n)
    : since(now, f.time_value!, f.time_interval!)

const matching = (subject: string, type: "events" | "actions" | null | undefined): A.Expr =>
  type === "actions" ? Q.expr`matchesAction(${Number(subject)})` : Q.expr`event = ${subject}`

const COMPARISONS = { exact: "=", eq: "=", gte: ">=", lte: "<=", gt: ">", lt: "<" } as const

const countIs = (operator: keyof typeof COMPARISONS, n: number): A.Expr => {
  switch (COMPARISONS[operator]) {
    case "=":
      return Q.expr`count() = ${n}`
    case ">=":
      return Q.expr`count() >= ${n}`
    case "<=":
      return Q.expr`count() <= ${n}`
    case ">":
      return Q.expr`count() > ${n}`
    case "<":
      return Q.expr`count() < ${n}`
  }
}

/** The statement answering the uuids of the persons who did what the filter asks (its negation aside). */
export const behaviourQuery = (f: BehaviouralFilter, timezone: string, now: Date): A.SelectLike => {
  const event = matching(f.key, f.event_type)
  const start = dateTime(windowStart(f, timezone, now))
  switch (f.value) {
    case "performed_event":
      return Q.select`SELECT DISTINCT person_id FROM events WHERE ${event} AND timestamp >= ${start}`
    case "performed_event_multiple":
      return Q.select`SELECT person_id FROM events WHERE ${event} AND timestamp >= ${start}
        GROUP BY person_id HAVING ${countIs(f.operator ?? "exact", f.operator_value!)}`
    case "performed_event_first_time":
      return Q.select`SELECT person_id FROM events WHERE ${event} GROUP BY person_id HAVING min(timestamp) >= ${start}`
    case "stopped_performing_event": {
      const recent = dateTime(since(now, f.seq_time_value!, f.seq_time_interval!))
      return Q.select`SELECT person_id FROM events WHERE ${event} AND timestamp >= ${start}
        GROUP BY person_id HAVING countIf(timestamp >= ${recent}) = 0`
    }
    case "restarted_performing_event": {
      const recent = dateTime(since(now, f.seq_time_value!, f.seq_time_interval!))
      return Q.select`SELECT person_id FROM events WHERE ${event} GROUP BY person_id
        HAVING countIf(timestamp < ${start}) > 0 AND countIf(timestamp >= ${start} AND timestamp < ${recent}) = 0
          AND countIf(timestamp >= ${recent}) > 0`
    }
    case "performed_event_sequence": {
      // The first event in the window, then the second after it within seq_time_value.
      const next = matching(f.seq_event!, f.seq_event_type)
      const seconds = Math.round(lengthMs(f.seq_time_value!, f.seq_time_interval!) / 1000)
      return Q.select`SELECT a.person_id FROM (SELECT person_id, timestamp AS at FROM events WHERE ${event} AND timestamp >= ${start}) AS a
        INNER JOIN (SELECT person_id, timestamp AS at FROM events WHERE ${next} AND timestamp >= ${start}) AS b
        ON a.person_id = b.person_id
        WHERE b.at > a.at AND dateDiff('second', a.at, b.at) <= ${seconds} GROUP BY a.person_id`
    }
  }
}

/** Whether a cohort filter is a behavioural one (as stored: validated when it came in). */
export const isBehavioural = (filter: FlagPropertyFilter): filter is FlagPropertyFilter & BehaviouralFilter =>
  filter.type === "behavioral"

/** One key per distinct behavioural filter, so each is read from events once per calculation. */
export const behaviourKey = ({ negation: _, ...filter }: FlagPropertyFilter): string =>
  JSON.stringify(filter, Object.keys(filter).sort())
