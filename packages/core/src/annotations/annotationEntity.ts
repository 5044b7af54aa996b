import { Schema, Struct } from "effect"
import { withDefaults } from "../schema/defaults.js"

// An annotation, declared once (see flags/flagEntity.ts): a note on a date that charts show. The
// stored record, the insert form with PostHog's defaults and the patch are derived from these
// fields, as are the API's wire fields and the SQL store's columns.

/**
 * Where an annotation shows: on one insight (`dashboard_item`), on one dashboard's insights, on the
 * project's, or on every project's of its organization.
 */
export const ANNOTATION_SCOPES = ["dashboard_item", "dashboard", "project", "organization"] as const
/** Made by a user, or by a deploy (PostHog's `GIT`). */
export const CREATION_TYPES = ["USR", "GIT"] as const

/** What an annotation is created with. */
const given = {
  content: Schema.NullOr(Schema.String),
  date_marker: Schema.NullOr(Schema.DateFromSelf),
  creation_type: Schema.Literal(...CREATION_TYPES),
  /** The insight it is on, for the insight scope. */
  dashboard_item: Schema.NullOr(Schema.Int),
  /** The dashboard it is on, for the dashboard scope. */
  dashboard_id: Schema.NullOr(Schema.Int),
  scope: Schema.Literal(...ANNOTATION_SCOPES),
  created_by: Schema.NullOr(Schema.Int)
}

/** An annotation as stored: what it was given plus what the store keeps itself. */
export const Annotation = Schema.Struct({
  id: Schema.Int,
  ...given,
  deleted: Schema.Boolean,
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf
})
export type StoredAnnotation = typeof Annotation.Type

/** Creating an annotation: the project's, by a user, unless said otherwise. */
export const AnnotationInsert = withDefaults(given, {
  content: () => null,
  date_marker: () => null,
  creation_type: () => "USR" as const,
  dashboard_item: () => null,
  dashboard_id: () => null,
  scope: () => "project" as const,
  created_by: () => null
})
export type NewAnnotation = typeof AnnotationInsert.Type

/** A new annotation from what its creator gave, defaults filled in. */
export const newAnnotation: (input: typeof AnnotationInsert.Encoded) => NewAnnotation =
  Schema.decodeSync(AnnotationInsert)

/** A change: its content, date or where it shows, or soft deletion. */
export const AnnotationPatch = Schema.partial(
  Schema.Struct(Struct.pick(given, "content", "date_marker", "dashboard_item", "dashboard_id", "scope"))
).pipe(Schema.extend(Schema.Struct({ deleted: Schema.optional(Schema.Boolean) })))
export type AnnotationPatch = typeof AnnotationPatch.Type
