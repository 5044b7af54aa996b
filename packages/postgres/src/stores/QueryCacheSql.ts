import { SqlClient } from "@effect/sql"
import { type CachedResponse, QueryCache } from "@zed/core/storage"
import { Array as Arr, Effect, Layer } from "effect"
import { orStorageError } from "./sqlErrors.js"

export const QueryCacheSql = Layer.effect(
  QueryCache,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return QueryCache.of({
      get: (projectId, key) =>
        orStorageError(sql<CachedResponse>`
          SELECT key, response, last_refresh AS "lastRefresh", expires_at AS "expiresAt"
          FROM query_cache WHERE project_id = ${projectId} AND key = ${key}`).pipe(Effect.map(Arr.head)),
      put: (projectId, entry) =>
        orStorageError(sql`
          INSERT INTO query_cache (project_id, key, response, last_refresh, expires_at)
          VALUES (${projectId}, ${entry.key}, ${JSON.stringify(entry.response)}::json, ${entry.lastRefresh}, ${entry.expiresAt})
          ON CONFLICT (project_id, key) DO UPDATE
            SET response = excluded.response, last_refresh = excluded.last_refresh, expires_at = excluded.expires_at`).pipe(
          Effect.asVoid
        ),
      removeExpired: (now) =>
        orStorageError(sql<{ removed: number }>`
          WITH gone AS (DELETE FROM query_cache WHERE expires_at <= ${now} RETURNING 1)
          SELECT count(*)::int AS removed FROM gone`).pipe(Effect.map((rows) => rows[0]!.removed))
    })
  })
)
