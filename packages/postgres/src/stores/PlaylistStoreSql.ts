import { SqlClient } from "@effect/sql"
import { type PinnedRecording, Playlist, PlaylistInsert, PlaylistStore, type StoredPlaylist } from "@zed/core/storage"
import { Array as Arr, Effect, Layer } from "effect"
import { entityColumns } from "./entityColumns.js"
import { orStorageError } from "./sqlErrors.js"

export const PlaylistStoreSql = Layer.effect(
  PlaylistStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const playlists = entityColumns(sql, Playlist, PlaylistInsert)
    const find = (projectId: number, shortId: string, includeDeleted: boolean) =>
      orStorageError(sql<StoredPlaylist>`SELECT ${playlists.columns} FROM session_recording_playlists
        WHERE project_id = ${projectId} AND short_id = ${shortId} ${includeDeleted ? sql`` : sql`AND NOT deleted`}`).pipe(
        Effect.map(Arr.head)
      )

    return PlaylistStore.of({
      list: (projectId, query) => {
        const where = sql.and([
          sql`project_id = ${projectId}`,
          sql`NOT deleted`,
          ...(query.created_by === undefined ? [] : [sql`created_by = ${query.created_by}`]),
          ...(query.short_id === undefined ? [] : [sql`short_id = ${query.short_id}`]),
          ...(query.type === undefined ? [] : [sql`type = ${query.type}`]),
          ...(query.pinned === undefined ? [] : [sql`pinned = ${query.pinned}`]),
          ...(query.search === undefined
            ? []
            : [sql`(name ILIKE ${`%${query.search}%`} OR derived_name ILIKE ${`%${query.search}%`})`]),
          ...(query.modified_after === undefined ? [] : [sql`last_modified_at > ${query.modified_after}`]),
          ...(query.modified_before === undefined ? [] : [sql`last_modified_at < ${query.modified_before}`]),
          ...(query.session_recording_id === undefined
            ? []
            : [
                sql`EXISTS (SELECT 1 FROM session_recording_playlist_items i
            WHERE i.playlist_id = session_recording_playlists.id AND i.session_id = ${query.session_recording_id} AND NOT i.deleted)`
              ])
        ])
        // The order is one of PLAYLIST_ORDERS; names compare by code point, as in memory, whatever the database's collation.
        const descending = query.order.startsWith("-")
        const column = descending ? query.order.slice(1) : query.order
        const order = sql.literal(
          `${column === "name" ? `name COLLATE "C"` : column} ${descending ? "DESC" : "ASC"}, id DESC`
        )
        return orStorageError(
          Effect.all([
            sql<StoredPlaylist>`SELECT ${playlists.columns} FROM session_recording_playlists WHERE ${where}
            ORDER BY ${order} LIMIT ${query.limit} OFFSET ${query.offset}`,
            sql<{ total: number }>`SELECT count(*)::int AS total FROM session_recording_playlists WHERE ${where}`
          ])
        ).pipe(Effect.map(([results, [count]]) => ({ count: count!.total, results })))
      },
      get: (projectId, shortId, includeDeleted = false) => find(projectId, shortId, includeDeleted),
      create: (projectId, p) =>
        orStorageError(sql<StoredPlaylist>`
          INSERT INTO session_recording_playlists (project_id, ${playlists.inserted}, last_modified_by)
          VALUES (${projectId}, ${playlists.values(p)}, ${p.created_by})
          RETURNING ${playlists.columns}`).pipe(Effect.map((rows) => rows[0]!)),
      update: (projectId, shortId, { material, last_modified_by, ...patch }) => {
        const sets = [
          ...playlists.sets(patch),
          ...(material ? [sql`last_modified_at = now()`, sql`last_modified_by = ${last_modified_by}`] : [])
        ]
        if (sets.length === 0) return find(projectId, shortId, true)
        return orStorageError(sql<StoredPlaylist>`
          UPDATE session_recording_playlists SET ${sql.csv(sets)}
          WHERE project_id = ${projectId} AND short_id = ${shortId}
          RETURNING ${playlists.columns}`).pipe(Effect.map(Arr.head))
      },
      items: (playlistId) =>
        orStorageError(sql<PinnedRecording>`SELECT session_id, created_at FROM session_recording_playlist_items
          WHERE playlist_id = ${playlistId} AND NOT deleted ORDER BY created_at`),
      addItem: (playlistId, sessionId) =>
        Effect.asVoid(
          orStorageError(sql`
          INSERT INTO session_recording_playlist_items AS i (playlist_id, session_id, created_at)
          VALUES (${playlistId}, ${sessionId}, clock_timestamp())
          ON CONFLICT (playlist_id, session_id) DO UPDATE SET deleted = false, created_at = excluded.created_at WHERE i.deleted`)
        ),
      removeItem: (playlistId, sessionId) =>
        orStorageError(sql`UPDATE session_recording_playlist_items SET deleted = true
          WHERE playlist_id = ${playlistId} AND session_id = ${sessionId} AND NOT deleted
          RETURNING 1`).pipe(Effect.map((rows) => rows.length > 0)),
      saveFiltersCount: (playlistId, count, at) =>
        Effect.asVoid(
          orStorageError(sql`UPDATE session_recording_playlists SET filters_count = ${count}, filters_counted_at = ${at}
          WHERE id = ${playlistId}`)
        )
    })
  })
)
