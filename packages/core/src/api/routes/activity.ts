import { randomInt } from "node:crypto"
import { Effect, Schema } from "effect"
import { type ActivityEntry, InsightStore, type StoredInsight } from "../../services/InsightStore.js"
import { UserStore } from "../../services/UserStore.js"
import { csvReply, Format } from "../csv.js"
import { IntFromString } from "../../schema/fields.js"

// The activity log of insights (PostHog's activity_logging): one entry per create, update,
// delete, restore and sharing change, naming the user and the fields that changed.

export interface Change {
  readonly field: string
  readonly before: unknown
  readonly after: unknown
}

const SCOPE = "Insight"
const DEFAULT_LIMIT = 10

/** PostHog's actions: a field that had no value was `created`, one that lost it `deleted`. */
const action = (change: Change) =>
  change.before === null || change.before === undefined ? "created" : change.after === null ? "deleted" : "changed"

export const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** The changes a write makes to these fields of an item (a null description is an empty one). */
export const changesOf = <F extends string>(
  fields: ReadonlyArray<F>,
  before: { readonly [K in F]: unknown },
  body: { readonly [K in F]?: unknown }
): Array<Change> =>
  fields.flatMap((field) => {
    const raw = body[field]
    if (raw === undefined) return []
    const after = field === "description" ? raw ?? "" : raw
    return same(before[field], after) ? [] : [{ field, before: before[field], after }]
  })

const SHORT_ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

/** A new item's 8-character `short_id`, the key of insights and playlists in URLs. */
export const shortId = () => Array.from({ length: 8 }, () => SHORT_ID_ALPHABET[randomInt(SHORT_ID_ALPHABET.length)]).join("")

/** What an activity entry is about: an item with a name (insights and recording playlists also have a short id). */
export interface ActivityItem {
  readonly id: number | string
  readonly short_id?: string | undefined
  readonly name: string | null
  readonly derived_name?: string | null | undefined
}

/**
 * Records an activity of an item of `scope`; an update that changed nothing is not recorded, nor
 * is anything about an item with neither a name nor a derived name (PostHog's rules).
 */
export const logActivity = (
  scope: string,
  projectId: number,
  userId: number | null,
  item: ActivityItem,
  activity: string,
  changes: ReadonlyArray<Change>,
  type: string | null = null
) =>
  Effect.gen(function*() {
    const name = item.name ?? item.derived_name ?? null
    if (name === null) return
    if (activity === "updated" && changes.length === 0) return
    yield* (yield* InsightStore).logActivity(projectId, {
      user_id: userId,
      activity,
      scope,
      item_id: String(item.id),
      detail: {
        id: null,
        changes: changes.length === 0 ? null : changes.map((c) => ({ type: scope, action: action(c), field: c.field, before: c.before, after: c.after })),
        merge: null,
        trigger: null,
        name,
        short_id: item.short_id ?? null,
        type
      }
    })
  })

export const logInsightActivity = (projectId: number, userId: number | null, insight: StoredInsight, activity: string, changes: ReadonlyArray<Change>) =>
  logActivity(SCOPE, projectId, userId, insight, activity, changes)

const ActivityUser = Schema.Struct({
  first_name: Schema.String,
  email: Schema.NullOr(Schema.String),
  is_system: Schema.optional(Schema.Boolean)
})

const Activity = Schema.Struct({
  id: Schema.String,
  user: ActivityUser,
  activity: Schema.String,
  scope: Schema.String,
  item_id: Schema.String,
  detail: Schema.Unknown,
  created_at: Schema.Date
}).annotations({ identifier: "ActivityLogEntry" })

export const ActivityPage = Schema.Struct({
  results: Schema.Array(Activity),
  next: Schema.NullOr(Schema.String),
  previous: Schema.NullOr(Schema.String),
  total_count: Schema.Int
}).annotations({ identifier: "ActivityLogPage" })

const SYSTEM = { first_name: "System", email: null, is_system: true }

const withUsers = (entries: ReadonlyArray<ActivityEntry>) =>
  Effect.gen(function*() {
    const ids = [...new Set(entries.map((e) => e.user_id).filter((id): id is number => id !== null))]
    const users = new Map((yield* (yield* UserStore).getMany(ids)).map((u) => [u.id, { first_name: u.first_name, email: u.email }]))
    return entries.map(({ user_id, ...entry }) => ({ ...entry, user: (user_id === null ? undefined : users.get(user_id)) ?? SYSTEM }))
  })

/** Page-numbered links, as PostHog's activity pagination has them. */
const pageLink = (url: URL, page: number) => {
  const link = new URL(url)
  link.searchParams.set("page", String(page))
  return link.toString()
}

/** The query parameters of activity pages. */
export const ActivityParams = Schema.Struct({
  limit: Schema.optional(IntFromString(1)),
  page: Schema.optional(IntFromString(1)),
  format: Format
})

/** One page of an insight's activity (of every insight's without one), newest first. */
export const activityPage = (projectId: number, insightId: number | undefined, query: typeof ActivityParams.Type, url: URL) =>
  Effect.gen(function*() {
    const limit = query.limit ?? DEFAULT_LIMIT
    const page = query.page ?? 1
    const { count, results } = yield* (yield* InsightStore).activity(projectId, SCOPE, insightId === undefined ? undefined : String(insightId), { limit, offset: (page - 1) * limit })
    const entries = yield* withUsers(results)
    if (query.format === "csv") return yield* csvReply(Activity, entries)
    return {
      results: entries,
      next: page * limit < count ? pageLink(url, page + 1) : null,
      previous: page > 1 ? pageLink(url, page - 1) : null,
      total_count: count
    }
  })
