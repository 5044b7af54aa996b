import { Schema } from "effect"

/** Fields any PostHog query node may carry that do not change what it answers. */
export const PASSED_FIELDS = {
  modifiers: Schema.optional(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  response: Schema.optional(Schema.Unknown),
  tags: Schema.optional(Schema.Unknown)
}
