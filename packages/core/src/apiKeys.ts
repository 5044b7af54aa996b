import { Data, Effect, Option } from "effect"
import { generatePersonalApiKey, hashApiKey, maskApiKey } from "./domain/keys.js"
import type { PersonalApiKey, User } from "./domain/models.js"
import { isScope } from "./domain/scopes.js"
import { ApiKeyStore } from "./services/ApiKeyStore.js"
import { ProjectStore } from "./services/ProjectStore.js"
import { UserStore } from "./services/UserStore.js"

export class KeyRequestError extends Data.TaggedError("KeyRequestError")<{
  readonly message: string
  /** The request field at fault. */
  readonly field: "scopes" | "scoped_teams" | "scoped_organizations" | "user"
}> {}

/** What a key may do: its scopes, and the projects and organizations it is limited to (all when absent). */
export interface KeyGrant {
  readonly scopes: ReadonlyArray<string>
  /** Limit the key to these projects; all of the owner's organization when absent. */
  readonly projects?: ReadonlyArray<number> | null | undefined
  /** Limit the key to these organizations (only the owner's can be named); the owner's when absent. */
  readonly organizations?: ReadonlyArray<string> | null | undefined
}

/** A change to a grant: what is given is replaced. */
export type KeyGrantPatch = { readonly [K in keyof KeyGrant]?: KeyGrant[K] | undefined }

export interface KeyRequest extends KeyGrant {
  readonly label?: string | undefined
  /** Owner's e-mail; the admin created at bootstrap when absent. */
  readonly userEmail?: string | undefined
}

const LABEL_LENGTH = 40

/** Fails unless every scope is known and every project and organization named is the owner's. */
const checkGrant = (owner: User, grant: KeyGrantPatch) =>
  Effect.gen(function* () {
    if (grant.scopes !== undefined) {
      const unknown = grant.scopes.filter((s) => !isScope(s))
      if (grant.scopes.length === 0) {
        return yield* new KeyRequestError({ message: "at least one scope is required", field: "scopes" })
      }
      if (unknown.length > 0) {
        return yield* new KeyRequestError({ message: `unknown scopes: ${unknown.join(", ")}`, field: "scopes" })
      }
    }
    const projects = yield* ProjectStore
    for (const id of grant.projects ?? []) {
      const project = yield* projects.get(id)
      if (Option.isNone(project) || project.value.organization !== owner.organization_id) {
        return yield* new KeyRequestError({
          message: `project ${id} does not exist in the owner's organization`,
          field: "scoped_teams"
        })
      }
    }
    if ((grant.organizations ?? []).some((id) => id !== owner.organization_id)) {
      return yield* new KeyRequestError({
        message: "You must be a member of all organizations that you are scoping the key to.",
        field: "scoped_organizations"
      })
    }
  })

/** A fresh secret: shown once, stored only as its digest. */
const newSecret = () => {
  const value = generatePersonalApiKey()
  return { value, secrets: { mask_value: maskApiKey(value), secure_value: hashApiKey(value) } }
}

/** Issues a personal API key for `owner`; its value is returned once and only its digest is stored. */
export const issueKeyFor = (owner: User, request: KeyGrant & { readonly label?: string | undefined }) =>
  Effect.gen(function* () {
    yield* checkGrant(owner, request)
    const { secrets, value } = newSecret()
    const key = yield* (yield* ApiKeyStore).create({
      user_id: owner.id,
      label: (request.label ?? "cli").slice(0, LABEL_LENGTH),
      ...secrets,
      scopes: [...request.scopes],
      scoped_teams: request.projects == null ? null : [...request.projects],
      scoped_organizations: request.organizations == null ? null : [...request.organizations]
    })
    return { key, value } satisfies { key: PersonalApiKey; value: string }
  })

/** Issues a personal API key for the user with this e-mail (the first admin when absent). */
export const issuePersonalApiKey = (request: KeyRequest) =>
  Effect.gen(function* () {
    const users = yield* UserStore
    const owner = request.userEmail === undefined ? yield* users.first : yield* users.findByEmail(request.userEmail)
    if (Option.isNone(owner)) {
      return yield* new KeyRequestError({
        message: `no user ${request.userEmail ?? "exists yet; start Zed once first"}`,
        field: "user"
      })
    }
    return yield* issueKeyFor(owner.value, request)
  })

/** Changes the label or grant of one of the owner's keys. */
export const updatePersonalApiKey = (
  owner: User,
  id: string,
  patch: KeyGrantPatch & { readonly label?: string | undefined }
) =>
  Effect.gen(function* () {
    yield* checkGrant(owner, patch)
    return yield* (yield* ApiKeyStore).update(owner.id, id, {
      label: patch.label?.slice(0, LABEL_LENGTH),
      scopes: patch.scopes && [...patch.scopes],
      scoped_teams: patch.projects === undefined ? undefined : patch.projects && [...patch.projects],
      scoped_organizations:
        patch.organizations === undefined ? undefined : patch.organizations && [...patch.organizations]
    })
  })

/** Gives one of the owner's keys a new secret, returned once; the old one stops working at once. */
export const rollPersonalApiKey = (owner: User, id: string) =>
  Effect.gen(function* () {
    const { secrets, value } = newSecret()
    const key = yield* (yield* ApiKeyStore).update(owner.id, id, { ...secrets, last_rolled_at: new Date() })
    return Option.map(key, (k) => ({ key: k, value }))
  })
