import { SqlClient } from "@effect/sql"
import { isUuid, type StoredSurvey, SurveyStore } from "@zed/core/storage"
import { Array as Arr, Effect, Layer, Option } from "effect"
import { jsonb, patchSets } from "./patchSets.js"
import { orStorageError } from "./sqlErrors.js"

const COLUMNS = `id, name, description, type, schedule, questions, conditions, appearance, linked_flag_id, targeting_flag_id,
  internal_targeting_flag_id, start_date, end_date, archived, responses_limit, enable_partial_responses, created_by, created_at, updated_at`

const JSON_COLUMNS = new Set(["questions", "conditions", "appearance"])

export const SurveyStoreSql = Layer.effect(
  SurveyStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)
    const json = (v: unknown) => jsonb(sql, v)
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
            sql<StoredSurvey>`SELECT ${columns} FROM surveys WHERE ${where} ORDER BY ${newestFirst} LIMIT ${query.limit} OFFSET ${query.offset}`,
            sql<{ total: number }>`SELECT count(*)::int AS total FROM surveys WHERE ${where}`
          ])
        ).pipe(Effect.map(([results, [count]]) => ({ count: count!.total, results })))
      },
      unarchived: (projectId) =>
        orStorageError(
          sql<StoredSurvey>`SELECT ${columns} FROM surveys WHERE project_id = ${projectId} AND NOT archived ORDER BY ${newestFirst}`
        ),
      // An id that is no UUID names no survey here, as in memory, rather than failing the uuid cast.
      get: (projectId, id) =>
        !isUuid(id)
          ? Effect.succeed(Option.none())
          : orStorageError(
              sql<StoredSurvey>`SELECT ${columns} FROM surveys WHERE project_id = ${projectId} AND id = ${id}`
            ).pipe(Effect.map(Arr.head)),
      create: (projectId, s) =>
        orStorageError(sql<StoredSurvey>`
          INSERT INTO surveys (id, project_id, name, description, type, schedule, questions, conditions, appearance, linked_flag_id,
            targeting_flag_id, internal_targeting_flag_id, start_date, end_date, archived, responses_limit, enable_partial_responses,
            created_by, created_at, updated_at)
          VALUES (${s.id}, ${projectId}, ${s.name}, ${s.description}, ${s.type}, ${s.schedule}, ${json(s.questions)}, ${json(s.conditions)},
            ${json(s.appearance)}, ${s.linked_flag_id}, ${s.targeting_flag_id}, ${s.internal_targeting_flag_id}, ${s.start_date}, ${s.end_date},
            ${s.archived}, ${s.responses_limit}, ${s.enable_partial_responses}, ${s.created_by}, clock_timestamp(), clock_timestamp())
          RETURNING ${columns}`).pipe(Effect.map((rows) => rows[0]!)),
      update: (projectId, id, patch) => {
        if (!isUuid(id)) return Effect.succeed(Option.none())
        const sets = [...patchSets(sql, patch, JSON_COLUMNS), sql`updated_at = clock_timestamp()`]
        return orStorageError(sql<StoredSurvey>`UPDATE surveys SET ${sql.csv(sets)} WHERE project_id = ${projectId} AND id = ${id}
          RETURNING ${columns}`).pipe(Effect.map(Arr.head))
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
