import { SqlClient, type Statement } from "@effect/sql"
import { FlagStore, type StoredFlag } from "@zed/core/storage"
import { Array as Arr, Effect, Layer } from "effect"
import { orStorageError } from "./sqlErrors.js"

const COLUMNS = `id, key, name, filters, active, deleted, version, ensure_experience_continuity, bucketing_identifier,
  evaluation_runtime, evaluation_tags AS evaluation_contexts, tags, false AS has_experiment, created_by, last_modified_by,
  created_at, updated_at`

const JSON_COLUMNS = new Set(["filters", "evaluation_contexts", "tags"])
// The API calls them evaluation contexts; the table keeps PostHog's column name.
const column = (field: string) => (field === "evaluation_contexts" ? "evaluation_tags" : field)

export const FlagStoreSql = Layer.effect(
  FlagStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)
    const value = (field: string, v: unknown): Statement.Fragment =>
      JSON_COLUMNS.has(field) ? sql`${JSON.stringify(v)}::jsonb` : sql`${v}`
    return FlagStore.of({
      list: (projectId, query) => {
        const where = sql.and([
          sql`project_id = ${projectId}`,
          sql`NOT deleted`,
          ...(query.active === undefined ? [] : [sql`active = ${query.active}`]),
          ...(query.search === undefined ? [] : [sql`(key ILIKE ${`%${query.search}%`} OR name ILIKE ${`%${query.search}%`})`])
        ])
        return orStorageError(Effect.all([
          sql<StoredFlag>`SELECT ${columns} FROM feature_flags WHERE ${where}
            ORDER BY created_at DESC, id DESC LIMIT ${query.limit} OFFSET ${query.offset}`,
          sql<{ total: number }>`SELECT count(*)::int AS total FROM feature_flags WHERE ${where}`
        ])).pipe(Effect.map(([results, [count]]) => ({ count: count!.total, results })))
      },
      get: (projectId, id) =>
        orStorageError(sql<StoredFlag>`SELECT ${columns} FROM feature_flags WHERE project_id = ${projectId} AND id = ${id} AND NOT deleted`)
          .pipe(Effect.map(Arr.head)),
      findByKey: (projectId, key) =>
        orStorageError(sql<StoredFlag>`SELECT ${columns} FROM feature_flags WHERE project_id = ${projectId} AND key = ${key} AND NOT deleted`)
          .pipe(Effect.map(Arr.head)),
      create: (projectId, flag) =>
        orStorageError(sql<StoredFlag>`
          INSERT INTO feature_flags (project_id, key, name, filters, active, ensure_experience_continuity, bucketing_identifier,
            evaluation_runtime, evaluation_tags, tags, created_by, last_modified_by)
          VALUES (${projectId}, ${flag.key}, ${flag.name}, ${JSON.stringify(flag.filters)}::jsonb, ${flag.active},
            ${flag.ensure_experience_continuity}, ${flag.bucketing_identifier}, ${flag.evaluation_runtime},
            ${JSON.stringify(flag.evaluation_contexts)}::jsonb, ${JSON.stringify(flag.tags)}::jsonb, ${flag.created_by}, ${flag.created_by})
          RETURNING ${columns}`).pipe(Effect.map((rows) => rows[0]!)),
      update: (projectId, id, patch) => {
        const sets = Object.entries(patch)
          .filter(([, v]) => v !== undefined)
          .map(([field, v]) => sql`${sql(column(field))} = ${value(field, v)}`)
        return orStorageError(sql<StoredFlag>`
          UPDATE feature_flags SET ${sql.csv(sets)}, version = version + 1, updated_at = now()
          WHERE project_id = ${projectId} AND id = ${id} AND NOT deleted
          RETURNING ${columns}`).pipe(Effect.map(Arr.head))
      },
      all: (projectId) =>
        orStorageError(sql<StoredFlag>`SELECT ${columns} FROM feature_flags WHERE project_id = ${projectId} AND NOT deleted ORDER BY id`)
    })
  })
)
