import { fromDraft, type PropertyFilter, toDraft } from "../flagModel.js"

// A dynamic cohort's filters as the cohort editor holds them: person properties and nested cohorts
// (as flags' conditions have them, negated by a checkbox or `not_in`), and behaviour read from events
// in PostHog's `type: "behavioral"` shape, which the cohorts API validates.

/** The behaviours the API calculates, with how the editor names them. */
export const BEHAVIOURS = {
  performed_event: "performed event",
  performed_event_multiple: "performed event a number of times",
  performed_event_first_time: "performed event for the first time",
  stopped_performing_event: "stopped performing event",
  restarted_performing_event: "restarted performing event",
  performed_event_sequence: "performed event, then another"
} as const
export type Behaviour = keyof typeof BEHAVIOURS

export const INTERVALS = { minute: "minutes", hour: "hours", day: "days", week: "weeks", month: "months" } as const
export type Interval = keyof typeof INTERVALS

export const COUNT_OPERATORS = { gte: "at least", exact: "exactly", lte: "at most" } as const

/** A behavioural filter as typed: counts and periods as text, read as numbers when saved. */
export interface BehaviourDraft {
  readonly type: "behavioral"
  readonly value: Behaviour
  readonly key: string
  readonly time_value: string
  readonly time_interval: Interval
  readonly operator: keyof typeof COUNT_OPERATORS
  readonly operator_value: string
  readonly seq_event: string
  readonly seq_time_value: string
  readonly seq_time_interval: Interval
  readonly negation: boolean
}

export type PropertyDraft = PropertyFilter & { readonly negation?: boolean }
export type CohortFilterDraft = PropertyDraft | BehaviourDraft

export const isBehaviour = (filter: CohortFilterDraft): filter is BehaviourDraft => filter.type === "behavioral"

export const BLANK_BEHAVIOUR: BehaviourDraft = {
  type: "behavioral",
  value: "performed_event",
  key: "$pageview",
  time_value: "30",
  time_interval: "day",
  operator: "gte",
  operator_value: "1",
  seq_event: "",
  seq_time_value: "1",
  seq_time_interval: "day",
  negation: false
}

/** Which fields a behaviour uses beyond the event and its window. */
export const usesCount = (value: Behaviour) => value === "performed_event_multiple"
export const usesRecent = (value: Behaviour) =>
  value === "stopped_performing_event" || value === "restarted_performing_event"
export const usesSequence = (value: Behaviour) => value === "performed_event_sequence"

/** Typed numbers as numbers; anything else as typed, for the API to refuse beside its field. */
const count = (text: string): unknown => (/^\s*\d+\s*$/.test(text) ? Number(text) : text)

/** A stored filter as the editor holds it. */
export const toCohortDraft = (stored: Record<string, unknown>): CohortFilterDraft => {
  if (stored["type"] !== "behavioral") {
    const draft = toDraft(stored as unknown as PropertyFilter)
    return stored["negation"] === true ? { ...draft, negation: true } : draft
  }
  const text = (field: string, fallback: string) => (stored[field] == null ? fallback : String(stored[field]))
  return {
    ...BLANK_BEHAVIOUR,
    value: stored["value"] as Behaviour,
    key: text("key", ""),
    time_value: text("time_value", ""),
    time_interval: (stored["time_interval"] as Interval | null) ?? BLANK_BEHAVIOUR.time_interval,
    operator: (stored["operator"] as BehaviourDraft["operator"] | null) ?? "gte",
    operator_value: text("operator_value", ""),
    seq_event: text("seq_event", ""),
    seq_time_value: text("seq_time_value", ""),
    seq_time_interval: (stored["seq_time_interval"] as Interval | null) ?? BLANK_BEHAVIOUR.seq_time_interval,
    negation: stored["negation"] === true
  }
}

/** A filter as the API takes it: a behaviour with only the fields its kind uses. */
export const fromCohortDraft = (draft: CohortFilterDraft): Record<string, unknown> => {
  if (!isBehaviour(draft)) {
    const { negation, ...filter } = draft
    return { ...fromDraft(filter), ...(negation === true ? { negation } : {}) }
  }
  const { value } = draft
  return {
    type: "behavioral",
    value,
    key: draft.key,
    event_type: "events",
    time_value: count(draft.time_value),
    time_interval: draft.time_interval,
    ...(usesCount(value) ? { operator: draft.operator, operator_value: count(draft.operator_value) } : {}),
    ...(usesSequence(value) ? { seq_event: draft.seq_event, seq_event_type: "events" } : {}),
    ...(usesRecent(value) || usesSequence(value)
      ? { seq_time_value: count(draft.seq_time_value), seq_time_interval: draft.seq_time_interval }
      : {}),
    negation: draft.negation
  }
}
