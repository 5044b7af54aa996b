import { Effect, Option, Schema, Struct } from "effect"
import type { Project } from "../../domain/models.js"
import { UserBasic } from "../../domain/models.js"
import { RecordingFilters } from "../../recordings/filters.js"
import { MAX_SESSION_ID_LENGTH } from "../../recordings/payload.js"
import { recordingsOf, selectRecordings } from "../../recordings/select.js"
import { newPlaylist, Playlist as Entity, PlaylistType } from "../../recordings/playlistEntity.js"
import {
  PLAYLIST_ORDERS,
  type PlaylistPatch,
  PlaylistStore,
  type StoredPlaylist
} from "../../services/PlaylistStore.js"
import { RecordingStore } from "../../services/RecordingStore.js"
import { Transactor } from "../../services/Transactor.js"
import { NotFound } from "../errors.js"
import { ValidationError } from "../../schema/ValidationError.js"
import { PageParams, Paginated, paginated, toPage } from "../../domain/pagination.js"
import { environmentRoute, softDeleteOnly } from "../route.js"
import { userLookup } from "../users.js"
import { check, dateInZone, IntFromString } from "../../schema/fields.js"
import { toValidationError } from "../../schema/decode.js"
import { changesOf, logActivity, shortId } from "../../activity/log.js"
import { queryFailure } from "../queryReplies.js"
import {
  presentRecordings,
  RecordingList,
  recordingList,
  recordingPage,
  RecordingPageParams
} from "../wire/recordings.js"

// Session recording playlists (PostHog's `/session_recording_playlists/`, keyed by `short_id`): a
// collection of pinned recordings, or saved filters selecting recordings. Filters are stored as
// sent and read with the recordings list's filters, so a filter Zed cannot apply is refused, never
// ignored. Deleting is soft (PATCH {"deleted": true}); DELETE answers 405.

const SCOPE = "SessionRecordingPlaylist"

/** The saved filters' count is over their first page, as PostHog's background job counts it. */
const SAVED_FILTERS_PAGE = { limit: 50, offset: 0 }
const MAX_BULK = 20

// The wire takes a null description or filters (as none), and any type (refused with PostHog's
// message unless it is one); the rest are the entity's fields as declared.
const PlaylistFields = Schema.partial(
  Schema.Struct({
    ...Struct.pick(Entity.fields, "name", "derived_name"),
    description: Schema.NullOr(Schema.String),
    ...Struct.pick(Entity.fields, "pinned", "deleted"),
    filters: Schema.NullOr(Schema.Unknown).annotations({
      description:
        "What a `filters` playlist selects, as the recordings list takes it: `date_from`, `date_to`, `duration`, `events`, `properties`, `filter_group`, `filter_test_accounts`, `order`…"
    }),
    type: Schema.Unknown.annotations({
      description:
        "`collection` (pinned recordings) or `filters` (saved filters); without it, `filters` when filters are given, else `collection`; fixed after creation."
    })
  })
).annotations({ identifier: "SessionRecordingPlaylistWrite" })
type PlaylistInput = typeof PlaylistFields.Type

const CollectionCounts = Schema.Struct({ count: Schema.NullOr(Schema.Int), watched_count: Schema.Int })

const SavedFiltersCounts = Schema.Struct({
  count: Schema.NullOr(Schema.Int),
  watched_count: Schema.NullOr(Schema.Int),
  has_more: Schema.NullOr(Schema.Boolean),
  increased: Schema.NullOr(Schema.Boolean),
  last_refreshed_at: Schema.NullOr(Schema.Date)
})

export const Playlist = Schema.Struct({
  ...Struct.pick(Entity.fields, "id", "short_id", "name", "derived_name", "description", "pinned"),
  created_at: Schema.Date,
  created_by: Schema.NullOr(UserBasic),
  ...Struct.pick(Entity.fields, "deleted", "filters"),
  last_modified_at: Schema.Date,
  last_modified_by: Schema.NullOr(UserBasic),
  recordings_counts: Schema.Struct({
    collection: CollectionCounts.annotations({
      description: "Pinned recordings (count null when none) and how many of them the caller has watched."
    }),
    saved_filters: SavedFiltersCounts.annotations({
      description:
        "For a `filters` playlist, computed on read over the first 50 recordings the filters select; `increased`: more than at the previous read. All null for a collection."
    })
  }),
  ...Struct.pick(Entity.fields, "type")
}).annotations({ identifier: "SessionRecordingPlaylist" })
type Playlist = typeof Playlist.Type

const invalid = (detail: string, attr: string | null = null) =>
  new ValidationError({ code: "invalid_input", detail, attr })
const notFound = () => new NotFound({ detail: "Not found." })

/** PostHog's test for filters: none, or an empty object, is no filters. */
const hasFilters = (filters: unknown) =>
  filters !== null && filters !== undefined && !(typeof filters === "object" && Object.keys(filters).length === 0)

/** The filters as the recordings selection reads them, or a 400 naming the field (`filters__…`). */
const readFilters = (filters: unknown) =>
  Schema.decodeUnknown(RecordingFilters, { errors: "first" })(filters).pipe(
    Effect.mapError((error) => toValidationError(error, ["filters"]))
  )

/**
 * The type a creation asks for, or PostHog's 400. The contract's body has no `type`: then
 * a playlist with filters saves them, one without collects recordings.
 */
const creationType = (body: PlaylistInput) => {
  if (body.type === undefined)
    return Effect.succeed(hasFilters(body.filters) ? ("filters" as const) : ("collection" as const))
  return Schema.is(PlaylistType)(body.type)
    ? Effect.succeed(body.type)
    : Effect.fail(invalid("Must provide a valid playlist type: either filters or collection"))
}

const savedFiltersCounts = (project: Project, userId: number, playlist: StoredPlaylist) =>
  Effect.gen(function* () {
    const filters = yield* readFilters(playlist.filters)
    const { hasNext, recordings } = yield* selectRecordings(project, filters, SAVED_FILTERS_PAGE).pipe(
      Effect.catchAll(queryFailure)
    )
    const viewed = yield* (yield* RecordingStore).viewed(
      project.id,
      userId,
      recordings.map((r) => r.session_id)
    )
    const now = new Date()
    yield* (yield* PlaylistStore).saveFiltersCount(playlist.id, recordings.length, now)
    return {
      count: recordings.length,
      watched_count: viewed.size,
      has_more: hasNext,
      increased: playlist.filters_count !== null && recordings.length > playlist.filters_count,
      last_refreshed_at: now
    }
  })

const NOT_COUNTED = { count: null, watched_count: null, has_more: null, increased: null, last_refreshed_at: null }

/** Playlists as the API shows them: with their users and their recordings' counts for the caller. */
const presentPlaylists = (project: Project, userId: number, playlists: ReadonlyArray<StoredPlaylist>) =>
  Effect.gen(function* () {
    const store = yield* PlaylistStore
    const recordings = yield* RecordingStore
    const user = yield* userLookup(playlists.flatMap((p) => [p.created_by, p.last_modified_by]))
    return yield* Effect.forEach(playlists, (playlist) =>
      Effect.gen(function* () {
        const pinned = (yield* store.items(playlist.id)).map((i) => i.session_id)
        const watched = yield* recordings.viewed(project.id, userId, pinned)
        const { filters_count: _, filters_counted_at: __, ...fields } = playlist
        return {
          ...fields,
          created_by: user(playlist.created_by),
          last_modified_by: user(playlist.last_modified_by),
          recordings_counts: {
            collection: { count: pinned.length === 0 ? null : pinned.length, watched_count: watched.size },
            saved_filters:
              playlist.type === "filters" ? yield* savedFiltersCounts(project, userId, playlist) : NOT_COUNTED
          }
        } satisfies Playlist
      })
    )
  })

const PlaylistRef = Schema.Struct({ short_id: Schema.String })

/** A live playlist of the project (a deleted one too with `includeDeleted`), or 404. */
const findPlaylist = (projectId: number, shortId: string, includeDeleted = false) =>
  Effect.flatMap(
    Effect.flatMap(PlaylistStore, (s) => s.get(projectId, shortId, includeDeleted)),
    Option.match({
      onNone: () => Effect.fail(notFound()),
      onSome: Effect.succeed
    })
  )

/** A date bound of the list (a date, or relative like `-7d`), or a 400 naming the parameter. */
const instantOf = (project: Project, text: string | undefined, attr: string) =>
  text === undefined ? Effect.succeed(undefined) : dateInZone(text, project.timezone, new Date(), attr)

const list = environmentRoute({
  method: "GET",
  path: "/session_recording_playlists",
  tag: "session recording playlists",
  summary: "List session recording playlists",
  description:
    "Live playlists, most recently modified first (or by `order`). `user` and `pinned` filter by their presence alone.",
  scope: "session_recording_playlist:read",
  query: PageParams.pipe(
    Schema.extend(
      Schema.Struct({
        short_id: Schema.optional(Schema.String),
        created_by: Schema.optional(IntFromString(0)),
        user: Schema.optional(Schema.String.annotations({ description: "Present: only the caller's playlists." })),
        type: Schema.optional(PlaylistType),
        pinned: Schema.optional(Schema.String.annotations({ description: "Present: only pinned playlists." })),
        date_from: Schema.optional(
          Schema.String.annotations({ description: "Modified after: a date or a relative date (`-7d`)." })
        ),
        date_to: Schema.optional(Schema.String.annotations({ description: "Modified before." })),
        search: Schema.optional(Schema.String.annotations({ description: "Part of the name or derived name." })),
        session_recording_id: Schema.optional(
          Schema.String.annotations({ description: "Playlists pinning this recording." })
        ),
        order: Schema.optional(Schema.Literal(...PLAYLIST_ORDERS))
      })
    )
  ),
  response: Paginated(Playlist, "PaginatedSessionRecordingPlaylistList"),
  handler: ({ principal, project, query, request }) =>
    Effect.gen(function* () {
      const page = toPage(query)
      const { count, results } = yield* (yield* PlaylistStore).list(project.id, {
        short_id: query.short_id,
        created_by: query.user !== undefined ? principal.user.id : query.created_by,
        type: query.type,
        pinned: query.pinned === undefined ? undefined : true,
        modified_after: yield* instantOf(project, query.date_from, "date_from"),
        modified_before: yield* instantOf(project, query.date_to, "date_to"),
        search: query.search,
        session_recording_id: query.session_recording_id,
        order: query.order ?? "-last_modified_at",
        ...page
      })
      return paginated(request.url, page, count, yield* presentPlaylists(project, principal.user.id, results))
    })
})

const create = environmentRoute({
  method: "POST",
  path: "/session_recording_playlists",
  tag: "session recording playlists",
  summary: "Create a session recording playlist",
  description:
    "`type`: a `collection` takes no filters, a `filters` playlist needs them; without `type`, a playlist with `filters` is a `filters` playlist and one without is a `collection`.",
  scope: "session_recording_playlist:write",
  body: PlaylistFields,
  response: Playlist,
  status: 201,
  handler: ({ body, principal, project }) =>
    Effect.gen(function* () {
      const type = yield* creationType(body)
      if (type === "collection" && hasFilters(body.filters))
        return yield* invalid("You cannot create a collection with filters")
      if (type === "filters") {
        if (!hasFilters(body.filters))
          return yield* invalid("You must provide a valid filters when creating a saved filter")
        yield* readFilters(body.filters)
      }
      const store = yield* PlaylistStore
      const playlist = yield* (yield* Transactor).transaction(
        Effect.gen(function* () {
          const playlist = yield* store.create(
            project.id,
            newPlaylist({
              ...body,
              description: body.description ?? undefined,
              filters: hasFilters(body.filters) ? body.filters : undefined,
              type,
              short_id: shortId(),
              created_by: principal.user.id
            })
          )
          yield* logActivity(SCOPE, project.id, principal.user.id, playlist, "created", [])
          return playlist
        })
      )
      return (yield* presentPlaylists(project, principal.user.id, [playlist]))[0]!
    })
})

const retrieve = environmentRoute({
  method: "GET",
  path: "/session_recording_playlists/:short_id",
  tag: "session recording playlists",
  summary: "Retrieve a session recording playlist",
  scope: "session_recording_playlist:read",
  params: PlaylistRef,
  response: Playlist,
  handler: ({ params, principal, project }) =>
    Effect.flatMap(findPlaylist(project.id, params.short_id), (p) =>
      Effect.map(presentPlaylists(project, principal.user.id, [p]), (rows) => rows[0]!)
    )
})

/** The fields activity logs. */
const LOGGED = ["name", "derived_name", "description", "pinned", "deleted", "filters"] as const
/** Changes to these move `last_modified_at` (PostHog's material playlist fields). */
const MATERIAL = new Set<string>(["name", "description", "filters"])

const update = environmentRoute({
  method: "PATCH",
  path: "/session_recording_playlists/:short_id",
  tag: "session recording playlists",
  summary:
    'Update a session recording playlist (soft-deletes it with {"deleted": true}, restores it with {"deleted": false})',
  description: "A collection cannot gain filters, a `filters` playlist cannot lose them all, and `type` cannot change.",
  scope: "session_recording_playlist:write",
  params: PlaylistRef,
  body: PlaylistFields,
  response: Playlist,
  handler: ({ body, params, principal, project }) =>
    Effect.gen(function* () {
      // A deleted playlist answers only the PATCH that restores it.
      const before = yield* findPlaylist(project.id, params.short_id, body.deleted === false)
      if (body.type !== undefined && body.type !== before.type)
        return yield* invalid("The playlist type cannot be changed.", "type")
      if (body.filters !== undefined) {
        if (before.type === "collection" && hasFilters(body.filters))
          return yield* invalid("You cannot update a collection to add filters")
        if (before.type === "filters") {
          if (!hasFilters(body.filters))
            return yield* invalid("You cannot remove all filters from a filters-based playlist")
          yield* readFilters(body.filters)
        }
      }
      const changes = changesOf(LOGGED, before, { ...body, filters: body.filters === null ? {} : body.filters })
      const { type: _, ...fields } = body
      const patch: PlaylistPatch = {
        ...fields,
        description: body.description === null ? "" : body.description,
        filters: body.filters === null ? {} : body.filters,
        last_modified_by: principal.user.id,
        material: changes.some((c) => MATERIAL.has(c.field))
      }
      const store = yield* PlaylistStore
      const updated = yield* (yield* Transactor).transaction(
        Effect.gen(function* () {
          const updated = yield* Effect.flatMap(
            store.update(project.id, params.short_id, patch),
            Option.match({ onNone: () => Effect.fail(notFound()), onSome: Effect.succeed })
          )
          const activity = before.deleted === updated.deleted ? "updated" : updated.deleted ? "deleted" : "restored"
          yield* logActivity(SCOPE, project.id, principal.user.id, updated, activity, changes)
          return updated
        })
      )
      return (yield* presentPlaylists(project, principal.user.id, [updated]))[0]!
    })
})

const remove = softDeleteOnly(
  "/session_recording_playlists/:short_id",
  "session recording playlists",
  "session_recording_playlist:write"
)

const recordings = environmentRoute({
  method: "GET",
  path: "/session_recording_playlists/:short_id/recordings",
  tag: "session recording playlists",
  summary: "A playlist's recordings",
  description:
    "A collection: its pinned recordings that exist, in pin order (all of them). A `filters` playlist: the recordings its filters select, `limit` (50) at a time from `offset`.",
  scope: "session_recording_playlist:read",
  params: PlaylistRef,
  query: RecordingPageParams,
  response: RecordingList,
  handler: ({ params, principal, project, query }) =>
    Effect.gen(function* () {
      const playlist = yield* findPlaylist(project.id, params.short_id)
      if (playlist.type === "filters") {
        const filters = yield* readFilters(playlist.filters)
        return yield* recordingList(project, principal.user.id, filters, recordingPage(query))
      }
      const pinned = (yield* (yield* PlaylistStore).items(playlist.id)).map((i) => i.session_id)
      const metas = yield* recordingsOf(project.id, pinned)
      return {
        results: yield* presentRecordings(project.id, principal.user.id, metas),
        has_next: false,
        version: 4 as const
      }
    })
})

const SessionId = Schema.String.pipe(
  check(
    (s: string) => s.length > 0 && s.length <= MAX_SESSION_ID_LENGTH,
    "invalid_input",
    `A session id of 1 to ${MAX_SESSION_ID_LENGTH} characters.`
  )
)
const PinRef = Schema.Struct({ short_id: Schema.String, session_id: SessionId })
const Success = Schema.Struct({ success: Schema.Literal(true) })

/** A live collection, or 404 / PostHog's 400 for a `filters` playlist. */
const findCollection = (projectId: number, shortId: string) =>
  Effect.flatMap(findPlaylist(projectId, shortId), (playlist) =>
    playlist.type === "filters"
      ? Effect.fail(invalid("Cannot add recordings to a playlist that is type 'filters'."))
      : Effect.succeed(playlist)
  )

const pin = environmentRoute({
  method: "POST",
  path: "/session_recording_playlists/:short_id/recordings/:session_id",
  tag: "session recording playlists",
  summary: "Pin a recording to a collection",
  description:
    "The session need not have arrived yet; pinning it twice is one pin. A `filters` playlist takes no pins (400).",
  scope: "session_recording_playlist:write",
  params: PinRef,
  response: Success,
  handler: ({ params, project }) =>
    Effect.gen(function* () {
      const playlist = yield* findCollection(project.id, params.short_id)
      yield* (yield* PlaylistStore).addItem(playlist.id, params.session_id)
      return { success: true as const }
    })
})

const unpin = environmentRoute({
  method: "DELETE",
  path: "/session_recording_playlists/:short_id/recordings/:session_id",
  tag: "session recording playlists",
  summary: "Unpin a recording",
  description: "404 when the recording is not pinned to the playlist.",
  scope: "session_recording_playlist:write",
  params: PinRef,
  response: Success,
  handler: ({ params, project }) =>
    Effect.gen(function* () {
      const playlist = yield* findPlaylist(project.id, params.short_id)
      const removed = yield* (yield* PlaylistStore).removeItem(playlist.id, params.session_id)
      return removed ? { success: true as const } : yield* notFound()
    })
})

const BulkBody = Schema.Struct({
  session_recording_ids: Schema.Array(SessionId).pipe(
    check(
      (ids: ReadonlyArray<string>) => ids.length > 0,
      "invalid_input",
      "Provide at least one session recording id."
    ),
    check(
      (ids: ReadonlyArray<string>) => ids.length <= MAX_BULK,
      "max_length",
      `Ensure this field has no more than ${MAX_BULK} elements.`
    )
  )
})

const bulkAdd = environmentRoute({
  method: "POST",
  path: "/session_recording_playlists/:short_id/recordings/bulk_add",
  tag: "session recording playlists",
  summary: "Pin several recordings to a collection",
  description: `At most ${MAX_BULK} at a time; \`added_count\` counts the ids given (pinning twice is one pin).`,
  scope: "session_recording_playlist:write",
  params: PlaylistRef,
  body: BulkBody,
  response: Schema.Struct({ success: Schema.Boolean, added_count: Schema.Int, total_requested: Schema.Int }),
  handler: ({ body, params, project }) =>
    Effect.gen(function* () {
      const playlist = yield* findCollection(project.id, params.short_id)
      const store = yield* PlaylistStore
      const ids = [...new Set(body.session_recording_ids)]
      yield* (yield* Transactor).transaction(
        Effect.forEach(ids, (id) => store.addItem(playlist.id, id), { discard: true })
      )
      return { success: true, added_count: ids.length, total_requested: body.session_recording_ids.length }
    })
})

const bulkDelete = environmentRoute({
  method: "POST",
  path: "/session_recording_playlists/:short_id/recordings/bulk_delete",
  tag: "session recording playlists",
  summary: "Unpin several recordings",
  description: `At most ${MAX_BULK} at a time; \`deleted_count\` counts those that were pinned.`,
  scope: "session_recording_playlist:write",
  params: PlaylistRef,
  body: BulkBody,
  response: Schema.Struct({ success: Schema.Boolean, deleted_count: Schema.Int, total_requested: Schema.Int }),
  handler: ({ body, params, project }) =>
    Effect.gen(function* () {
      const playlist = yield* findPlaylist(project.id, params.short_id)
      const store = yield* PlaylistStore
      const removed = yield* (yield* Transactor).transaction(
        Effect.forEach([...new Set(body.session_recording_ids)], (id) => store.removeItem(playlist.id, id))
      )
      return {
        success: true,
        deleted_count: removed.filter(Boolean).length,
        total_requested: body.session_recording_ids.length
      }
    })
})

const viewed = environmentRoute({
  method: "POST",
  path: "/session_recording_playlists/:short_id/playlist_viewed",
  tag: "session recording playlists",
  summary: "Note that the caller opened the playlist",
  description:
    "Acknowledged for PostHog's clients; Zed keeps no history of playlist views (which recordings were watched is kept when their snapshots are fetched).",
  scope: "session_recording_playlist:write",
  params: PlaylistRef,
  response: Success,
  handler: ({ params, project }) => Effect.as(findPlaylist(project.id, params.short_id), { success: true as const })
})

export const playlistRoutes = [
  list,
  create,
  retrieve,
  update,
  remove,
  recordings,
  bulkAdd,
  bulkDelete,
  pin,
  unpin,
  viewed
]
