import { Effect, Schema } from "effect"
import { INSIGHT_SCOPE } from "../activity/log.js"
import { IntFromString } from "../schema/fields.js"
import { type ActivityEntry, InsightStore } from "../services/InsightStore.js"
import { UserStore } from "../services/UserStore.js"
import { csvReply, Format } from "./csv.js"

// Pages of the activity log as PostHog's activity endpoints give them.

const DEFAULT_LIMIT = 10

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
  Effect.gen(function* () {
    const ids = [...new Set(entries.map((e) => e.user_id).filter((id): id is number => id !== null))]
    const users = new Map(
      (yield* (yield* UserStore).getMany(ids)).map((u) => [u.id, { first_name: u.first_name, email: u.email }])
    )
    return entries.map(({ user_id, ...entry }) => ({
      ...entry,
      user: (user_id === null ? undefined : users.get(user_id)) ?? SYSTEM
    }))
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
export const activityPage = (
  projectId: number,
  insightId: number | undefined,
  query: typeof ActivityParams.Type,
  url: URL
) =>
  Effect.gen(function* () {
    const limit = query.limit ?? DEFAULT_LIMIT
    const page = query.page ?? 1
    const { count, results } = yield* (yield* InsightStore).activity(
      projectId,
      INSIGHT_SCOPE,
      insightId === undefined ? undefined : String(insightId),
      { limit, offset: (page - 1) * limit }
    )
    const entries = yield* withUsers(results)
    if (query.format === "csv") return yield* csvReply(Activity, entries)
    return {
      results: entries,
      next: page * limit < count ? pageLink(url, page + 1) : null,
      previous: page > 1 ? pageLink(url, page - 1) : null,
      total_count: count
    }
  })
