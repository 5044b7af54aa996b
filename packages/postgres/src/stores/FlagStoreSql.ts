import { SqlClient, type Statement } from "@effect/sql"
import { Flag, FlagInsert, FlagStore, type NewFlag, type StoredFlag } from "@zed/core/storage"
import { Array as Arr, Effect, Layer } from "effect"
import { orStorageError } from "./sqlErrors.js"

// The columns are the entity's fields. The API calls them evaluation contexts, the table keeps
// PostHog's column name; `has_experiment` is whether a live, unarchived experiment uses the flag.
const column = (field: string) => (field === "evaluation_contexts" ? "evaluation_tags" : field)
const selected = (field: string) =>
  field === "has_experiment"
    ? "EXISTS (SELECT 1 FROM experiments e WHERE e.feature_flag_id = feature_flags.id AND NOT e.deleted AND NOT e.archived) AS has_experiment"
    : column(field) === field
      ? field
      : `${column(field)} AS ${field}`
const COLUMNS = Object.keys(Flag.fields).map(selected).join(", ")
const INSERTED = Object.keys(FlagInsert.fields)

export const FlagStoreSql = Layer.effect(
  FlagStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)
    // Arrays and objects (filters, tags) are kept as jsonb.
    const value = (v: unknown): Statement.Fragment =>
      typeof v === "object" && v !== null ? sql`${JSON.stringify(v)}::jsonb` : sql`${v}`
    return FlagStore.of({
      list: (projectId, query) => {
        const where = sql.and([
          sql`project_id = ${projectId}`,
          sql`NOT deleted`,
          ...(query.active === undefined ? [] : [sql`active = ${query.active}`]),
          ...(query.search === undefined
            ? []
            : [sql`(key ILIKE ${`%${query.search}%`} OR name ILIKE ${`%${query.search}%`})`])
        ])
        return orStorageError(
          Effect.all([
            sql<StoredFlag>`SELECT ${columns} FROM feature_flags WHERE ${where}
            ORDER BY created_at DESC, id DESC LIMIT ${query.limit} OFFSET ${query.offset}`,
            sql<{ total: number }>`SELECT count(*)::int AS total FROM feature_flags WHERE ${where}`
          ])
        ).pipe(Effect.map(([results, [count]]) => ({ count: count!.total, results })))
      },
      get: (projectId, id) =>
        orStorageError(
          sql<StoredFlag>`SELECT ${columns} FROM feature_flags WHERE project_id = ${projectId} AND id = ${id} AND NOT deleted`
        ).pipe(Effect.map(Arr.head)),
      findByKey: (projectId, key) =>
        orStorageError(
          sql<StoredFlag>`SELECT ${columns} FROM feature_flags WHERE project_id = ${projectId} AND key = ${key} AND NOT deleted`
        ).pipe(Effect.map(Arr.head)),
      create: (projectId, flag) =>
        orStorageError(sql<StoredFlag>`
          INSERT INTO feature_flags (project_id, ${sql.literal(INSERTED.map(column).join(", "))}, last_modified_by)
          VALUES (${projectId}, ${sql.csv(INSERTED.map((field) => value(flag[field as keyof NewFlag])))}, ${flag.created_by})
          RETURNING ${columns}`).pipe(Effect.map((rows) => rows[0]!)),
      update: (projectId, id, patch) => {
        const sets = Object.entries(patch)
          .filter(([, v]) => v !== undefined)
          .map(([field, v]) => sql`${sql(column(field))} = ${value(v)}`)
        return orStorageError(sql<StoredFlag>`
          UPDATE feature_flags SET ${sql.csv(sets)}, version = version + 1, updated_at = now()
          WHERE project_id = ${projectId} AND id = ${id} AND NOT deleted
          RETURNING ${columns}`).pipe(Effect.map(Arr.head))
      },
      all: (projectId) =>
        orStorageError(
          sql<StoredFlag>`SELECT ${columns} FROM feature_flags WHERE project_id = ${projectId} AND NOT deleted ORDER BY id`
        )
    })
  })
)
