import { Schema, Struct } from "effect"
import { withDefaults } from "../schema/defaults.js"
import type { PropertyGroup } from "./model.js"

// A cohort, declared once (see flagEntity.ts): the stored record, the insert form with its
// defaults and the patch are derived from these fields, as are the API's wire fields and the SQL
// store's columns.

/** Validated where it comes in (the cohorts API); stored, it is taken as it is. */
const Properties = Schema.declare((u: unknown): u is PropertyGroup => typeof u === "object" && u !== null)

/** What a cohort is created with. */
const given = {
  name: Schema.String,
  description: Schema.String,
  /** The property definition of a dynamic cohort; null for static ones. */
  properties: Schema.NullOr(Properties),
  is_static: Schema.Boolean,
  created_by: Schema.NullOr(Schema.Int)
}

/** A cohort as stored: what it was given plus what the store keeps itself. */
export const Cohort = Schema.Struct({
  id: Schema.Int,
  ...given,
  deleted: Schema.Boolean,
  version: Schema.Int,
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf,
  /** Members of a static cohort, or of a dynamic one when last calculated (null before). */
  count: Schema.NullOr(Schema.Int),
  /** When a dynamic cohort's membership was last calculated (the calculation's start). */
  last_calculation: Schema.NullOr(Schema.DateFromSelf),
  is_calculating: Schema.Boolean,
  /** Calculations that failed since the last that did not. */
  errors_calculating: Schema.Int
})
export type StoredCohort = typeof Cohort.Type

/** Creating a cohort: a dynamic one, without description unless given. */
export const CohortInsert = withDefaults(given, { description: () => "", is_static: () => false })
export type NewCohort = typeof CohortInsert.Type

/** A new cohort from what its creator gave, defaults filled in. */
export const newCohort: (input: typeof CohortInsert.Encoded) => NewCohort = Schema.decodeSync(CohortInsert)

/** A change: its name, description or properties, or soft deletion. */
export const CohortPatch = Schema.partial(Schema.Struct(Struct.pick(given, "name", "description", "properties"))).pipe(
  Schema.extend(Schema.Struct({ deleted: Schema.optional(Schema.Boolean) }))
)
export type CohortPatch = typeof CohortPatch.Type
