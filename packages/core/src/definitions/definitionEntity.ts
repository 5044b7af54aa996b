import { Schema } from "effect"

// Event and property definitions, declared once: what ingestion records (a name, a property's owner
// and type, when an event was last seen) plus what users describe them by. The patches derive from
// these fields; the API's wire shapes pick from them.

export const PROPERTY_TYPES = ["String", "Numeric", "Boolean", "DateTime"] as const
/** What a property's values are, as ingestion first saw them (PostHog's `property_type`). */
export type PropertyType = (typeof PROPERTY_TYPES)[number]

export const PropertyOwner = Schema.Literal("event", "person", "group")
export type PropertyOwner = typeof PropertyOwner.Type

/** What users describe a definition by. */
const described = {
  description: Schema.String,
  tags: Schema.Array(Schema.String),
  verified: Schema.Boolean,
  hidden: Schema.Boolean
}

/** An event name of a project, as stored. */
export const EventDefinition = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  ...described,
  created_at: Schema.DateFromSelf,
  /** When ingestion last recorded it (to the hour: see ingest/seenEvents.ts). */
  last_seen_at: Schema.NullOr(Schema.DateFromSelf),
  updated_at: Schema.NullOr(Schema.DateFromSelf),
  verified_at: Schema.NullOr(Schema.DateFromSelf)
})
export type StoredEventDefinition = typeof EventDefinition.Type

/** A property of a project's events, persons or groups, as stored. */
export const PropertyDefinitionRecord = Schema.Struct({
  id: Schema.String,
  owner: PropertyOwner,
  key: Schema.String,
  propertyType: Schema.Literal(...PROPERTY_TYPES),
  groupTypeIndex: Schema.NullOr(Schema.Int),
  ...described,
  updated_at: Schema.NullOr(Schema.DateFromSelf),
  verified_at: Schema.NullOr(Schema.DateFromSelf)
})
export type StoredPropertyDefinition = typeof PropertyDefinitionRecord.Type

const patchable = { ...described, verified_at: EventDefinition.fields.verified_at }

/** A change to what users describe a definition by, with when it was verified (see `verification`). */
export const DefinitionPatch = Schema.partial(Schema.Struct(patchable))
export type DefinitionPatch = typeof DefinitionPatch.Type

/** A change to a property definition: what describes it, and its type. */
export const PropertyDefinitionPatch = Schema.partial(
  Schema.Struct({ ...patchable, propertyType: PropertyDefinitionRecord.fields.propertyType })
)
export type PropertyDefinitionPatch = typeof PropertyDefinitionPatch.Type

/** When a change makes a definition verified: now if it verifies it, never if it unverifies it, else as it was. */
export const verification = (
  current: { readonly verified: boolean },
  verified: boolean | undefined,
  now: Date
): { readonly verified_at?: Date | null } =>
  verified === undefined || verified === current.verified ? {} : { verified_at: verified ? now : null }
