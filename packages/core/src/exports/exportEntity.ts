import { Schema } from "effect"
import { withDefaults } from "../schema/defaults.js"

// An export (PostHog's exported asset), declared once (see flags/flagEntity.ts): what to export —
// a query, a persons list or an insight's result — in which format, and how its run ended. The
// content itself is kept beside it in chunks (see ExportStore).

/** The formats an export is written in, by media type. */
export const EXPORT_FORMATS = ["text/csv", "application/json", "application/jsonl"] as const
export type ExportFormat = (typeof EXPORT_FORMATS)[number]

/** What an export is created with. */
const given = {
  export_format: Schema.Literal(...EXPORT_FORMATS),
  /** What is exported: `{query}` (a query API node) or `{path}` (a persons list's URL); the insight's when null. */
  export_context: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  insight: Schema.NullOr(Schema.Int),
  dashboard: Schema.NullOr(Schema.Int),
  filename: Schema.String,
  expires_after: Schema.NullOr(Schema.DateFromSelf),
  created_by: Schema.NullOr(Schema.Int)
}

/** An export as stored: what it was given plus how its run ended. */
export const ExportedAsset = Schema.Struct({
  id: Schema.Int,
  ...given,
  /** The run finished and its content is complete. */
  has_content: Schema.Boolean,
  /** Why the run failed, when it did. */
  exception: Schema.NullOr(Schema.String),
  /** Rows written, and bytes. */
  row_count: Schema.Int,
  content_size: Schema.Int,
  created_at: Schema.DateFromSelf
})
export type StoredExport = typeof ExportedAsset.Type

export const ExportInsert = withDefaults(given, {
  export_context: () => null,
  insight: () => null,
  dashboard: () => null,
  expires_after: () => null,
  created_by: () => null
})
export type NewExport = typeof ExportInsert.Type

/** How a run ended: its content complete (`has_content`), or an exception. */
export interface ExportOutcome {
  readonly has_content: boolean
  readonly exception: string | null
  readonly row_count: number
  readonly content_size: number
}
