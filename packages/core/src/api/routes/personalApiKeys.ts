import { Effect, Option, Schema } from "effect"
import {
  issueKeyFor,
  type KeyGrantPatch,
  KeyRequestError,
  rollPersonalApiKey,
  updatePersonalApiKey
} from "../../apiKeys.js"
import type { PersonalApiKey as StoredKey } from "../../domain/models.js"
import { grants, type Scope } from "../../domain/scopes.js"
import { IntIn, Text } from "../../schema/fields.js"
import { ValidationError } from "../../schema/ValidationError.js"
import { ApiKeyStore } from "../../services/ApiKeyStore.js"
import type { Principal } from "../auth.js"
import { NotFound, PermissionDenied } from "../errors.js"
import { Reply } from "../reply.js"
import { apiRoute } from "../route.js"

// The caller's own personal API keys. The secret is shown once, when created or rolled; lists show
// only its mask. A key can make or widen keys only within what it may do itself.

const TAG = "personal_api_keys"

const PersonalApiKey = Schema.Struct({
  id: Schema.String,
  label: Schema.String,
  mask_value: Schema.String,
  created_at: Schema.Date,
  last_used_at: Schema.NullOr(Schema.Date),
  last_rolled_at: Schema.NullOr(Schema.Date),
  user_id: Schema.Int,
  scopes: Schema.Array(Schema.String),
  scoped_teams: Schema.NullOr(Schema.Array(Schema.Int)),
  scoped_organizations: Schema.NullOr(Schema.Array(Schema.String))
}).annotations({ identifier: "PersonalApiKey" })

const WithValue = Schema.Struct({
  ...PersonalApiKey.fields,
  value: Schema.String.annotations({ description: "The secret: shown this once, stored only as a hash." })
}).annotations({ identifier: "PersonalApiKeyWithValue" })

const present = (key: StoredKey): typeof PersonalApiKey.Type => ({
  id: key.id,
  label: key.label,
  mask_value: key.mask_value,
  created_at: key.created_at,
  last_used_at: key.last_used_at,
  last_rolled_at: key.last_rolled_at,
  user_id: key.user_id,
  scopes: key.scopes,
  scoped_teams: key.scoped_teams,
  scoped_organizations: key.scoped_organizations
})

const Grant = {
  scopes: Schema.Array(Schema.String).annotations({ description: "Scopes such as `insight:read`, or `*` for all." }),
  scoped_teams: Schema.optional(Schema.NullOr(Schema.Array(IntIn(1)))),
  scoped_organizations: Schema.optional(Schema.NullOr(Schema.Array(Schema.String)))
}

const KeyParams = Schema.Struct({ id: Schema.String })

/** A grant the domain refused, as the 400 of the field at fault. */
const invalid = <A, E, R>(effect: Effect.Effect<A, E | KeyRequestError, R>) =>
  Effect.mapError(effect, (error) =>
    error instanceof KeyRequestError
      ? new ValidationError({ code: "invalid_input", detail: error.message, attr: error.field })
      : (error as E)
  )

/** Refuses a grant wider than the caller's own: a key limited to some scopes or projects cannot mint a broader one. */
const withinCaller = (principal: Principal, grant: KeyGrantPatch) =>
  Effect.gen(function* () {
    const scopes = grant.scopes ?? []
    const wider = scopes.filter((s) =>
      s === "*" ? !principal.scopes.includes("*") : !grants(principal.scopes, s as Scope)
    )
    if (wider.length > 0) {
      return yield* new PermissionDenied({ detail: `You cannot grant scopes you do not hold: ${wider.join(", ")}.` })
    }
    const limited = principal.scoped_teams
    if (
      limited !== null &&
      grant.projects !== undefined &&
      (grant.projects === null || grant.projects.some((p) => !limited.includes(p)))
    ) {
      return yield* new PermissionDenied({ detail: "You cannot grant access to projects your key cannot reach." })
    }
  })

const notFound = () => new NotFound({ detail: "Not found." })

const list = apiRoute({
  method: "GET",
  path: "/api/personal_api_keys",
  tag: TAG,
  summary: "List your personal API keys",
  description: "Newest first, as a plain list; each with its mask (`phx_...abcd`), never the secret.",
  scope: "user:read",
  response: Schema.Array(PersonalApiKey),
  handler: ({ principal }) =>
    Effect.map(
      Effect.flatMap(ApiKeyStore, (keys) => keys.list(principal.user.id)),
      (keys) => keys.map(present)
    )
})

const retrieve = apiRoute({
  method: "GET",
  path: "/api/personal_api_keys/:id",
  tag: TAG,
  summary: "Retrieve one of your personal API keys",
  scope: "user:read",
  params: KeyParams,
  response: PersonalApiKey,
  handler: ({ params, principal }) =>
    Effect.flatMap(
      Effect.flatMap(ApiKeyStore, (keys) => keys.get(principal.user.id, params.id)),
      Option.match({ onNone: () => Effect.fail(notFound()), onSome: (key) => Effect.succeed(present(key)) })
    )
})

const create = apiRoute({
  method: "POST",
  path: "/api/personal_api_keys",
  tag: TAG,
  summary: "Create a personal API key",
  description:
    "For the caller, with `scopes` (see the scopes in this reference) and optionally limited to projects (`scoped_teams`). The answer carries the secret (`value`) this once.",
  scope: "user:write",
  body: Schema.Struct({ label: Text(40), ...Grant }).annotations({ identifier: "PersonalApiKeyCreate" }),
  response: WithValue,
  status: 201,
  handler: ({ body, principal }) =>
    Effect.gen(function* () {
      // Left out, a key reaches every project.
      const grant = {
        scopes: body.scopes,
        projects: body.scoped_teams ?? null,
        organizations: body.scoped_organizations ?? null
      }
      yield* withinCaller(principal, grant)
      const { key, value } = yield* invalid(issueKeyFor(principal.user, { ...grant, label: body.label }))
      return { ...present(key), value }
    })
})

const update = apiRoute({
  method: "PATCH",
  path: "/api/personal_api_keys/:id",
  tag: TAG,
  summary: "Update a personal API key",
  description: "Its label, scopes or projects; the secret stays as it is (roll it for a new one).",
  scope: "user:write",
  params: KeyParams,
  body: Schema.Struct({
    label: Schema.optional(Text(40)),
    scopes: Schema.optional(Grant.scopes),
    scoped_teams: Grant.scoped_teams,
    scoped_organizations: Grant.scoped_organizations
  }).annotations({ identifier: "PersonalApiKeyUpdate" }),
  response: PersonalApiKey,
  handler: ({ body, params, principal }) =>
    Effect.gen(function* () {
      const grant = { scopes: body.scopes, projects: body.scoped_teams, organizations: body.scoped_organizations }
      yield* withinCaller(principal, grant)
      const updated = yield* invalid(updatePersonalApiKey(principal.user, params.id, { ...grant, label: body.label }))
      return yield* Option.match(updated, {
        onNone: () => Effect.fail(notFound()),
        onSome: (key) => Effect.succeed(present(key))
      })
    })
})

const roll = apiRoute({
  method: "POST",
  path: "/api/personal_api_keys/:id/roll",
  tag: TAG,
  summary: "Roll a personal API key",
  description: "Gives the key a new secret, returned this once as `value`; the old secret stops working at once.",
  scope: "user:write",
  params: KeyParams,
  response: WithValue,
  handler: ({ params, principal }) =>
    Effect.flatMap(
      rollPersonalApiKey(principal.user, params.id),
      Option.match({
        onNone: () => Effect.fail(notFound()),
        onSome: ({ key, value }) => Effect.succeed({ ...present(key), value })
      })
    )
})

const remove = apiRoute({
  method: "DELETE",
  path: "/api/personal_api_keys/:id",
  tag: TAG,
  summary: "Revoke a personal API key",
  description: "Deletes the key: requests with it are refused from then on.",
  scope: "user:write",
  params: KeyParams,
  status: 204,
  handler: ({ params, principal }) =>
    Effect.flatMap(
      Effect.flatMap(ApiKeyStore, (keys) => keys.remove(principal.user.id, params.id)),
      (removed) => (removed ? Effect.succeed(Reply.empty(204)) : Effect.fail(notFound()))
    )
})

export const personalApiKeyRoutes = [list, retrieve, create, update, roll, remove]
