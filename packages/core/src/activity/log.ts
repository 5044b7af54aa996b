import { randomInt } from "node:crypto"
import { Effect } from "effect"
import { InsightStore, type StoredInsight } from "../services/InsightStore.js"

// The activity log (PostHog's activity_logging): one entry per create, update, delete, restore and
// sharing change of an item, naming the user and the fields that changed.

export interface Change {
  readonly field: string
  readonly before: unknown
  readonly after: unknown
}

/** The scope of insights' entries. */
export const INSIGHT_SCOPE = "Insight"

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
    const after = field === "description" ? (raw ?? "") : raw
    return same(before[field], after) ? [] : [{ field, before: before[field], after }]
  })

const SHORT_ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

/** A new item's 8-character `short_id`, the key of insights and playlists in URLs. */
export const shortId = () =>
  Array.from({ length: 8 }, () => SHORT_ID_ALPHABET[randomInt(SHORT_ID_ALPHABET.length)]).join("")

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
  Effect.gen(function* () {
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
        changes:
          changes.length === 0
            ? null
            : changes.map((c) => ({
                type: scope,
                action: action(c),
                field: c.field,
                before: c.before,
                after: c.after
              })),
        merge: null,
        trigger: null,
        name,
        short_id: item.short_id ?? null,
        type
      }
    })
  })

export const logInsightActivity = (
  projectId: number,
  userId: number | null,
  insight: StoredInsight,
  activity: string,
  changes: ReadonlyArray<Change>
) => logActivity(INSIGHT_SCOPE, projectId, userId, insight, activity, changes)
