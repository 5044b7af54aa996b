import { Schema, Struct } from "effect"
import { withDefaults } from "../schema/defaults.js"
import type { FlagFilters } from "./model.js"

// A feature flag, declared once. The stored record, what creating one takes (with PostHog's
// defaults), what a change may hold, and the fields the API and SDKs show are derived from these
// fields, as is the SQL store's column list: a new field is one line here plus its migration.

/** Filters are validated where they come in (the flags API); stored, they are taken as they are. */
const Filters = Schema.declare((u: unknown): u is FlagFilters => typeof u === "object" && u !== null)
const Tags = Schema.Array(Schema.String)
const UserId = Schema.NullOr(Schema.Int)

/** What a flag is created with. */
const given = {
  key: Schema.String,
  name: Schema.String,
  filters: Filters,
  active: Schema.Boolean,
  ensure_experience_continuity: Schema.Boolean,
  bucketing_identifier: Schema.NullOr(Schema.Literal("distinct_id", "device_id")),
  evaluation_runtime: Schema.Literal("server", "client", "all"),
  evaluation_contexts: Tags,
  tags: Tags,
  created_by: UserId
}

/** A flag as stored: what it was given plus what the store keeps itself. */
export const Flag = Schema.Struct({
  id: Schema.Int,
  ...given,
  deleted: Schema.Boolean,
  version: Schema.Int,
  has_experiment: Schema.Boolean,
  last_modified_by: UserId,
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf
})
export type StoredFlag = typeof Flag.Type

/** What the evaluator reads of a flag. */
export type FlagDefinition = Omit<StoredFlag, "tags" | "created_by" | "last_modified_by" | "created_at" | "updated_at">

/** Creating a flag: anything but the key and author may be left out and takes PostHog's default. */
export const FlagInsert = withDefaults(given, {
  name: () => "",
  filters: () => ({}),
  active: () => true,
  ensure_experience_continuity: () => false,
  bucketing_identifier: () => null,
  evaluation_runtime: () => "all",
  evaluation_contexts: () => [],
  tags: () => []
})
export type NewFlag = typeof FlagInsert.Type

/** A new flag from what its creator gave, defaults filled in. */
export const newFlag: (input: typeof FlagInsert.Encoded) => NewFlag = Schema.decodeSync(FlagInsert)

/** A change: any given field but the author, soft deletion, and who made it. */
export const FlagPatch = Schema.partial(Schema.Struct(Struct.omit(given, "created_by"))).pipe(
  Schema.extend(Schema.Struct({ deleted: Schema.optional(Schema.Boolean), last_modified_by: UserId }))
)
export type FlagPatch = typeof FlagPatch.Type
