import { Effect, Option } from "effect"
import { type PinnedRecording, type PlaylistOrder, PlaylistStore, type StoredPlaylist } from "../PlaylistStore.js"
import type { Journal } from "./journal.js"

type Owned = StoredPlaylist & { readonly project_id: number }

/** A pin; `order` stands for SQL's finer clock among pins of one millisecond. */
interface Item extends PinnedRecording {
  readonly playlist_id: number
  readonly deleted: boolean
  readonly order: number
}

const strip = ({ project_id: _, ...rest }: Owned): StoredPlaylist => rest

const value = (p: StoredPlaylist, column: string) => {
  const v = p[column as keyof StoredPlaylist]
  return v instanceof Date ? v.getTime() : (v as string | null)
}

/** As SQL orders: nulls sort as the greatest value, ties by id, newest first. */
const ordering = (order: PlaylistOrder) => {
  const descending = order.startsWith("-")
  const column = descending ? order.slice(1) : order
  return (a: StoredPlaylist, b: StoredPlaylist) => {
    const x = value(a, column)
    const y = value(b, column)
    const ascending = x === y ? 0 : x === null ? 1 : y === null ? -1 : x < y ? -1 : 1
    return (descending ? -ascending : ascending) || b.id - a.id
  }
}

export const makeMemoryPlaylists = (journal: Journal) => {
  const playlists = new Map<number, Owned>()
  const items = new Map<string, Item>()
  const ids = { playlist: 1, pin: 1 }

  const itemKey = (playlistId: number, sessionId: string) => JSON.stringify([playlistId, sessionId])
  const pinned = (playlistId: number) => [...items.values()].filter((i) => i.playlist_id === playlistId && !i.deleted)
  const find = (projectId: number, shortId: string) =>
    [...playlists.values()].find((p) => p.project_id === projectId && p.short_id === shortId)

  return PlaylistStore.of({
    list: (projectId, query) =>
      Effect.sync(() => {
        const search = query.search?.toLowerCase()
        const all = [...playlists.values()]
          .filter(
            (p) =>
              p.project_id === projectId &&
              !p.deleted &&
              (query.created_by === undefined || p.created_by === query.created_by) &&
              (query.short_id === undefined || p.short_id === query.short_id) &&
              (query.type === undefined || p.type === query.type) &&
              (query.pinned === undefined || p.pinned === query.pinned) &&
              (search === undefined || [p.name, p.derived_name].some((n) => n?.toLowerCase().includes(search))) &&
              (query.modified_after === undefined || p.last_modified_at > query.modified_after) &&
              (query.modified_before === undefined || p.last_modified_at < query.modified_before) &&
              (query.session_recording_id === undefined ||
                pinned(p.id).some((i) => i.session_id === query.session_recording_id))
          )
          .map(strip)
          .sort(ordering(query.order))
        return { count: all.length, results: all.slice(query.offset, query.offset + query.limit) }
      }),
    get: (projectId, shortId, includeDeleted = false) =>
      Effect.sync(() =>
        Option.fromNullable(find(projectId, shortId)).pipe(
          Option.filter((p) => includeDeleted || !p.deleted),
          Option.map(strip)
        )
      ),
    create: (projectId, input) =>
      Effect.sync(() => {
        const now = new Date()
        const playlist: Owned = {
          ...input,
          id: ids.playlist++,
          project_id: projectId,
          created_at: now,
          last_modified_by: input.created_by,
          last_modified_at: now,
          filters_count: null,
          filters_counted_at: null
        }
        journal.set(playlists, playlist.id, playlist)
        return strip(playlist)
      }),
    update: (projectId, shortId, { material, ...patch }) =>
      Effect.sync(() => {
        const playlist = find(projectId, shortId)
        if (playlist === undefined) return Option.none()
        const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined))
        const next: Owned = {
          ...playlist,
          ...defined,
          ...(material ? { last_modified_at: new Date() } : { last_modified_by: playlist.last_modified_by })
        }
        journal.set(playlists, next.id, next)
        return Option.some(strip(next))
      }),
    items: (playlistId) =>
      Effect.sync(() =>
        pinned(playlistId)
          .sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a.order - b.order)
          .map(({ session_id, created_at }) => ({ session_id, created_at }))
      ),
    addItem: (playlistId, sessionId) =>
      Effect.sync(() => {
        const key = itemKey(playlistId, sessionId)
        if (items.get(key)?.deleted === false) return
        journal.set(items, key, {
          playlist_id: playlistId,
          session_id: sessionId,
          deleted: false,
          created_at: new Date(),
          order: ids.pin++
        })
      }),
    removeItem: (playlistId, sessionId) =>
      Effect.sync(() => {
        const key = itemKey(playlistId, sessionId)
        const item = items.get(key)
        if (item === undefined || item.deleted) return false
        journal.set(items, key, { ...item, deleted: true })
        return true
      }),
    saveFiltersCount: (playlistId, count, at) =>
      Effect.sync(() => {
        const playlist = playlists.get(playlistId)
        if (playlist !== undefined)
          journal.set(playlists, playlistId, { ...playlist, filters_count: count, filters_counted_at: at })
      })
  })
}
