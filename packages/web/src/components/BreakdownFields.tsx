import { fields, oneOf, text } from "../queryFields.js"
import { Choice, Field } from "./Field.js"

/** What a breakdown may be by, as the query API's `breakdown_type` names it. */
export const BREAKDOWN_TYPES = { event: "Event property", person: "Person property" } as const

export interface BreakdownDraft {
  readonly breakdown: string
  readonly breakdownType: keyof typeof BREAKDOWN_TYPES
}

/** A stored query source's breakdown. */
export const breakdownDraft = (source: Readonly<Record<string, unknown>>): BreakdownDraft => {
  const filter = fields(source["breakdownFilter"])
  return {
    breakdown: text(filter["breakdown"]),
    breakdownType: oneOf(filter["breakdown_type"], BREAKDOWN_TYPES, "event")
  }
}

/** The breakdown's type and property, edited in place in a builder's draft. */
export const BreakdownFields = <D extends BreakdownDraft>({
  draft,
  onChange
}: {
  readonly draft: D
  readonly onChange: (draft: D) => void
}) => (
  <>
    <Choice
      label="Breakdown type"
      value={draft.breakdownType}
      options={BREAKDOWN_TYPES}
      onChange={(breakdownType) => onChange({ ...draft, breakdownType })}
    />
    <Field
      label="Breakdown by"
      value={draft.breakdown}
      onChange={(breakdown) => onChange({ ...draft, breakdown })}
      placeholder="$browser"
    />
  </>
)
