import { Effect, Option } from "effect"
import type { MembershipLevel, User } from "../domain/models.js"
import { ProjectStore } from "../services/ProjectStore.js"
import { SessionStore } from "../services/SessionStore.js"
import { UserStore } from "../services/UserStore.js"
import { hashPassword } from "./passwords.js"

/** E-mail addresses are compared without case and surrounding space. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase()

export const isEmail = (email: string): boolean => email.length <= 254 && /^[^\s@]+@[^\s@]+$/.test(email.trim())

/** Sets a new password and ends the user's sessions: whoever knew the old one is signed out. */
export const changePassword = (userId: number, password: string) =>
  Effect.gen(function* () {
    yield* (yield* UserStore).setPasswordHash(userId, yield* hashPassword(password))
    yield* (yield* SessionStore).removeForUser(userId)
  })

/** The organization's first project, where a new member starts. */
const firstProject = (organizationId: string) =>
  Effect.flatMap(ProjectStore, (projects) =>
    Effect.map(
      projects.list({ organization: organizationId, ids: null, limit: 1, offset: 0 }),
      ({ results }) => results[0]?.id ?? null
    )
  )

/**
 * A user joining an organization with a password; one removed before (inactive) comes back with it.
 * None when an active user already has the address.
 */
export const joinOrganization = (input: {
  readonly organization_id: string
  readonly email: string
  readonly first_name: string
  readonly level: MembershipLevel
  readonly password: string
}) =>
  Effect.gen(function* () {
    const users = yield* UserStore
    const email = normalizeEmail(input.email)
    const existing = yield* users.findByEmail(email)
    if (Option.isSome(existing) && existing.value.is_active) return Option.none<User>()
    const current_project_id = yield* firstProject(input.organization_id)
    const password_hash = yield* hashPassword(input.password)
    if (Option.isNone(existing)) {
      return Option.some(yield* users.create({ ...input, email, current_project_id, password_hash }))
    }
    yield* users.setPasswordHash(existing.value.id, password_hash)
    return yield* users.update(existing.value.id, {
      organization_id: input.organization_id,
      first_name: input.first_name,
      level: input.level,
      current_project_id: current_project_id ?? undefined,
      is_active: true
    })
  })
