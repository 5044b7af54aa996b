import { Effect, Option, Schema } from "effect"
import { inviteUrl, isExpired } from "../../accounts/invites.js"
import { generatePassword } from "../../accounts/passwords.js"
import { changePassword, normalizeEmail } from "../../accounts/users.js"
import { type Invite, MembershipLevel, type User } from "../../domain/models.js"
import { PageParams, Paginated, paginated, toPage } from "../../domain/pagination.js"
import { Text } from "../../schema/fields.js"
import { ValidationError } from "../../schema/ValidationError.js"
import { ApiKeyStore } from "../../services/ApiKeyStore.js"
import { InviteStore } from "../../services/InviteStore.js"
import { UserStore } from "../../services/UserStore.js"
import { ownOrganization, type Principal } from "../auth.js"
import { NotFound, PermissionDenied } from "../errors.js"
import { Reply } from "../reply.js"
import { apiRoute } from "../route.js"
import { Email, NewPassword } from "../wire/users.js"

// Who belongs to the organization, at which level, and invitations to join it. Members may look;
// admins and owners change levels, remove members and invite, never above their own level.

const TAG = "organizations"

const Level = Schema.Literal(MembershipLevel.member, MembershipLevel.admin, MembershipLevel.owner).annotations({
  description: "1 member, 8 admin, 15 owner."
})

const Member = Schema.Struct({
  id: Schema.String,
  user: Schema.Struct({ id: Schema.Int, uuid: Schema.String, first_name: Schema.String, email: Schema.String }),
  level: Schema.Int,
  joined_at: Schema.Date
}).annotations({ identifier: "OrganizationMember" })

const presentMember = (user: User): typeof Member.Type => ({
  id: user.uuid,
  user: { id: user.id, uuid: user.uuid, first_name: user.first_name, email: user.email },
  level: user.level,
  joined_at: user.date_joined
})

const InviteBody = Schema.Struct({
  id: Schema.String,
  target_email: Schema.String,
  first_name: Schema.String,
  level: Schema.Int,
  created_at: Schema.Date,
  is_expired: Schema.Boolean,
  invite_url: Schema.String.annotations({ description: "The web app's page where the invitee chooses a password." })
}).annotations({ identifier: "OrganizationInvite" })

const presentInvite = (invite: Invite): typeof InviteBody.Type => ({
  id: invite.id,
  target_email: invite.target_email,
  first_name: invite.first_name,
  level: invite.level,
  created_at: invite.created_at,
  is_expired: isExpired(invite),
  invite_url: inviteUrl(invite)
})

const OrganizationParams = Schema.Struct({ organization_id: Schema.String })
const MemberParams = Schema.Struct({ organization_id: Schema.String, user_uuid: Schema.String })
const InviteParams = Schema.Struct({ organization_id: Schema.String, id: Schema.String })

const MEMBERS = "/api/organizations/:organization_id/members"
const INVITES = "/api/organizations/:organization_id/invites"

/** A member the caller may manage: not above their own level, and themself only when `self` allows. */
const manageable = (principal: Principal, organizationId: string, uuid: string, self = false) =>
  Effect.gen(function* () {
    const org = yield* ownOrganization(principal, organizationId)
    const target = (yield* (yield* UserStore).list(org.id)).find((u) => u.uuid === uuid)
    if (target === undefined) return yield* new NotFound({ detail: "Member not found." })
    if (target.id === principal.user.id && !self) {
      return yield* new PermissionDenied({ detail: "You can't change your own membership." })
    }
    if (target.level > principal.user.level) {
      return yield* new PermissionDenied({ detail: "You can only manage members at or below your own level." })
    }
    return target
  })

const notAbove = (principal: Principal, level: number) =>
  level > principal.user.level
    ? Effect.fail(new PermissionDenied({ detail: "You can only grant a level at or below your own." }))
    : Effect.void

/** One page of a list read whole: an organization has few members and invitations. */
const pageOf = <A, B>(url: URL, query: typeof PageParams.Type, all: ReadonlyArray<A>, present: (a: A) => B) => {
  const page = toPage(query)
  return paginated(url, page, all.length, all.slice(page.offset, page.offset + page.limit).map(present))
}

const listMembers = apiRoute({
  method: "GET",
  path: MEMBERS,
  tag: TAG,
  summary: "List the organization's members",
  scope: "organization_member:read",
  params: OrganizationParams,
  query: PageParams,
  response: Paginated(Member, "PaginatedOrganizationMemberList"),
  handler: ({ params, principal, query, request }) =>
    Effect.gen(function* () {
      const org = yield* ownOrganization(principal, params.organization_id)
      return pageOf(request.url, query, yield* (yield* UserStore).list(org.id), presentMember)
    })
})

const updateMember = apiRoute({
  method: "PATCH",
  path: `${MEMBERS}/:user_uuid`,
  tag: TAG,
  summary: "Change a member's level (or password)",
  description:
    "`level`: 1 member, 8 admin, 15 owner, at most the caller's own; nobody changes their own. `password` sets a new password and ends the member's sessions, the caller's own included: it takes a personal API key (`zed users reset-password`), not a session of Zed's web app. Admins and owners only.",
  scope: "organization_member:write",
  admin: true,
  params: MemberParams,
  body: Schema.Struct({ level: Schema.optional(Level), password: Schema.optional(NewPassword) }).annotations({
    identifier: "OrganizationMemberUpdate"
  }),
  response: Member,
  handler: ({ body, params, principal }) =>
    Effect.gen(function* () {
      // A reset needs no current password, so a browser left signed in to Zed's app must not reach it.
      if (body.password !== undefined && principal.credential._tag === "Session") {
        return yield* new PermissionDenied({
          detail: "Reset passwords with a personal API key; change your own at /api/users/@me/."
        })
      }
      const target = yield* manageable(principal, params.organization_id, params.user_uuid, body.level === undefined)
      if (body.level !== undefined) yield* notAbove(principal, body.level)
      if (body.password !== undefined) yield* changePassword(target.id, body.password)
      const updated = yield* (yield* UserStore).update(target.id, { level: body.level })
      return presentMember(Option.getOrElse(updated, () => target))
    })
})

const removeMember = apiRoute({
  method: "DELETE",
  path: `${MEMBERS}/:user_uuid`,
  tag: TAG,
  summary: "Remove a member",
  description: "The user can no longer sign in; their sessions end and their keys are revoked. Admins and owners only.",
  scope: "organization_member:write",
  admin: true,
  params: MemberParams,
  status: 204,
  handler: ({ params, principal }) =>
    Effect.gen(function* () {
      const target = yield* manageable(principal, params.organization_id, params.user_uuid)
      yield* (yield* UserStore).update(target.id, { is_active: false })
      // Nothing of the old account works if the address is invited again: password, sessions, keys.
      yield* changePassword(target.id, generatePassword())
      const keys = yield* ApiKeyStore
      for (const key of yield* keys.list(target.id)) yield* keys.remove(target.id, key.id)
      return Reply.empty(204)
    })
})

const listInvites = apiRoute({
  method: "GET",
  path: INVITES,
  tag: TAG,
  summary: "List invitations",
  scope: "organization_member:read",
  params: OrganizationParams,
  query: PageParams,
  response: Paginated(InviteBody, "PaginatedOrganizationInviteList"),
  handler: ({ params, principal, query, request }) =>
    Effect.gen(function* () {
      const org = yield* ownOrganization(principal, params.organization_id)
      return pageOf(request.url, query, yield* (yield* InviteStore).list(org.id), presentInvite)
    })
})

const createInvite = apiRoute({
  method: "POST",
  path: INVITES,
  tag: TAG,
  summary: "Invite someone",
  description:
    "Makes an invitation link (`invite_url`, valid for 3 days) to hand to the invitee: no e-mail is sent. `level` at most the caller's own. Admins and owners only.",
  scope: "organization_member:write",
  admin: true,
  params: OrganizationParams,
  body: Schema.Struct({
    target_email: Email,
    level: Schema.optionalWith(Level, { default: () => MembershipLevel.member }),
    first_name: Schema.optionalWith(Schema.Union(Text(150), Schema.Literal("")), { default: () => "" })
  }).annotations({ identifier: "OrganizationInviteCreate" }),
  response: InviteBody,
  status: 201,
  handler: ({ body, params, principal }) =>
    Effect.gen(function* () {
      const org = yield* ownOrganization(principal, params.organization_id)
      yield* notAbove(principal, body.level)
      const email = normalizeEmail(body.target_email)
      const existing = yield* (yield* UserStore).findByEmail(email)
      if (Option.isSome(existing) && existing.value.is_active) {
        return yield* new ValidationError({
          code: "invalid_input",
          detail: "A user with this email address already exists.",
          attr: "target_email"
        })
      }
      const invite = yield* (yield* InviteStore).create({
        organization_id: org.id,
        target_email: email,
        first_name: body.first_name,
        level: body.level,
        created_by: principal.user.id
      })
      return presentInvite(invite)
    })
})

const removeInvite = apiRoute({
  method: "DELETE",
  path: `${INVITES}/:id`,
  tag: TAG,
  summary: "Cancel an invitation",
  scope: "organization_member:write",
  admin: true,
  params: InviteParams,
  status: 204,
  handler: ({ params, principal }) =>
    Effect.gen(function* () {
      const org = yield* ownOrganization(principal, params.organization_id)
      const invites = yield* InviteStore
      const invite = yield* invites.get(params.id)
      if (Option.isNone(invite) || invite.value.organization_id !== org.id) {
        return yield* new NotFound({ detail: "Invite not found." })
      }
      yield* invites.remove(invite.value.id)
      return Reply.empty(204)
    })
})

export const memberRoutes = [listMembers, updateMember, removeMember, listInvites, createInvite, removeInvite]
