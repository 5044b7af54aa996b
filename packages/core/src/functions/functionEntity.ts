import { Schema, Struct } from "effect"
import { withDefaults } from "../schema/defaults.js"

// A zed function, declared once (see flags/flagEntity.ts): the stored record, the insert form with
// PostHog's defaults and the patch are derived from these fields, as are the API's wire fields and
// the SQL store's columns. What comes in (code, inputs, filters, masking) is validated and compiled
// at the edge; the entity takes stored values as they are.

export const FunctionType = Schema.Literal("transformation", "destination")
export type FunctionType = typeof FunctionType.Type

/** One input's stored value; `bytecode` is its compiled template. */
const StoredInput = Schema.Struct({
  value: Schema.Unknown,
  templating: Schema.optional(Schema.Literal("hog", "liquid")),
  bytecode: Schema.optional(Schema.Unknown),
  order: Schema.optional(Schema.Number)
})
export type StoredInput = typeof StoredInput.Type

const InputValues = Schema.Record({ key: Schema.String, value: StoredInput })

/** What a function is created with. */
const given = {
  type: FunctionType,
  name: Schema.String,
  description: Schema.String,
  enabled: Schema.Boolean,
  deleted: Schema.Boolean,
  code: Schema.String,
  bytecode: Schema.Array(Schema.Unknown),
  /** As the client sent it (validated). */
  inputs_schema: Schema.Array(Schema.Unknown),
  /** Values of inputs that are not secret. */
  inputs: InputValues,
  /** Values of secret inputs: kept apart so that no response can carry them. */
  secrets: InputValues,
  filters: Schema.Unknown,
  masking: Schema.Unknown,
  mappings: Schema.NullOr(Schema.Array(Schema.Unknown)),
  icon_url: Schema.NullOr(Schema.String),
  template_id: Schema.NullOr(Schema.String),
  /** Null for a transformation takes the project's highest order plus one. */
  execution_order: Schema.NullOr(Schema.Int),
  created_by: Schema.NullOr(Schema.Int)
}

/** A function as stored: what it was given plus what the store keeps itself. */
export const ZedFunction = Schema.Struct({
  id: Schema.UUID,
  ...given,
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf
})
export type StoredFunction = typeof ZedFunction.Type

/** Creating a function: its type, name, compiled code and author are needed, the rest takes PostHog's default. */
export const FunctionInsert = withDefaults(given, {
  description: () => "",
  enabled: () => false,
  deleted: () => false,
  inputs_schema: () => [],
  inputs: () => ({}),
  secrets: () => ({}),
  filters: () => null,
  masking: () => null,
  mappings: () => null,
  icon_url: () => null,
  template_id: () => null,
  execution_order: () => null
})
export type NewFunction = typeof FunctionInsert.Type

/** A new function from what its creator gave, defaults filled in. */
export const newFunction: (input: typeof FunctionInsert.Encoded) => NewFunction = Schema.decodeSync(FunctionInsert)

/** A change: any given field but the type (fixed once created) and the author. */
export const FunctionPatch = Schema.partial(Schema.Struct(Struct.omit(given, "type", "created_by")))
export type FunctionPatch = typeof FunctionPatch.Type
