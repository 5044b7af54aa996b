import type { InsightQuery } from "../api.js"
import type { DraftFormProps } from "../insightDraft.js"
import { fields, oneOf, text, type Fields } from "../queryFields.js"
import { Choice, Field } from "./Field.js"

// The retention part of the insight builder: who starts (the target event), what counts as coming
// back (the returning event), by which period and over how many cohorts.

const PERIODS = { Hour: "Hour", Day: "Day", Week: "Week", Month: "Month" } as const

const TYPES = {
  retention_recurring: "Each time they did it (recurring)",
  retention_first_time: "The first time they did it"
} as const

export interface RetentionDraft {
  readonly start: string
  readonly returning: string
  readonly period: keyof typeof PERIODS
  readonly intervals: string
  readonly type: keyof typeof TYPES
}

export const INITIAL_RETENTION: RetentionDraft = {
  start: "$pageview",
  returning: "$pageview",
  period: "Day",
  intervals: "8",
  type: "retention_recurring"
}

/** 1 to 400 cohorts, as the API takes. */
export const retentionComplete = (draft: RetentionDraft) =>
  /^[1-9]\d*$/.test(draft.intervals) && Number(draft.intervals) <= 400

/** An entity of the retention filter: an event, or any event when blank. */
const entity = (event: string) =>
  event.trim() ? { id: event.trim(), name: event.trim(), type: "events" } : { id: null, type: "events" }

/** The draft as PostHog's `InsightVizNode` around a `RetentionQuery`. */
export const retentionQuery = (draft: RetentionDraft): InsightQuery => ({
  kind: "InsightVizNode",
  source: {
    kind: "RetentionQuery",
    retentionFilter: {
      period: draft.period,
      totalIntervals: Number(draft.intervals),
      retentionType: draft.type,
      targetEntity: entity(draft.start),
      returningEntity: entity(draft.returning)
    }
  }
})

/** A stored `RetentionQuery` as the retention builder edits it. */
export const retentionDraft = (source: Fields): RetentionDraft => {
  const retention = fields(source["retentionFilter"])
  return {
    start: text(fields(retention["targetEntity"])["id"]),
    returning: text(fields(retention["returningEntity"])["id"]),
    period: oneOf(retention["period"], PERIODS, "Day"),
    intervals: text(retention["totalIntervals"]),
    type: oneOf(retention["retentionType"], TYPES, "retention_recurring")
  }
}

export const RetentionForm = ({ draft, onChange }: DraftFormProps<RetentionDraft>) => (
  <div className="toolbar">
    <Field
      label="Start event"
      value={draft.start}
      onChange={(start) => onChange({ ...draft, start })}
      placeholder="All events"
    />
    <Field
      label="Returning event"
      value={draft.returning}
      onChange={(returning) => onChange({ ...draft, returning })}
      placeholder="All events"
    />
    <Choice label="Cohort by" value={draft.type} options={TYPES} onChange={(type) => onChange({ ...draft, type })} />
    <Choice
      label="Period"
      value={draft.period}
      options={PERIODS}
      onChange={(period) => onChange({ ...draft, period })}
    />
    <Field
      label="Cohorts"
      type="number"
      min={1}
      max={400}
      value={draft.intervals}
      onChange={(intervals) => onChange({ ...draft, intervals })}
      required
    />
  </div>
)
