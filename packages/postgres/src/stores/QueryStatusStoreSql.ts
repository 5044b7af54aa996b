import { SqlClient } from "@effect/sql"
import { type QueryStatus, QueryStatusStore } from "@zed/core/storage"
import { Array as Arr, Effect, Layer } from "effect"
import { orStorageError } from "./sqlErrors.js"

const COLUMNS = `id, project_id AS team_id, query_async, complete, error, error_message, results, start_time, pickup_time,
  end_time, expiration_time, task_id, insight_id, dashboard_id, labels, query_progress`

// SQL NULL for null (and absent) values, so a null reads back as null.
const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value))

/** The columns a status sets, beside its key; JSON ones as text, which the columns' type reads. */
const row = (s: QueryStatus) => ({
  query_async: s.query_async,
  complete: s.complete,
  error: s.error,
  error_message: s.error_message,
  results: json(s.results),
  start_time: s.start_time,
  pickup_time: s.pickup_time,
  end_time: s.end_time,
  expiration_time: s.expiration_time,
  task_id: s.task_id,
  insight_id: s.insight_id,
  dashboard_id: s.dashboard_id,
  labels: json(s.labels),
  query_progress: json(s.query_progress)
})
const UPDATED = Object.keys(row({} as QueryStatus))

export const QueryStatusStoreSql = Layer.effect(
  QueryStatusStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)
    return QueryStatusStore.of({
      put: (s) =>
        orStorageError(sql`
          INSERT INTO query_statuses ${sql.insert({ project_id: s.team_id, id: s.id, ...row(s) })}
          ON CONFLICT (project_id, id) DO UPDATE SET ${sql.literal(UPDATED.map((c) => `${c} = excluded.${c}`).join(", "))}`).pipe(
          Effect.asVoid
        ),
      update: (s) =>
        orStorageError(
          sql`UPDATE query_statuses SET ${sql.update(row(s))} WHERE project_id = ${s.team_id} AND id = ${s.id} RETURNING 1`
        ).pipe(Effect.map((rows) => rows.length > 0)),
      get: (projectId, id, now) =>
        orStorageError(sql<QueryStatus>`
          SELECT ${columns} FROM query_statuses
          WHERE project_id = ${projectId} AND id = ${id} AND (expiration_time IS NULL OR expiration_time > ${now})`).pipe(
          Effect.map(Arr.head)
        ),
      remove: (projectId, id) =>
        orStorageError(sql`DELETE FROM query_statuses WHERE project_id = ${projectId} AND id = ${id}`).pipe(
          Effect.asVoid
        ),
      removeExpired: (now) =>
        orStorageError(sql<{ removed: number }>`
          WITH gone AS (DELETE FROM query_statuses WHERE expiration_time <= ${now} RETURNING 1)
          SELECT count(*)::int AS removed FROM gone`).pipe(Effect.map((rows) => rows[0]!.removed))
    })
  })
)
