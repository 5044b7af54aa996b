import { Effect, Option, Schema } from "effect"
import type { User } from "../../domain/models.js"
import { OrganizationStore } from "../../services/OrganizationStore.js"
import { ProjectStore } from "../../services/ProjectStore.js"

const OrganizationRef = Schema.Struct({ id: Schema.String, name: Schema.String })

/** The signed-in user as the web app reads it (`/api/users/@me/`), with the current project as `team`. */
export const Me = Schema.Struct({
  id: Schema.Int,
  uuid: Schema.String,
  distinct_id: Schema.String,
  first_name: Schema.String,
  last_name: Schema.String,
  email: Schema.String,
  is_staff: Schema.Boolean,
  date_joined: Schema.Date,
  organization: Schema.NullOr(Schema.Struct({ ...OrganizationRef.fields, membership_level: Schema.Int })),
  organizations: Schema.Array(OrganizationRef),
  team: Schema.NullOr(
    Schema.Struct({
      id: Schema.Int,
      uuid: Schema.String,
      name: Schema.String,
      api_token: Schema.String,
      timezone: Schema.String
    })
  )
}).annotations({ identifier: "Me" })

export const presentMe = (user: User) =>
  Effect.gen(function* () {
    const organization = Option.getOrNull(yield* (yield* OrganizationStore).get(user.organization_id))
    const project =
      user.current_project_id === null
        ? null
        : Option.getOrNull(yield* (yield* ProjectStore).get(user.current_project_id))
    return {
      id: user.id,
      uuid: user.uuid,
      distinct_id: user.distinct_id,
      first_name: user.first_name,
      last_name: user.last_name,
      email: user.email,
      is_staff: false,
      date_joined: user.date_joined,
      organization:
        organization === null ? null : { id: organization.id, name: organization.name, membership_level: user.level },
      organizations: organization === null ? [] : [{ id: organization.id, name: organization.name }],
      team:
        project === null
          ? null
          : {
              id: project.id,
              uuid: project.uuid,
              name: project.name,
              api_token: project.api_token,
              timezone: project.timezone
            }
    } satisfies typeof Me.Type
  })
