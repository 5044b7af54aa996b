import { randomBytes } from "node:crypto"
import { Effect, Option, Schema } from "effect"
import { notFoundPage, sharedInsightPage } from "../../insights/sharedPage.js"
import { InsightStore, type SharingConfiguration } from "../../services/InsightStore.js"
import { ProjectStore } from "../../services/ProjectStore.js"
import { Transactor } from "../../services/Transactor.js"
import { NotFound } from "../errors.js"
import { Reply } from "../reply.js"
import { environmentRoute, publicRoute } from "../route.js"
import { logInsightActivity } from "../../activity/log.js"
import { findInsight, Insight, InsightRef, presentInsights } from "../wire/insights.js"

// Public links to insights (PostHog's sharing configurations): one per insight, enabled or not,
// with an access token that `/shared/:access_token` answers to while it is enabled.

/** 22 random bytes, URL-safe: 30 characters, as PostHog's `secrets.token_urlsafe(22)`. */
const newToken = () => randomBytes(22).toString("base64url")

const Sharing = Schema.Struct({
  created_at: Schema.NullOr(Schema.Date),
  enabled: Schema.Boolean,
  access_token: Schema.String,
  settings: Schema.Unknown,
  password_required: Schema.Boolean,
  share_passwords: Schema.Array(Schema.Unknown)
}).annotations({ identifier: "SharingConfiguration" })

const wire = (s: {
  readonly created_at: Date | null
  readonly enabled: boolean
  readonly access_token: string
}): typeof Sharing.Type => ({
  created_at: s.created_at,
  enabled: s.enabled,
  access_token: s.access_token,
  settings: null,
  password_required: false,
  share_passwords: []
})

const insightNotFound = () => new NotFound({ detail: "Insight not found." })
const findShared = (projectId: number, id: number) => Effect.mapError(findInsight(projectId, id), insightNotFound)

const retrieve = environmentRoute({
  method: "GET",
  path: "/insights/:id/sharing",
  tag: "sharing",
  summary: "An insight's sharing configuration",
  description:
    "Before the first PATCH nothing is saved: the answer is disabled, with `created_at` null and a new token each time.",
  scope: "sharing_configuration:read",
  params: InsightRef,
  response: Sharing,
  handler: ({ params, project }) =>
    Effect.gen(function* () {
      const insight = yield* findShared(project.id, params.id)
      const saved = yield* (yield* InsightStore).sharing(insight.id)
      return wire(Option.getOrElse(saved, () => ({ created_at: null, enabled: false, access_token: newToken() })))
    })
})

/** Saves the configuration and logs what changed about it. */
const save = (
  projectId: number,
  userId: number,
  insightId: number,
  kind: "toggle" | "rotate",
  next: (saved: Option.Option<SharingConfiguration>) => { enabled: boolean; access_token: string }
) =>
  Effect.gen(function* () {
    const insight = yield* findShared(projectId, insightId)
    const store = yield* InsightStore
    return yield* (yield* Transactor).transaction(
      Effect.gen(function* () {
        const saved = yield* store.sharing(insight.id)
        const updated = yield* store.saveSharing(insight.id, next(saved))
        const wasEnabled = Option.match(saved, { onNone: () => false, onSome: (s) => s.enabled })
        if (kind === "rotate") yield* logInsightActivity(projectId, userId, insight, "access token refreshed", [])
        else if (wasEnabled !== updated.enabled) {
          yield* logInsightActivity(projectId, userId, insight, `sharing ${updated.enabled ? "enabled" : "disabled"}`, [
            { field: "sharing", before: wasEnabled, after: updated.enabled }
          ])
        }
        return wire(updated)
      })
    )
  })

const update = environmentRoute({
  method: "PATCH",
  path: "/insights/:id/sharing",
  tag: "sharing",
  summary: "Enable or disable an insight's public link",
  scope: "sharing_configuration:write",
  params: InsightRef,
  body: Schema.Struct({ enabled: Schema.optional(Schema.Boolean), settings: Schema.optional(Schema.Unknown) }),
  response: Sharing,
  handler: ({ body, params, principal, project }) =>
    save(project.id, principal.user.id, params.id, "toggle", (saved) => ({
      enabled: body.enabled ?? Option.match(saved, { onNone: () => false, onSome: (s) => s.enabled }),
      access_token: Option.match(saved, { onNone: newToken, onSome: (s) => s.access_token })
    }))
})

const refresh = environmentRoute({
  method: "POST",
  path: "/insights/:id/sharing/refresh",
  tag: "sharing",
  summary: "Rotate the access token of an insight's public link",
  description: "The old token stops working at once; whether the link is enabled is kept.",
  scope: "sharing_configuration:write",
  params: InsightRef,
  response: Sharing,
  handler: ({ params, principal, project }) =>
    save(project.id, principal.user.id, params.id, "rotate", (saved) => ({
      enabled: Option.match(saved, { onNone: () => false, onSome: (s) => s.enabled }),
      access_token: newToken()
    }))
})

const wantsHtml = (accept: string | undefined) => accept !== undefined && accept.includes("text/html")

const shared = publicRoute({
  method: "GET",
  path: "/shared/:access_token",
  tag: "sharing",
  summary: "A shared insight, without credentials",
  description:
    "The insight as JSON, or, for `Accept: text/html`, a page that draws its result. 404 unless its sharing is enabled.",
  params: Schema.Struct({ access_token: Schema.String }),
  response: Insight,
  handler: ({ params, request }) =>
    Effect.gen(function* () {
      const html = wantsHtml(request.header("accept"))
      const found = yield* Effect.gen(function* () {
        const target = yield* Effect.flatten((yield* InsightStore).shared(params.access_token))
        const project = yield* Effect.flatten((yield* ProjectStore).get(target.project_id))
        const insight = yield* findInsight(project.id, target.insight_id)
        // Shared views may start a computation in the background; they never wait for one.
        return (yield* presentInsights(project, [insight], { refresh: "lazy_async", viewer: "public" }))[0]!
      }).pipe(
        Effect.catchTags({
          NoSuchElementException: () => Effect.succeed(undefined),
          NotFound: () => Effect.succeed(undefined)
        })
      )
      if (found === undefined) {
        return html
          ? new Reply(404, notFoundPage, { "content-type": "text/html; charset=utf-8" })
          : yield* new NotFound({ detail: "Not found." })
      }
      return html ? new Reply(200, sharedInsightPage(found), { "content-type": "text/html; charset=utf-8" }) : found
    })
})

export const sharingRoutes = [retrieve, update, refresh, shared]
