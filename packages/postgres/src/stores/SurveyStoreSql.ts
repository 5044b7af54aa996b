import { SqlClient } from "@effect/sql"
import { isUuid, type StoredSurvey, Survey, SurveyInsert, SurveyStore } from "@zed/core/storage"
import { Array as Arr, Effect, Layer, Option } from "effect"
import { entityColumns } from "./entityColumns.js"
import { orStorageError } from "./sqlErrors.js"

export const SurveyStoreSql = Layer.effect(
  SurveyStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const surveys = entityColumns(sql, Survey, SurveyInsert)
    // clock_timestamp: surveys created in one transaction still list newest first.
    const newestFirst = sql.literal("created_at DESC, id DESC")

    return SurveyStore.of({
      list: (projectId, query) => {
        const where = sql.and([
          sql`project_id = ${projectId}`,
          ...(query.archived === undefined ? [] : [sql`archived = ${query.archived}`]),
          ...(query.search === undefined
            ? []
            : [sql`(name ILIKE ${`%${query.search}%`} OR description ILIKE ${`%${query.search}%`})`])
        ])
        return orStorageError(
          Effect.all([
            sql<StoredSurvey>`SELECT ${surveys.columns} FROM surveys WHERE ${where} ORDER BY ${newestFirst} LIMIT ${query.limit} OFFSET ${query.offset}`,
            sql<{ total: number }>`SELECT count(*)::int AS total FROM surveys WHERE ${where}`
          ])
        ).pipe(Effect.map(([results, [count]]) => ({ count: count!.total, results })))
      },
      unarchived: (projectId) =>
        orStorageError(
          sql<StoredSurvey>`SELECT ${surveys.columns} FROM surveys WHERE project_id = ${projectId} AND NOT archived ORDER BY ${newestFirst}`
        ),
      // An id that is no UUID names no survey here, as in memory, rather than failing the uuid cast.
      get: (projectId, id) =>
        !isUuid(id)
          ? Effect.succeed(Option.none())
          : orStorageError(
              sql<StoredSurvey>`SELECT ${surveys.columns} FROM surveys WHERE project_id = ${projectId} AND id = ${id}`
            ).pipe(Effect.map(Arr.head)),
      create: (projectId, s) =>
        orStorageError(sql<StoredSurvey>`
          INSERT INTO surveys (project_id, ${surveys.inserted}, created_at, updated_at)
          VALUES (${projectId}, ${surveys.values(s)}, clock_timestamp(), clock_timestamp())
          RETURNING ${surveys.columns}`).pipe(Effect.map((rows) => rows[0]!)),
      update: (projectId, id, patch) => {
        if (!isUuid(id)) return Effect.succeed(Option.none())
        const sets = [...surveys.sets(patch), sql`updated_at = clock_timestamp()`]
        return orStorageError(sql<StoredSurvey>`UPDATE surveys SET ${sql.csv(sets)} WHERE project_id = ${projectId} AND id = ${id}
          RETURNING ${surveys.columns}`).pipe(Effect.map(Arr.head))
      },
      remove: (projectId, id) =>
        !isUuid(id)
          ? Effect.succeed(false)
          : orStorageError(sql`DELETE FROM surveys WHERE project_id = ${projectId} AND id = ${id} RETURNING 1`).pipe(
              Effect.map((rows) => rows.length > 0)
            )
    })
  })
)
