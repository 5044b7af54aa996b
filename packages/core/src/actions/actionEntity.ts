import { Schema, Struct } from "effect"
import { PropertyFilter } from "../filters/property.js"
import { withDefaults } from "../schema/defaults.js"

// An action, declared once (see flags/flagEntity.ts): a named set of steps, any of which an event
// may match. The stored record, the insert form with PostHog's defaults and the patch are derived
// from these fields, as are the API's wire fields and the SQL store's columns.

/** How a step's URL, text or link is compared. */
export const MATCHINGS = ["exact", "contains", "regex"] as const
const Matching = Schema.NullOr(Schema.Literal(...MATCHINGS))

/** One way to match an event: every condition given must hold. */
export const ActionStep = Schema.Struct({
  event: Schema.NullOr(Schema.String),
  /** The page's URL (`$current_url`). */
  url: Schema.NullOr(Schema.String),
  url_matching: Matching,
  /** From autocapture's elements chain: the element's text, link, tag and a CSS selector. */
  text: Schema.NullOr(Schema.String),
  text_matching: Matching,
  href: Schema.NullOr(Schema.String),
  href_matching: Matching,
  selector: Schema.NullOr(Schema.String),
  tag_name: Schema.NullOr(Schema.String),
  properties: Schema.NullOr(Schema.Array(PropertyFilter))
})
export type ActionStep = typeof ActionStep.Type

/** What an action is created with. */
const given = {
  name: Schema.String,
  description: Schema.String,
  tags: Schema.Array(Schema.String),
  steps: Schema.Array(ActionStep),
  post_to_slack: Schema.Boolean,
  slack_message_format: Schema.String,
  created_by: Schema.NullOr(Schema.Int)
}

/** An action as stored: what it was given plus what the store keeps itself. */
export const Action = Schema.Struct({
  id: Schema.Int,
  ...given,
  deleted: Schema.Boolean,
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf
})
export type StoredAction = typeof Action.Type

/** Creating an action: no description, tags or Slack message unless given. */
export const ActionInsert = withDefaults(given, {
  description: () => "",
  tags: () => [],
  post_to_slack: () => false,
  slack_message_format: () => "",
  created_by: () => null
})
export type NewAction = typeof ActionInsert.Type

/** A new action from what its creator gave, defaults filled in. */
export const newAction: (input: typeof ActionInsert.Encoded) => NewAction = Schema.decodeSync(ActionInsert)

/** A change: any given field but its creator, or soft deletion. */
export const ActionPatch = Schema.partial(
  Schema.Struct(Struct.omit(given, "created_by")).pipe(Schema.extend(Schema.Struct({ deleted: Schema.Boolean })))
)
export type ActionPatch = typeof ActionPatch.Type
