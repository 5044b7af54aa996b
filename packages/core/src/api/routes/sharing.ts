import { randomBytes } from "node:crypto"
import { Effect, Option, Schema } from "effect"
import { type Change, logInsightActivity } from "../../activity/log.js"
import { notFoundPage, sharedDashboardPage, sharedInsightPage } from "../../insights/sharedPage.js"
import { PathId } from "../../schema/fields.js"
import {
  InsightStore,
  type SharingConfiguration,
  type SharingTarget,
  type StoredDashboard,
  type StoredInsight
} from "../../services/InsightStore.js"
import type { StorageError } from "../../services/StorageError.js"
import { ProjectStore } from "../../services/ProjectStore.js"
import { Transactor } from "../../services/Transactor.js"
import { NotFound } from "../errors.js"
import { Reply } from "../reply.js"
import { environmentRoute, publicRoute } from "../route.js"
import { Dashboard, findDashboard, presentDashboard } from "../wire/dashboards.js"
import { findInsight, Insight, presentInsights } from "../wire/insights.js"

// Public links to insights and dashboards (PostHog's sharing configurations): one per insight or
// dashboard, enabled or not, with an access token that `/shared/:access_token` answers to while it
// is enabled.

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

/** What the sharing routes of one kind need: the shared thing (or 404), and how a change is logged. */
interface Shareable<A> {
  readonly kind: SharingTarget["kind"]
  /** `insights`, `dashboards`: the path of the things. */
  readonly path: string
  readonly label: string
  readonly find: (
    projectId: number,
    id: number
  ) => Effect.Effect<A & { readonly id: number }, NotFound | StorageError, InsightStore>
  /** Insights log sharing changes in their activity; dashboards keep no activity log. */
  readonly log?: (
    projectId: number,
    userId: number,
    item: A,
    activity: string,
    changes: ReadonlyArray<Change>
  ) => Effect.Effect<void, StorageError, InsightStore>
}

/** GET and PATCH of the configuration and POST …/refresh, for one kind of shareable thing. */
const routesFor = <A>(shareable: Shareable<A>) => {
  const { kind, path, label } = shareable
  const scopes = { read: "sharing_configuration:read", write: "sharing_configuration:write" } as const

  /** Saves the configuration and logs what changed about it. */
  const save = (
    projectId: number,
    userId: number,
    id: number,
    rotate: boolean,
    next: (saved: Option.Option<SharingConfiguration>) => { enabled: boolean; access_token: string }
  ) =>
    Effect.gen(function* () {
      const item = yield* shareable.find(projectId, id)
      const target = { kind, id: item.id }
      const store = yield* InsightStore
      return yield* (yield* Transactor).transaction(
        Effect.gen(function* () {
          const saved = yield* store.sharing(target)
          const updated = yield* store.saveSharing(target, next(saved))
          const wasEnabled = Option.match(saved, { onNone: () => false, onSome: (s) => s.enabled })
          const log = shareable.log ?? (() => Effect.void)
          if (rotate) yield* log(projectId, userId, item, "access token refreshed", [])
          else if (wasEnabled !== updated.enabled) {
            yield* log(projectId, userId, item, `sharing ${updated.enabled ? "enabled" : "disabled"}`, [
              { field: "sharing", before: wasEnabled, after: updated.enabled }
            ])
          }
          return wire(updated)
        })
      )
    })

  const retrieve = environmentRoute({
    method: "GET",
    path: `/${path}/:id/sharing`,
    tag: "sharing",
    summary: `${label}'s sharing configuration`,
    description:
      "Before the first PATCH nothing is saved: the answer is disabled, with `created_at` null and a new token each time.",
    scope: scopes.read,
    params: SharedRef,
    response: Sharing,
    handler: ({ params, project }) =>
      Effect.gen(function* () {
        const item = yield* shareable.find(project.id, params.id)
        const saved = yield* (yield* InsightStore).sharing({ kind, id: item.id })
        return wire(Option.getOrElse(saved, () => ({ created_at: null, enabled: false, access_token: newToken() })))
      })
  })

  const update = environmentRoute({
    method: "PATCH",
    path: `/${path}/:id/sharing`,
    tag: "sharing",
    summary: `Enable or disable ${label.toLowerCase()}'s public link`,
    scope: scopes.write,
    params: SharedRef,
    body: Schema.Struct({ enabled: Schema.optional(Schema.Boolean), settings: Schema.optional(Schema.Unknown) }),
    response: Sharing,
    handler: ({ body, params, principal, project }) =>
      save(project.id, principal.user.id, params.id, false, (saved) => ({
        enabled: body.enabled ?? Option.match(saved, { onNone: () => false, onSome: (s) => s.enabled }),
        access_token: Option.match(saved, { onNone: newToken, onSome: (s) => s.access_token })
      }))
  })

  const refresh = environmentRoute({
    method: "POST",
    path: `/${path}/:id/sharing/refresh`,
    tag: "sharing",
    summary: `Rotate the access token of ${label.toLowerCase()}'s public link`,
    description: "The old token stops working at once; whether the link is enabled is kept.",
    scope: scopes.write,
    params: SharedRef,
    response: Sharing,
    handler: ({ params, principal, project }) =>
      save(project.id, principal.user.id, params.id, true, (saved) => ({
        enabled: Option.match(saved, { onNone: () => false, onSome: (s) => s.enabled }),
        access_token: newToken()
      }))
  })
  return [retrieve, update, refresh]
}

const SharedRef = Schema.Struct({ id: PathId })

const insights = routesFor<StoredInsight>({
  kind: "insight",
  path: "insights",
  label: "An insight",
  find: (projectId, id) =>
    Effect.mapError(findInsight(projectId, id), () => new NotFound({ detail: "Insight not found." })),
  log: logInsightActivity
})

const dashboards = routesFor<StoredDashboard>({
  kind: "dashboard",
  path: "dashboards",
  label: "A dashboard",
  find: (projectId, id) => findDashboard(projectId, id)
})

const wantsHtml = (accept: string | undefined) => accept !== undefined && accept.includes("text/html")

const shared = publicRoute({
  method: "GET",
  path: "/shared/:access_token",
  tag: "sharing",
  summary: "A shared insight or dashboard, without credentials",
  description:
    "The insight (or the dashboard with its tiles) as JSON, or, for `Accept: text/html`, a page that draws its results. 404 unless its sharing is enabled.",
  params: Schema.Struct({ access_token: Schema.String }),
  response: Schema.Union(Insight, Dashboard),
  handler: ({ params, request }) =>
    Effect.gen(function* () {
      const html = wantsHtml(request.header("accept"))
      const found = yield* Effect.gen(function* () {
        const target = yield* Effect.flatten((yield* InsightStore).shared(params.access_token))
        const project = yield* Effect.flatten((yield* ProjectStore).get(target.project_id))
        // Shared views may start a computation in the background; they never wait for one.
        if (target.kind === "dashboard") {
          const dashboard = yield* findDashboard(project.id, target.id)
          return {
            kind: "dashboard" as const,
            found: yield* presentDashboard(project, dashboard, "lazy_async", "public")
          }
        }
        const insight = yield* findInsight(project.id, target.id)
        const [shown] = yield* presentInsights(project, [insight], { refresh: "lazy_async", viewer: "public" })
        return { kind: "insight" as const, found: shown! }
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
      if (!html) return found.found
      const page = found.kind === "insight" ? sharedInsightPage(found.found) : sharedDashboardPage(found.found)
      return new Reply(200, page, { "content-type": "text/html; charset=utf-8" })
    })
})

export const sharingRoutes = [...insights, ...dashboards, shared]
