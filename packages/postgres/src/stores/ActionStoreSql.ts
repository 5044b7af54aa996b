import { SqlClient, type Statement } from "@effect/sql"
import { Action, ActionInsert, ActionStore, type StoredAction } from "@zed/core/storage"
import { Array as Arr, Effect, Layer } from "effect"
import { entityColumns } from "./entityColumns.js"
import { orStorageError } from "./sqlErrors.js"

export const ActionStoreSql = Layer.effect(
  ActionStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const actions = entityColumns(sql, Action, ActionInsert)
    const one = (where: Statement.Fragment) =>
      orStorageError(
        sql<StoredAction>`SELECT ${actions.columns} FROM actions WHERE ${where} AND NOT deleted ORDER BY id DESC LIMIT 1`
      ).pipe(Effect.map(Arr.head))

    return ActionStore.of({
      list: (projectId, q) => {
        const where = sql.and([
          sql`project_id = ${projectId}`,
          sql`NOT deleted`,
          ...(q.search === undefined ? [] : [sql`strpos(lower(name), lower(${q.search})) > 0`])
        ])
        return orStorageError(
          Effect.all([
            sql<StoredAction>`SELECT ${actions.columns} FROM actions WHERE ${where} ORDER BY id DESC LIMIT ${q.limit} OFFSET ${q.offset}`,
            sql<{ total: number }>`SELECT count(*)::int AS total FROM actions WHERE ${where}`
          ])
        ).pipe(Effect.map(([results, [count]]) => ({ count: count!.total, results })))
      },
      all: (projectId) =>
        orStorageError(
          sql<StoredAction>`SELECT ${actions.columns} FROM actions WHERE project_id = ${projectId} AND NOT deleted`
        ),
      get: (projectId, id) => one(sql`project_id = ${projectId} AND id = ${id}`),
      named: (projectId, name) => one(sql`project_id = ${projectId} AND name = ${name}`),
      create: (projectId, a) =>
        orStorageError(sql<StoredAction>`
          INSERT INTO actions (project_id, ${actions.inserted}) VALUES (${projectId}, ${actions.values(a)})
          RETURNING ${actions.columns}`).pipe(Effect.map((rows) => rows[0]!)),
      update: (projectId, id, patch) =>
        orStorageError(sql<StoredAction>`UPDATE actions SET ${sql.csv([...actions.sets(patch), sql`updated_at = now()`])}
          WHERE project_id = ${projectId} AND id = ${id} AND NOT deleted RETURNING ${actions.columns}`).pipe(
          Effect.map(Arr.head)
        )
    })
  })
)
