import { Effect, Option, Schema } from "effect"
import type { User } from "../../domain/models.js"
import { OrganizationStore } from "../../services/OrganizationStore.js"
import { ProjectStore } from "../../services/ProjectStore.js"
import { MIN_PASSWORD_LENGTH } from "../../accounts/passwords.js"
import { isEmail } from "../../accounts/users.js"
import { check } from "../../schema/fields.js"

/** A password as chosen: long enough, and short enough to hash cheaply. */
export const NewPassword = Schema.String.pipe(
  check(
    (s: string) => s.length >= MIN_PASSWORD_LENGTH,
    "password_too_short",
    `This password is too short. It must contain at least ${MIN_PASSWORD_LENGTH} characters.`
  ),
  check((s: string) => s.length <= 256, "max_length", "Ensure this field has no more than 256 characters.")
)

export const Email = Schema.String.pipe(check(isEmail, "invalid", "Enter a valid email address."))

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
