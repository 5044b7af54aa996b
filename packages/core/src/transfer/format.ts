import { Data } from "effect"

// The project transfer format (`zed export` / `zed import`): JSON lines, UTF-8. The first line is a
// header naming the format and its version; every other line is one record, `{"type", "data"}`.
// Records come in dependency order (definitions, persons, events, then what refers to ids: actions,
// cohorts, flags, insights, dashboards, annotations), so an import reads the stream once. Dates are
// ISO 8601 strings; ids are the source's, remapped by the import. See docs/operations.md.

export const TRANSFER_FORMAT = "zed-project"
/** Raised when a record's meaning changes; an import refuses a newer version than it knows. */
export const TRANSFER_VERSION = 1

export interface TransferHeader {
  readonly format: typeof TRANSFER_FORMAT
  readonly version: number
  readonly zed_version: string
  readonly exported_at: string
  readonly project: {
    readonly id: number
    readonly name: string
    readonly timezone: string
    /** The project's settings (ProjectSettings fields and test account filters). */
    readonly settings: Record<string, unknown>
  }
}

/** The kinds of record, in the order an export writes them. */
export const RECORD_TYPES = [
  "event_definition",
  "property_definition",
  "person",
  "event",
  "action",
  "cohort",
  "cohort_person",
  "flag",
  "insight",
  "dashboard",
  "annotation"
] as const
export type RecordType = (typeof RECORD_TYPES)[number]

export interface TransferRecord {
  readonly type: RecordType
  readonly data: Record<string, unknown>
}

/** One line of the stream. */
export const transferLine = (value: TransferHeader | TransferRecord): string => JSON.stringify(value) + "\n"

/** The stream cannot be imported: what is wrong and on which line (1-based). */
export class TransferError extends Data.TaggedError("TransferError")<{
  readonly line: number
  readonly detail: string
}> {
  override get message() {
    return `line ${this.line}: ${this.detail}`
  }
}
