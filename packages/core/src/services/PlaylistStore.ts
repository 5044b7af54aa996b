import { Context, type Effect, type Option } from "effect"
import type { NewPlaylist, PlaylistPatch, PlaylistType, StoredPlaylist } from "../recordings/playlistEntity.js"
import type { StorageError } from "./StorageError.js"

// Session recording playlists: a collection of pinned recordings, or saved filters.

export type { NewPlaylist, PlaylistPatch, PlaylistType, StoredPlaylist }

export interface PlaylistQuery {
  readonly created_by?: number | undefined
  readonly short_id?: string | undefined
  readonly type?: PlaylistType | undefined
  readonly pinned?: boolean | undefined
  /** Case-insensitive part of the name or derived name. */
  readonly search?: string | undefined
  /** `last_modified_at` bounds. */
  readonly modified_after?: Date | undefined
  readonly modified_before?: Date | undefined
  /** Playlists pinning this recording. */
  readonly session_recording_id?: string | undefined
  /** A column of the playlist, `-` for descending; default `-last_modified_at`. */
  readonly order: PlaylistOrder
  readonly limit: number
  readonly offset: number
}

export const PLAYLIST_ORDERS = [
  "last_modified_at",
  "-last_modified_at",
  "created_at",
  "-created_at",
  "name",
  "-name"
] as const
export type PlaylistOrder = (typeof PLAYLIST_ORDERS)[number]

export interface PinnedRecording {
  readonly session_id: string
  readonly created_at: Date
}

export class PlaylistStore extends Context.Tag("@zed/core/PlaylistStore")<
  PlaylistStore,
  {
    /** Live (not deleted) playlists, in `order` (ties by id, newest first). */
    readonly list: (
      projectId: number,
      query: PlaylistQuery
    ) => Effect.Effect<{ readonly count: number; readonly results: ReadonlyArray<StoredPlaylist> }, StorageError>
    /** One playlist; a deleted one only with `includeDeleted` (restoring needs it). */
    readonly get: (
      projectId: number,
      shortId: string,
      includeDeleted?: boolean
    ) => Effect.Effect<Option.Option<StoredPlaylist>, StorageError>
    readonly create: (projectId: number, playlist: NewPlaylist) => Effect.Effect<StoredPlaylist, StorageError>
    readonly update: (
      projectId: number,
      shortId: string,
      patch: PlaylistPatch
    ) => Effect.Effect<Option.Option<StoredPlaylist>, StorageError>
    /** The playlist's pinned recordings, oldest pin first. */
    readonly items: (playlistId: number) => Effect.Effect<ReadonlyArray<PinnedRecording>, StorageError>
    /** Pins the recording (again, if it was removed); pinning twice is one pin. */
    readonly addItem: (playlistId: number, sessionId: string) => Effect.Effect<void, StorageError>
    /** Unpins it; false when it was not pinned. */
    readonly removeItem: (playlistId: number, sessionId: string) => Effect.Effect<boolean, StorageError>
    /** Keeps the saved filters' latest count. */
    readonly saveFiltersCount: (playlistId: number, count: number, at: Date) => Effect.Effect<void, StorageError>
  }
>() {}
