import { Schema, Struct } from "effect"
import { withDefaults } from "../schema/defaults.js"

// A dashboard, declared once (see flags/flagEntity.ts): the stored record, the insert form with
// its defaults and the patch are derived from these fields, as are the API's wire fields and the
// SQL store's columns.

/** What a dashboard is created with. */
const given = {
  name: Schema.String,
  description: Schema.String,
  /** `date_from`, `date_to`, `properties`: applied to insights viewed from the dashboard. */
  filters: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  pinned: Schema.Boolean,
  tags: Schema.Array(Schema.String),
  deleted: Schema.Boolean,
  created_by: Schema.NullOr(Schema.Int)
}

/** A dashboard as stored: what it was given plus what the store keeps itself. */
export const Dashboard = Schema.Struct({ id: Schema.Int, ...given, created_at: Schema.DateFromSelf })
export type StoredDashboard = typeof Dashboard.Type

/** Creating a dashboard: unnamed, without description or filters unless given. */
export const DashboardInsert = withDefaults(given, {
  name: () => "",
  description: () => "",
  filters: () => ({}),
  pinned: () => false,
  tags: () => [],
  deleted: () => false
})
export type NewDashboard = typeof DashboardInsert.Type

/** A new dashboard from what its creator gave, defaults filled in. */
export const newDashboard: (input: typeof DashboardInsert.Encoded) => NewDashboard = Schema.decodeSync(DashboardInsert)

/** A change: any given field but the author. */
export const DashboardPatch = Schema.partial(Schema.Struct(Struct.omit(given, "created_by")))
export type DashboardPatch = typeof DashboardPatch.Type

/** Where a tile sits at one screen size (PostHog's `sm`, `xs`): grid columns and rows. */
export const TileLayout = Schema.Struct({
  x: Schema.Int.pipe(Schema.nonNegative()),
  y: Schema.Int.pipe(Schema.nonNegative()),
  w: Schema.Int.pipe(Schema.between(1, 12)),
  h: Schema.Int.pipe(Schema.between(1, 100))
}).annotations({ identifier: "TileLayout" })

/** A tile's layout per screen size. */
export const TileLayouts = Schema.Record({ key: Schema.String, value: TileLayout }).annotations({
  identifier: "TileLayouts"
})
export type TileLayouts = typeof TileLayouts.Type
