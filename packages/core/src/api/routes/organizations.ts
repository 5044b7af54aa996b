import { Effect, Option, Schema } from "effect"
import { Organization } from "../../domain/models.js"
import { FlagQuota } from "../../flags/quota.js"
import { OrganizationStore } from "../../services/OrganizationStore.js"
import { ownOrganization } from "../auth.js"
import { apiRoute } from "../route.js"
import { IntIn, Text } from "../../schema/fields.js"

// The key owner's organization: `@current` or its id. Another organization is as absent as one that
// does not exist.

const Ref = Schema.Struct({ id: Schema.String })

const retrieve = apiRoute({
  method: "GET",
  path: "/api/organizations/:id",
  tag: "organizations",
  summary: "Retrieve an organization",
  scope: "organization:read",
  params: Ref,
  response: Organization,
  handler: ({ params, principal }) => ownOrganization(principal, params.id)
})

const update = apiRoute({
  method: "PATCH",
  path: "/api/organizations/:id",
  tag: "organizations",
  summary: "Update an organization",
  description:
    "`flag_evaluation_quota`: flag evaluation requests allowed per calendar month (null for no limit); past it, /decide and /flags answer `quotaLimited`.",
  scope: "organization:write",
  admin: true,
  params: Ref,
  body: Schema.Struct({
    name: Schema.optional(Text(64)),
    flag_evaluation_quota: Schema.optional(Schema.NullOr(IntIn(0, Number.MAX_SAFE_INTEGER)))
  }).annotations({ identifier: "OrganizationUpdate" }),
  response: Organization,
  handler: ({ body, params, principal }) =>
    Effect.gen(function* () {
      const org = yield* ownOrganization(principal, params.id)
      const updated = yield* (yield* OrganizationStore).update(org.id, body)
      // A new quota applies here at once; other instances read it within seconds.
      if (body.flag_evaluation_quota !== undefined) yield* (yield* FlagQuota).flush
      return Option.getOrElse(updated, () => org)
    })
})

export const organizationRoutes = [retrieve, update]
