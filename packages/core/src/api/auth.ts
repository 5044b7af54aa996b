import { timingSafeEqual } from "node:crypto"
import { Effect, Option } from "effect"
import { sessionDigest } from "../accounts/sessions.js"
import { normalizeEmail } from "../accounts/users.js"
import { hashApiKey } from "../domain/keys.js"
import { MembershipLevel, type PersonalApiKey, type Project, type User } from "../domain/models.js"
import { grants, type Scope } from "../domain/scopes.js"
import { ApiKeyStore } from "../services/ApiKeyStore.js"
import { OrganizationStore } from "../services/OrganizationStore.js"
import { ProjectStore } from "../services/ProjectStore.js"
import { SessionStore } from "../services/SessionStore.js"
import { UserStore } from "../services/UserStore.js"
import { type HostAuthentication, ZedConfig } from "../services/ZedConfig.js"
import { readJson } from "./body.js"
import { CSRF_COOKIE, CSRF_HEADER, requestCookies, SESSION_COOKIE } from "./cookies.js"
import { AuthenticationFailed, CsrfFailed, NotAuthenticated, NotFound, PermissionDenied } from "./errors.js"
import type { ZedRequest } from "./request.js"

/** How a caller proved who it is. */
export type Credential =
  | { readonly _tag: "Key"; readonly key: PersonalApiKey }
  | { readonly _tag: "Session"; readonly digest: string }
  | { readonly _tag: "Host" }

/**
 * Who is calling the management API: a user, with the scopes and projects the credential allows
 * (a session or the host's sign-in allows everything the user's role does).
 */
export interface Principal {
  readonly user: User
  readonly scopes: ReadonlyArray<string>
  readonly scoped_teams: ReadonlyArray<number> | null
  /** Whom concurrent-query limits count against: the key, or the signed-in user. */
  readonly caller: string
  readonly credential: Credential
}

const BEARER = /^Bearer\s+(\S+)\s*$/i
const LAST_USED_PRECISION_MS = 60 * 60 * 1000
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])

// Where a personal key may be given, first match wins: the Authorization header, the body field
// `personal_api_key`, then the query parameter of that name.
const findKey = (request: ZedRequest) =>
  Effect.gen(function* () {
    const header = BEARER.exec(request.header("authorization") ?? "")
    if (header) return Option.some({ value: header[1]!, source: "Authorization header" })
    if (request.method !== "GET" && request.method !== "HEAD" && request.header("content-type")?.includes("json")) {
      const body = yield* Effect.option(readJson(request))
      const inBody = Option.getOrUndefined(body) as { personal_api_key?: unknown } | undefined
      if (typeof inBody?.personal_api_key === "string") {
        return Option.some({ value: inBody.personal_api_key, source: "body" })
      }
    }
    const inQuery = request.url.searchParams.get("personal_api_key")
    return inQuery === null ? Option.none() : Option.some({ value: inQuery, source: "query string" })
  })

const byKey = (value: string, source: string) =>
  Effect.gen(function* () {
    const keys = yield* ApiKeyStore
    const match = yield* keys.findBySecureValue(hashApiKey(value))
    if (Option.isNone(match) || !match.value.user.is_active) {
      return yield* new AuthenticationFailed({ detail: `Personal API key found in request ${source} is invalid.` })
    }
    const { key, user } = match.value
    const now = new Date()
    if (key.last_used_at === null || now.getTime() - key.last_used_at.getTime() > LAST_USED_PRECISION_MS) {
      yield* keys.markUsed(key.id, now)
    }
    return {
      user,
      scopes: key.scopes,
      scoped_teams: key.scoped_teams,
      caller: key.id,
      credential: { _tag: "Key", key }
    } satisfies Principal
  })

const sameToken = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))

/**
 * The signed-in user of a session cookie. A browser sends cookies with any request to this origin,
 * so a state-changing one must also prove it was made by Zed's own pages: the `X-CSRFToken` header
 * repeats the CSRF cookie, which only scripts of this origin can read.
 */
const bySession = (request: ZedRequest, cookies: ReadonlyMap<string, string>, value: string) =>
  Effect.gen(function* () {
    const digest = sessionDigest(value)
    const session = yield* (yield* SessionStore).find(digest)
    if (Option.isNone(session) || session.value.expires_at.getTime() <= Date.now()) return Option.none()
    if (!SAFE_METHODS.has(request.method)) {
      const csrf = cookies.get(CSRF_COOKIE) ?? ""
      if (csrf === "" || !sameToken(csrf, request.header(CSRF_HEADER) ?? "")) return yield* new CsrfFailed()
    }
    return Option.some(signedIn(session.value.user, { _tag: "Session", digest }))
  })

const signedIn = (user: User, credential: Credential): Principal => ({
  user,
  scopes: ["*"],
  scoped_teams: null,
  caller: `user:${user.id}`,
  credential
})

/** The user the embedding app says is signed in, found or made in the first organization. */
const byHost = (request: ZedRequest, cookies: ReadonlyMap<string, string>, host: HostAuthentication) =>
  Effect.gen(function* () {
    const identity = yield* Effect.promise(() =>
      host.authenticate({
        headers: { get: (name) => request.header(name.toLowerCase()) ?? null },
        cookies: Object.fromEntries(cookies)
      })
    )
    if (identity === undefined || typeof identity.email !== "string" || identity.email === "") return Option.none()
    const users = yield* UserStore
    const email = normalizeEmail(identity.email)
    const existing = yield* users.findByEmail(email)
    if (Option.isSome(existing)) {
      return existing.value.is_active ? Option.some(signedIn(existing.value, { _tag: "Host" })) : Option.none()
    }
    const admin = yield* users.first
    if (Option.isNone(admin)) return Option.none()
    const input = {
      organization_id: admin.value.organization_id,
      email,
      first_name: identity.first_name ?? "",
      current_project_id: admin.value.current_project_id,
      level: host.level
    }
    // Two first requests of one user race to create it: the loser finds the winner's.
    const user = yield* Effect.catchAll(users.create(input), (error) =>
      Effect.flatMap(
        users.findByEmail(email),
        Option.match({ onNone: () => Effect.fail(error), onSome: Effect.succeed })
      )
    )
    return Option.some(signedIn(user, { _tag: "Host" }))
  })

export const authenticate = (request: ZedRequest) =>
  Effect.gen(function* () {
    const found = yield* findKey(request)
    if (Option.isSome(found)) return yield* byKey(found.value.value, found.value.source)
    const cookies = requestCookies(request)
    const session = cookies.get(SESSION_COOKIE)
    const bySessionCookie = session === undefined ? Option.none() : yield* bySession(request, cookies, session)
    if (Option.isSome(bySessionCookie)) return bySessionCookie.value
    const { hostAuthentication } = yield* ZedConfig
    if (hostAuthentication !== undefined) {
      const byHostApp = yield* byHost(request, cookies, hostAuthentication)
      if (Option.isSome(byHostApp)) return byHostApp.value
    }
    return yield* new NotAuthenticated()
  })

/** Fails unless the caller is an admin or owner of the organization. */
export const requireAdmin = (principal: Principal) =>
  principal.user.level >= MembershipLevel.admin
    ? Effect.void
    : Effect.fail(new PermissionDenied({ detail: "You must be an organization admin or owner to do this." }))

export const authorize = (principal: Principal, scope: Scope) =>
  grants(principal.scopes, scope)
    ? Effect.void
    : Effect.fail(new PermissionDenied({ detail: `API key missing required scope '${scope}'` }))

/** Fails unless the key may act beyond single projects (creating projects, say). */
export const requireUnscopedKey = (principal: Principal) =>
  principal.scoped_teams === null
    ? Effect.void
    : Effect.fail(
        new PermissionDenied({ detail: "API keys with scoped projects are only supported on project-based endpoints." })
      )

/**
 * The project a `:project_id` path segment names (`@current` is the user's current project).
 * A key limited to other projects gets 403 before existence is checked, and a project outside the
 * user's organization is as absent as one that never existed, so neither answer reveals existence.
 */
export const resolveProject = (principal: Principal, raw: string) =>
  Effect.gen(function* () {
    const id = raw === "@current" ? principal.user.current_project_id : /^\d{1,9}$/.test(raw) ? Number(raw) : null
    if (id === null) return yield* new NotFound({ detail: "Project not found." })
    const scoped = principal.scoped_teams
    if (scoped !== null && !scoped.includes(id)) {
      return yield* new PermissionDenied({ detail: `API key does not have access to the requested project: ID ${id}.` })
    }
    const project = yield* (yield* ProjectStore).get(id)
    if (Option.isNone(project) || project.value.organization !== principal.user.organization_id) {
      return yield* new NotFound({ detail: "Project not found." })
    }
    return project.value satisfies Project
  })

/** The caller's organization, named by id or `@current`; any other is not found. */
export const ownOrganization = (principal: Principal, id: string) =>
  Effect.gen(function* () {
    yield* requireUnscopedKey(principal)
    const wanted = id === "@current" ? principal.user.organization_id : id
    const found =
      wanted === principal.user.organization_id ? yield* (yield* OrganizationStore).get(wanted) : Option.none()
    return yield* Option.match(found, {
      onNone: () => Effect.fail(new NotFound({ detail: "Organization not found." })),
      onSome: Effect.succeed
    })
  })
