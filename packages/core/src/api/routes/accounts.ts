import { Effect, Option, Schema } from "effect"
import { isExpired } from "../../accounts/invites.js"
import { verifyPassword } from "../../accounts/passwords.js"
import { randomCookieToken, SESSION_SECONDS, sessionDigest, startSession } from "../../accounts/sessions.js"
import { SignInThrottle } from "../../accounts/throttle.js"
import { changePassword, joinOrganization, normalizeEmail } from "../../accounts/users.js"
import type { User } from "../../domain/models.js"
import { check, IntIn, Text } from "../../schema/fields.js"
import { ValidationError } from "../../schema/ValidationError.js"
import { InviteStore } from "../../services/InviteStore.js"
import { OrganizationStore } from "../../services/OrganizationStore.js"
import { ProjectStore } from "../../services/ProjectStore.js"
import { SessionStore } from "../../services/SessionStore.js"
import { UserStore } from "../../services/UserStore.js"
import { ZedConfig } from "../../services/ZedConfig.js"
import { clientIp } from "../captureEdge.js"
import { clearedCookies, requestCookies, SESSION_COOKIE, sessionCookies } from "../cookies.js"
import { TooManyRequests } from "../errors.js"
import { Reply } from "../reply.js"
import type { ZedRequest } from "../request.js"
import { apiRoute, publicRoute } from "../route.js"
import { Email, Me, NewPassword, presentMe } from "../wire/users.js"

// Signing in and out of the web app, the signed-in user, and accepting an invitation. The session
// and CSRF cookies are set here; `auth.ts` reads them on every other request.

const TAG = "users"

/** The signed-in user's body, with fresh session and CSRF cookies: after sign-in, sign-up, password change. */
const signedInReply = (request: ZedRequest, user: User, status: number) =>
  Effect.gen(function* () {
    const session = yield* startSession(user)
    const body = yield* Effect.orDie(Schema.encode(Me)(yield* presentMe(user)))
    return Reply.json(status, body).withCookies(sessionCookies(request, session, randomCookieToken(), SESSION_SECONDS))
  })

const invalidCredentials = new ValidationError({
  code: "invalid_credentials",
  detail: "Invalid email or password.",
  attr: null
})

const login = publicRoute({
  method: "POST",
  path: "/api/login",
  tag: TAG,
  summary: "Sign in",
  description:
    "Checks the e-mail and password and starts a session: sets the `zed_session` cookie (HttpOnly) and the `zed_csrftoken` cookie, whose value state-changing requests repeat in the `X-CSRFToken` header. After 5 failures in 15 minutes for an account or from an address, 429.",
  body: Schema.Struct({ email: Schema.String, password: Schema.String }).annotations({ identifier: "Login" }),
  response: Me,
  errors: [400, 429],
  handler: ({ body, request }) =>
    Effect.gen(function* () {
      const email = normalizeEmail(body.email)
      const { trustProxy } = yield* ZedConfig
      const account = `account:${email}`
      const keys = [account, `address:${clientIp(request, trustProxy) ?? "unknown"}`]
      const throttle = yield* SignInThrottle
      const wait = yield* throttle.blocked(keys)
      if (Option.isSome(wait)) {
        return yield* new TooManyRequests({
          detail: `Too many failed sign-in attempts. Try again in ${wait.value} seconds.`,
          retryAfter: wait.value
        })
      }
      const users = yield* UserStore
      const user = Option.filter(yield* users.findByEmail(email), (u) => u.is_active)
      const hash = Option.isSome(user) ? yield* users.passwordHash(user.value.id) : null
      if (!(yield* verifyPassword(body.password.slice(0, 256), hash)) || Option.isNone(user)) {
        yield* throttle.failed(keys)
        return yield* invalidCredentials
      }
      yield* throttle.succeeded(account)
      return yield* signedInReply(request, user.value, 200)
    })
})

const logout = publicRoute({
  method: "POST",
  path: "/api/logout",
  tag: TAG,
  summary: "Sign out",
  description: "Ends the session of the `zed_session` cookie, if any, and clears both cookies.",
  status: 204,
  handler: ({ request }) =>
    Effect.gen(function* () {
      const session = requestCookies(request).get(SESSION_COOKIE)
      if (session !== undefined) yield* (yield* SessionStore).remove(sessionDigest(session))
      return Reply.empty(204).withCookies(clearedCookies(request))
    })
})

const me = apiRoute({
  method: "GET",
  path: "/api/users/@me",
  tag: TAG,
  summary: "The signed-in user",
  description:
    "The user behind the session or key, with the organization's membership level and the current project (`team`).",
  scope: "user:read",
  response: Me,
  handler: ({ principal }) => presentMe(principal.user)
})

const MeUpdate = Schema.Struct({
  first_name: Schema.optional(Text(150)),
  last_name: Schema.optional(
    Schema.String.pipe(
      check((s: string) => s.length <= 150, "max_length", "Ensure this field has no more than 150 characters.")
    )
  ),
  email: Schema.optional(Email),
  current_team: Schema.optional(IntIn(1)),
  set_current_team: Schema.optional(IntIn(1)),
  password: Schema.optional(NewPassword),
  current_password: Schema.optional(Schema.String)
}).annotations({ identifier: "MeUpdate" })

const updateMe = apiRoute({
  method: "PATCH",
  path: "/api/users/@me",
  tag: TAG,
  summary: "Update the signed-in user",
  description:
    "Name and e-mail; `set_current_team` (or `current_team`) switches the current project; `password` with `current_password` changes the password, which ends every session of the user (a session-signed request gets a new one).",
  scope: "user:write",
  body: MeUpdate,
  response: Me,
  handler: ({ body, principal, request }) =>
    Effect.gen(function* () {
      const users = yield* UserStore
      const { user } = principal
      const email = body.email === undefined ? undefined : normalizeEmail(body.email)
      if (email !== undefined && email !== user.email && Option.isSome(yield* users.findByEmail(email))) {
        return yield* new ValidationError({
          code: "unique",
          detail: "There is already an account with this email address.",
          attr: "email"
        })
      }
      const team = body.set_current_team ?? body.current_team
      if (team !== undefined) {
        const project = yield* (yield* ProjectStore).get(team)
        if (Option.isNone(project) || project.value.organization !== user.organization_id) {
          return yield* new ValidationError({
            code: "does_not_exist",
            detail: "Project not found.",
            attr: "set_current_team"
          })
        }
      }
      if (body.password !== undefined) {
        const hash = yield* users.passwordHash(user.id)
        if (hash !== null && !(yield* verifyPassword(body.current_password ?? "", hash))) {
          return yield* new ValidationError({
            code: "invalid_input",
            detail: "Your current password is incorrect. Please enter it again.",
            attr: "current_password"
          })
        }
      }
      const updated = Option.getOrElse(
        yield* users.update(user.id, {
          first_name: body.first_name,
          last_name: body.last_name,
          email,
          current_project_id: team
        }),
        () => user
      )
      if (body.password === undefined) return yield* presentMe(updated)
      yield* changePassword(user.id, body.password)
      return principal.credential._tag === "Session"
        ? yield* signedInReply(request, updated, 200)
        : yield* presentMe(updated)
    })
})

const InviteId = Schema.Struct({ invite_id: Schema.String })

/** The invitation behind a sign-up link, unless unknown or expired. */
const openInvite = (id: string) =>
  Effect.gen(function* () {
    const invite = yield* (yield* InviteStore).get(id)
    if (Option.isNone(invite)) {
      return yield* new ValidationError({
        code: "invalid_input",
        detail: "The provided invite ID is not valid.",
        attr: null
      })
    }
    if (isExpired(invite.value)) {
      return yield* new ValidationError({
        code: "expired",
        detail: "This invite has expired. Please ask your admin for a new one.",
        attr: null
      })
    }
    return invite.value
  })

const signupInfo = publicRoute({
  method: "GET",
  path: "/api/signup/:invite_id",
  tag: TAG,
  summary: "Look at an invitation",
  params: InviteId,
  response: Schema.Struct({ target_email: Schema.String, organization_name: Schema.String }).annotations({
    identifier: "InviteInfo"
  }),
  errors: [400],
  handler: ({ params }) =>
    Effect.gen(function* () {
      const invite = yield* openInvite(params.invite_id)
      const organization = yield* (yield* OrganizationStore).get(invite.organization_id)
      return {
        target_email: invite.target_email,
        organization_name: Option.match(organization, { onNone: () => "", onSome: (o) => o.name })
      }
    })
})

const signup = publicRoute({
  method: "POST",
  path: "/api/signup/:invite_id",
  tag: TAG,
  summary: "Accept an invitation",
  description:
    "Creates the invited user with this password at the invitation's level, signs them in (cookies as `/api/login`) and uses up the invitation. Invitations expire after 3 days.",
  params: InviteId,
  body: Schema.Struct({ first_name: Text(150), password: NewPassword }).annotations({ identifier: "InviteAccept" }),
  response: Me,
  status: 201,
  errors: [400],
  handler: ({ body, params, request }) =>
    Effect.gen(function* () {
      const invite = yield* openInvite(params.invite_id)
      const user = yield* joinOrganization({
        organization_id: invite.organization_id,
        email: invite.target_email,
        first_name: body.first_name,
        level: invite.level,
        password: body.password
      })
      if (Option.isNone(user)) {
        return yield* new ValidationError({
          code: "account_exists",
          detail: "There is already an account with this email address.",
          attr: null
        })
      }
      yield* (yield* InviteStore).remove(invite.id)
      return yield* signedInReply(request, user.value, 201)
    })
})

export const accountRoutes = [login, logout, me, updateMe, signupInfo, signup]
