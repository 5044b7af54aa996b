import { Schema, Struct } from "effect"
import { withDefaults } from "../schema/defaults.js"

// A saved insight, declared once (see flags/flagEntity.ts): the stored record, the insert form
// with PostHog's defaults and the patch are derived from these fields, as are the API's wire
// fields and the SQL store's columns.

const UserId = Schema.NullOr(Schema.Int)

/** What an insight is created with. */
const given = {
  short_id: Schema.String,
  name: Schema.NullOr(Schema.String),
  derived_name: Schema.NullOr(Schema.String),
  description: Schema.String,
  filters: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  /** The query node exactly as the client sent it (validated where it comes in, the insights API). */
  query: Schema.Unknown,
  order: Schema.NullOr(Schema.Int),
  deleted: Schema.Boolean,
  favorited: Schema.Boolean,
  saved: Schema.Boolean,
  tags: Schema.Array(Schema.String),
  created_by: UserId
}

/** An insight as stored: what it was given plus what the store keeps itself. */
export const Insight = Schema.Struct({
  id: Schema.Int,
  ...given,
  last_modified_by: UserId,
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf,
  last_modified_at: Schema.DateFromSelf
})
export type StoredInsight = typeof Insight.Type

/** Creating an insight: only its short id and author are needed, the rest takes PostHog's default. */
export const InsightInsert = withDefaults(given, {
  name: () => null,
  derived_name: () => null,
  description: () => "",
  filters: () => ({}),
  query: () => null,
  order: () => null,
  deleted: () => false,
  favorited: () => false,
  saved: () => false,
  tags: () => []
})
export type NewInsight = typeof InsightInsert.Type

/** A new insight from what its creator gave, defaults filled in. */
export const newInsight: (input: typeof InsightInsert.Encoded) => NewInsight = Schema.decodeSync(InsightInsert)

/** A change: any given field but the short id and author, who made it, and whether it moves `last_modified_at`. */
export const InsightPatch = Schema.partial(Schema.Struct(Struct.omit(given, "short_id", "created_by"))).pipe(
  Schema.extend(
    Schema.Struct({
      last_modified_by: UserId,
      /** Whether a material field changed, which moves `last_modified_at`. */
      material: Schema.Boolean
    })
  )
)
export type InsightPatch = typeof InsightPatch.Type
