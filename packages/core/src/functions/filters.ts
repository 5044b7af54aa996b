import { Schema } from "effect"
import type { Project } from "../domain/models.js"
import { matchProperty } from "../flags/properties.js"
import { PROPERTY_OPERATORS } from "../filters/property.js"

// Which events reach a function: PostHog's hog function `filters`. Matched in JS with the flag
// service's property semantics rather than compiled to Hog: the same answers, without a VM run per
// event and function. Actions are refused (Zed has no actions), so no filter is silently ignored.

const PropertyFilter = Schema.Struct({
  key: Schema.String,
  value: Schema.optional(Schema.Unknown),
  operator: Schema.optional(Schema.Literal(...PROPERTY_OPERATORS)),
  type: Schema.optionalWith(Schema.Literal("event", "person"), { default: () => "event" as const })
}).annotations({ identifier: "FunctionPropertyFilter" })
export type PropertyFilter = typeof PropertyFilter.Type

const EventFilter = Schema.Struct({
  /** The event name; null matches every event. */
  id: Schema.NullOr(Schema.String),
  name: Schema.optional(Schema.NullOr(Schema.String)),
  type: Schema.optional(Schema.Literal("events")),
  order: Schema.optional(Schema.Number),
  properties: Schema.optionalWith(Schema.Array(PropertyFilter), { default: () => [] })
})

const NoActions = Schema.Array(Schema.Unknown).pipe(
  Schema.filter((actions) => actions.length === 0, {
    message: () => "Zed has no actions: filter by events and properties instead."
  })
)

export const FunctionFilters = Schema.Struct(
  {
    events: Schema.optionalWith(Schema.Array(EventFilter), { default: () => [] }),
    actions: Schema.optionalWith(NoActions, { default: () => [] }),
    properties: Schema.optionalWith(Schema.Array(PropertyFilter), { default: () => [] }),
    filter_test_accounts: Schema.optionalWith(Schema.Boolean, { default: () => false })
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
).annotations({
  identifier: "FunctionFilters",
  description:
    "Events that reach the function: `events` (any of them, each with its `properties`; none = every event), `properties` (all must match), `filter_test_accounts` (leave out the project's test accounts)."
})
export type FunctionFilters = typeof FunctionFilters.Type

export interface FilterSubject {
  readonly event: string
  readonly properties: Readonly<Record<string, unknown>>
  /** The person's properties; before storage, the event's `$set` stands for them. */
  readonly person: Readonly<Record<string, unknown>>
}

const matches = (filter: Pick<PropertyFilter, "key" | "value" | "operator" | "type">, subject: FilterSubject) =>
  matchProperty(filter, filter.type === "person" ? subject.person : subject.properties)

/** Whether an event passes a function's filters (absent filters let every event through). */
export const passesFilters = (
  filters: FunctionFilters | null,
  subject: FilterSubject,
  project: Pick<Project, "test_account_filters">
): boolean => {
  if (filters === null) return true
  if (filters.events.length > 0) {
    const hit = filters.events.some(
      (e) => (e.id === null || e.id === subject.event) && e.properties.every((p) => matches(p, subject))
    )
    if (!hit) return false
  }
  if (!filters.properties.every((p) => matches(p, subject))) return false
  return !filters.filter_test_accounts || project.test_account_filters.every((p) => matches(p, subject))
}
