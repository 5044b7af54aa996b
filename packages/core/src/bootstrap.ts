import { Data, Effect } from "effect"
import { generatePassword, hashPassword, MIN_PASSWORD_LENGTH } from "./accounts/passwords.js"
import { isEmail, normalizeEmail } from "./accounts/users.js"
import { MembershipLevel } from "./domain/models.js"
import { generatePersonalApiKey, generateProjectApiKey, hashApiKey, maskApiKey } from "./domain/keys.js"
import { ApiKeyStore } from "./services/ApiKeyStore.js"
import { OrganizationStore } from "./services/OrganizationStore.js"
import { ProjectStore } from "./services/ProjectStore.js"
import { Transactor } from "./services/Transactor.js"
import { UserStore } from "./services/UserStore.js"

export interface BootstrapOptions {
  /** Project API key for the first project (`phc_…`); generated when absent. */
  readonly projectApiKey?: string | undefined
  /** Personal API key with scope `*` for the admin (`phx_…`); generated when absent. */
  readonly personalApiKey?: string | undefined
  readonly adminEmail?: string | undefined
  /**
   * The admin's password for the web app; generated when absent. `null`: none, for apps whose users
   * sign in through the host (`authenticate`); one can be set later (`zed users reset-password`).
   */
  readonly adminPassword?: string | null | undefined
}

/** What the first start created; the personal key exists in plain text only here. */
export interface Credentials {
  readonly project_id: number
  readonly project_api_key: string
  readonly personal_api_key: string
  readonly admin_email: string
  /** The admin's password when it was generated (absent when given by the operator). */
  readonly admin_password?: string | undefined
}

export type BootstrapResult =
  | { readonly created: true; readonly credentials: Credentials }
  | { readonly created: false }

export class BootstrapError extends Data.TaggedError("BootstrapError")<{ readonly message: string }> {}

const checkPrefix = (name: string, value: string | undefined, prefix: string) =>
  value === undefined || (value.startsWith(prefix) && value.length >= prefix.length + 16)
    ? Effect.void
    : Effect.fail(
        new BootstrapError({ message: `${name} must start with "${prefix}" and have at least 16 characters after it` })
      )

/** Checks what was given for the first start, before any storage is opened. */
export const validateBootstrapOptions = (options: BootstrapOptions) =>
  Effect.all([
    checkPrefix("the project API key", options.projectApiKey, "phc_"),
    checkPrefix("the personal API key", options.personalApiKey, "phx_"),
    options.adminEmail === undefined || isEmail(options.adminEmail)
      ? Effect.void
      : Effect.fail(new BootstrapError({ message: "the admin e-mail is not an e-mail address" })),
    options.adminPassword == null || options.adminPassword.length >= MIN_PASSWORD_LENGTH
      ? Effect.void
      : Effect.fail(
          new BootstrapError({ message: `the admin password must have at least ${MIN_PASSWORD_LENGTH} characters` })
        )
  ])

/**
 * On a store with no organization: creates one, its first project (id 1), its owner (the admin user,
 * with a password) and a personal API key with scope `*`. Later starts find the organization and change nothing.
 */
export const bootstrap = (options: BootstrapOptions = {}) =>
  Effect.gen(function* () {
    yield* validateBootstrapOptions(options)
    const transactor = yield* Transactor
    return yield* transactor.exclusive("zed.bootstrap")(
      Effect.gen(function* () {
        const organizations = yield* OrganizationStore
        if (yield* organizations.any) return { created: false } as BootstrapResult
        const organization = yield* organizations.create({ name: "Default organization" })
        const project = yield* (yield* ProjectStore).create({
          organization: organization.id,
          name: "Default project",
          timezone: "UTC",
          api_token: options.projectApiKey ?? generateProjectApiKey()
        })
        const password = options.adminPassword === undefined ? generatePassword() : options.adminPassword
        const user = yield* (yield* UserStore).create({
          organization_id: organization.id,
          email: normalizeEmail(options.adminEmail ?? "admin@localhost"),
          first_name: "Admin",
          current_project_id: project.id,
          level: MembershipLevel.owner,
          password_hash: password === null ? null : yield* hashPassword(password)
        })
        const personalApiKey = options.personalApiKey ?? generatePersonalApiKey()
        yield* (yield* ApiKeyStore).create({
          user_id: user.id,
          label: "bootstrap",
          mask_value: maskApiKey(personalApiKey),
          secure_value: hashApiKey(personalApiKey),
          scopes: ["*"],
          scoped_teams: null,
          scoped_organizations: null
        })
        return {
          created: true,
          credentials: {
            project_id: project.id,
            project_api_key: project.api_token,
            personal_api_key: personalApiKey,
            admin_email: user.email,
            ...(options.adminPassword === undefined ? { admin_password: password } : {})
          }
        } as BootstrapResult
      })
    )
  })
