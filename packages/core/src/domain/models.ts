import { Schema } from "effect"
import { PROPERTY_OPERATORS } from "../filters/property.js"

export const Organization = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  /** Flag evaluations allowed per calendar month; null = unlimited. */
  flag_evaluation_quota: Schema.NullOr(Schema.Int),
  created_at: Schema.Date
}).annotations({ identifier: "Organization" })
export type Organization = typeof Organization.Type

/** Switches of a project that ingestion and the SDKs' remote config read (PostHog's names). */
export const ProjectSettings = Schema.Struct({
  anonymize_ips: Schema.Boolean.annotations({ description: "Drop the client IP (`$ip`) from captured events." }),
  autocapture_opt_out: Schema.Boolean.annotations({
    description: "Turn off posthog-js autocapture of clicks and form changes."
  }),
  autocapture_exceptions_opt_in: Schema.Boolean.annotations({
    description: "Let posthog-js capture uncaught exceptions."
  }),
  capture_console_log_opt_in: Schema.Boolean.annotations({
    description: "Record browser console logs with session recordings."
  }),
  capture_performance_opt_in: Schema.Boolean.annotations({
    description: "Record network timing with session recordings."
  }),
  capture_dead_clicks: Schema.Boolean.annotations({
    description: "Let posthog-js capture clicks that change nothing."
  }),
  heatmaps_opt_in: Schema.Boolean.annotations({ description: "Let posthog-js collect heatmap data." }),
  session_recording_opt_in: Schema.Boolean.annotations({
    description: "Record sessions with posthog-js (sent to `/s/`)."
  })
})
export type ProjectSettings = typeof ProjectSettings.Type

/** Everything off: a new project records nothing beyond what its SDK sends. */
export const DEFAULT_SETTINGS: ProjectSettings = {
  anonymize_ips: false,
  autocapture_opt_out: false,
  autocapture_exceptions_opt_in: false,
  capture_console_log_opt_in: false,
  capture_performance_opt_in: false,
  capture_dead_clicks: false,
  heatmaps_opt_in: false,
  session_recording_opt_in: false
}

/** A filter that tells a test account's events or person (PostHog's `test_account_filters`). */
export const TestAccountFilter = Schema.Struct({
  key: Schema.String,
  value: Schema.optional(Schema.Unknown),
  operator: Schema.optional(Schema.Literal(...PROPERTY_OPERATORS)),
  type: Schema.Literal("event", "person")
}).annotations({ identifier: "TestAccountFilter" })

/** A project (1:1 with an environment) and its public project API key. */
export const Project = Schema.Struct({
  id: Schema.Int,
  uuid: Schema.UUID,
  organization: Schema.UUID,
  project_id: Schema.Int,
  api_token: Schema.String,
  name: Schema.String,
  timezone: Schema.String,
  is_demo: Schema.Boolean,
  ingested_event: Schema.Boolean,
  ...ProjectSettings.fields,
  test_account_filters: Schema.Array(TestAccountFilter).annotations({
    description: "What `filter_test_accounts` leaves out: event or person property filters."
  }),
  created_at: Schema.Date,
  updated_at: Schema.Date
}).annotations({ identifier: "Project" })
export type Project = typeof Project.Type

/** The user object embedded as `created_by` / `last_modified_by`. */
export const UserBasic = Schema.Struct({
  id: Schema.Int,
  uuid: Schema.UUID,
  distinct_id: Schema.String,
  first_name: Schema.String,
  last_name: Schema.String,
  email: Schema.String,
  is_email_verified: Schema.Boolean,
  hedgehog_config: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  role_at_organization: Schema.NullOr(Schema.String)
}).annotations({ identifier: "UserBasic" })

export interface User extends Schema.Schema.Type<typeof UserBasic> {
  readonly organization_id: string
  readonly current_project_id: number | null
  readonly is_active: boolean
  /** Membership level in the organization (`MembershipLevel`). */
  readonly level: number
  readonly date_joined: Date
}

/** Organization membership levels, as PostHog numbers them. */
export const MembershipLevel = { member: 1, admin: 8, owner: 15 } as const
export type MembershipLevel = (typeof MembershipLevel)[keyof typeof MembershipLevel]

/** An invitation to join an organization, accepted by following its link. */
export interface Invite {
  readonly id: string
  readonly organization_id: string
  readonly target_email: string
  readonly first_name: string
  readonly level: MembershipLevel
  readonly created_by: number | null
  readonly created_at: Date
}

export interface PersonalApiKey {
  readonly id: string
  readonly user_id: number
  readonly label: string
  readonly mask_value: string
  readonly secure_value: string
  readonly scopes: ReadonlyArray<string>
  /** Projects the key may act on; null means every project of the owner's organization. */
  readonly scoped_teams: ReadonlyArray<number> | null
  /** Organizations the key may act on; null means the owner's. */
  readonly scoped_organizations: ReadonlyArray<string> | null
  readonly created_at: Date
  readonly last_used_at: Date | null
  readonly last_rolled_at: Date | null
}
