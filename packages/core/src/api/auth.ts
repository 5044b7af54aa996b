import { Effect, Option } from "effect"
import { hashApiKey } from "../domain/keys.js"
import type { PersonalApiKey, Project, User } from "../domain/models.js"
import { grants, type Scope } from "../domain/scopes.js"
import { ApiKeyStore } from "../services/ApiKeyStore.js"
import { ProjectStore } from "../services/ProjectStore.js"
import { readJson } from "./body.js"
import { AuthenticationFailed, NotAuthenticated, NotFound, PermissionDenied } from "./errors.js"
import type { ZedRequest } from "./request.js"

/** Who is calling the management API: a personal API key and the user who owns it. */
export interface Principal {
  readonly key: PersonalApiKey
  readonly user: User
}

const BEARER = /^Bearer\s+(\S+)\s*$/i
const LAST_USED_PRECISION_MS = 60 * 60 * 1000

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

export const authenticate = (request: ZedRequest) =>
  Effect.gen(function* () {
    const found = yield* findKey(request)
    if (Option.isNone(found)) return yield* new NotAuthenticated()
    const { source, value } = found.value
    const keys = yield* ApiKeyStore
    const match = yield* keys.findBySecureValue(hashApiKey(value))
    if (Option.isNone(match) || !match.value.user.is_active) {
      return yield* new AuthenticationFailed({ detail: `Personal API key found in request ${source} is invalid.` })
    }
    const { key } = match.value
    const now = new Date()
    if (key.last_used_at === null || now.getTime() - key.last_used_at.getTime() > LAST_USED_PRECISION_MS) {
      yield* keys.markUsed(key.id, now)
    }
    return match.value satisfies Principal
  })

export const authorize = (principal: Principal, scope: Scope) =>
  grants(principal.key.scopes, scope)
    ? Effect.void
    : Effect.fail(new PermissionDenied({ detail: `API key missing required scope '${scope}'` }))

/** Fails unless the key may act beyond single projects (creating projects, say). */
export const requireUnscopedKey = (principal: Principal) =>
  principal.key.scoped_teams === null
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
    const scoped = principal.key.scoped_teams
    if (scoped !== null && !scoped.includes(id)) {
      return yield* new PermissionDenied({ detail: `API key does not have access to the requested project: ID ${id}.` })
    }
    const project = yield* (yield* ProjectStore).get(id)
    if (Option.isNone(project) || project.value.organization !== principal.user.organization_id) {
      return yield* new NotFound({ detail: "Project not found." })
    }
    return project.value satisfies Project
  })
