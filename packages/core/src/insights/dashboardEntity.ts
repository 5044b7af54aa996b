import { Schema } from "effect"
import { withDefaults } from "../schema/defaults.js"

// A dashboard, declared once (see flags/flagEntity.ts): the stored record and the insert form with
// its defaults are derived from these fields, as are the API's wire fields and the SQL store's
// columns. Dashboards are not changed once made, so there is no patch.

/** What a dashboard is created with. */
const given = {
  name: Schema.String,
  description: Schema.String,
  /** `date_from`, `date_to`, `properties`: applied to insights viewed from the dashboard. */
  filters: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  created_by: Schema.NullOr(Schema.Int)
}

/** A dashboard as stored: what it was given plus what the store keeps itself. */
export const Dashboard = Schema.Struct({ id: Schema.Int, ...given, created_at: Schema.DateFromSelf })
export type StoredDashboard = typeof Dashboard.Type

/** Creating a dashboard: unnamed, without description or filters unless given. */
export const DashboardInsert = withDefaults(given, {
  name: () => "",
  description: () => "",
  filters: () => ({})
})
export type NewDashboard = typeof DashboardInsert.Type

/** A new dashboard from what its creator gave, defaults filled in. */
export const newDashboard: (input: typeof DashboardInsert.Encoded) => NewDashboard = Schema.decodeSync(DashboardInsert)
