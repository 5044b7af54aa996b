import { Schema, Struct } from "effect"
import { withDefaults } from "../schema/defaults.js"

// A session recording playlist, declared once (see flags/flagEntity.ts): the stored record, the
// insert form with PostHog's defaults and the patch are derived from these fields, as are the
// API's wire fields and the SQL store's columns.

const UserId = Schema.NullOr(Schema.Int)

/** A collection of pinned recordings, or saved filters selecting recordings. */
export const PlaylistType = Schema.Literal("collection", "filters")
export type PlaylistType = typeof PlaylistType.Type

/** What a playlist is created with. */
const given = {
  short_id: Schema.String,
  name: Schema.NullOr(Schema.String),
  derived_name: Schema.NullOr(Schema.String),
  description: Schema.String,
  pinned: Schema.Boolean,
  deleted: Schema.Boolean,
  /** As the client sent them (read with the recordings list's filters where they come in). */
  filters: Schema.Unknown,
  /** Fixed once created. */
  type: PlaylistType,
  created_by: UserId
}

/** A playlist as stored: what it was given plus what the store keeps itself. */
export const Playlist = Schema.Struct({
  id: Schema.Int,
  ...given,
  created_at: Schema.DateFromSelf,
  last_modified_by: UserId,
  last_modified_at: Schema.DateFromSelf,
  /** The saved filters' count when last computed, for `recordings_counts.saved_filters.increased`. */
  filters_count: Schema.NullOr(Schema.Int),
  filters_counted_at: Schema.NullOr(Schema.DateFromSelf)
})
export type StoredPlaylist = typeof Playlist.Type

/** Creating a playlist: its short id, type and author are needed, the rest takes PostHog's default. */
export const PlaylistInsert = withDefaults(given, {
  name: () => null,
  derived_name: () => null,
  description: () => "",
  pinned: () => false,
  deleted: () => false,
  filters: () => ({})
})
export type NewPlaylist = typeof PlaylistInsert.Type

/** A new playlist from what its creator gave, defaults filled in. */
export const newPlaylist: (input: typeof PlaylistInsert.Encoded) => NewPlaylist = Schema.decodeSync(PlaylistInsert)

/** A change: any given field but the short id, type and author, who made it, and whether it is material. */
export const PlaylistPatch = Schema.partial(Schema.Struct(Struct.omit(given, "short_id", "type", "created_by"))).pipe(
  Schema.extend(
    Schema.Struct({
      last_modified_by: UserId,
      /** Whether a material field changed, which moves `last_modified_at` and `last_modified_by`. */
      material: Schema.Boolean
    })
  )
)
export type PlaylistPatch = typeof PlaylistPatch.Type
