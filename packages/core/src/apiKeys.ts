import { Data, Effect, Option } from "effect"
import { generatePersonalApiKey, hashApiKey, maskApiKey } from "./domain/keys.js"
import type { PersonalApiKey } from "./domain/models.js"
import { isScope } from "./domain/scopes.js"
import { ApiKeyStore } from "./services/ApiKeyStore.js"
import { ProjectStore } from "./services/ProjectStore.js"
import { UserStore } from "./services/UserStore.js"

export class KeyRequestError extends Data.TaggedError("KeyRequestError")<{ readonly message: string }> {}

export interface KeyRequest {
  readonly scopes: ReadonlyArray<string>
  /** Limit the key to these projects; all of the owner's organization when absent. */
  readonly projects?: ReadonlyArray<number> | undefined
  readonly label?: string | undefined
  /** Owner's e-mail; the admin created at bootstrap when absent. */
  readonly userEmail?: string | undefined
}

/** Issues a personal API key; its value is returned once and only its digest is stored. */
export const issuePersonalApiKey = (request: KeyRequest) =>
  Effect.gen(function* () {
    const unknown = request.scopes.filter((s) => !isScope(s))
    if (request.scopes.length === 0) return yield* new KeyRequestError({ message: "at least one scope is required" })
    if (unknown.length > 0) return yield* new KeyRequestError({ message: `unknown scopes: ${unknown.join(", ")}` })
    const users = yield* UserStore
    const owner = request.userEmail === undefined ? yield* users.first : yield* users.findByEmail(request.userEmail)
    if (Option.isNone(owner)) {
      return yield* new KeyRequestError({
        message: `no user ${request.userEmail ?? "exists yet; start Zed once first"}`
      })
    }
    const projects = yield* ProjectStore
    for (const id of request.projects ?? []) {
      const project = yield* projects.get(id)
      if (Option.isNone(project) || project.value.organization !== owner.value.organization_id) {
        return yield* new KeyRequestError({ message: `project ${id} does not exist in the owner's organization` })
      }
    }
    const value = generatePersonalApiKey()
    const key = yield* (yield* ApiKeyStore).create({
      user_id: owner.value.id,
      label: (request.label ?? "cli").slice(0, 40),
      mask_value: maskApiKey(value),
      secure_value: hashApiKey(value),
      scopes: [...request.scopes],
      scoped_teams: request.projects === undefined ? null : [...request.projects],
      scoped_organizations: null
    })
    return { key, value } satisfies { key: PersonalApiKey; value: string }
  })
