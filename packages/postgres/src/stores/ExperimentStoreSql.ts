import { SqlClient, type Statement } from "@effect/sql"
import { Experiment, ExperimentInsert, ExperimentStore, type StoredExperiment } from "@zed/core/storage"
import { Array as Arr, Effect, Layer } from "effect"
import { entityColumns } from "./entityColumns.js"
import { orStorageError } from "./sqlErrors.js"

export const ExperimentStoreSql = Layer.effect(
  ExperimentStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const experiments = entityColumns(sql, Experiment, ExperimentInsert)
    const select = (where: Statement.Fragment) =>
      orStorageError(
        sql<StoredExperiment>`SELECT ${experiments.columns} FROM experiments WHERE ${where} AND NOT deleted ORDER BY id DESC`
      )

    return ExperimentStore.of({
      list: (projectId, q) => {
        const where = sql.and([
          sql`project_id = ${projectId}`,
          sql`NOT deleted`,
          ...(q.search === undefined ? [] : [sql`strpos(lower(name), lower(${q.search})) > 0`]),
          ...(q.archived === undefined ? [] : [sql`archived = ${q.archived}`])
        ])
        return orStorageError(
          Effect.all([
            sql<StoredExperiment>`SELECT ${experiments.columns} FROM experiments WHERE ${where} ORDER BY id DESC LIMIT ${q.limit} OFFSET ${q.offset}`,
            sql<{ total: number }>`SELECT count(*)::int AS total FROM experiments WHERE ${where}`
          ])
        ).pipe(Effect.map(([results, [count]]) => ({ count: count!.total, results })))
      },
      get: (projectId, id) => select(sql`project_id = ${projectId} AND id = ${id}`).pipe(Effect.map(Arr.head)),
      ofFlag: (projectId, flagId) => select(sql`project_id = ${projectId} AND feature_flag_id = ${flagId}`),
      ofFlags: (projectId, flagIds) =>
        flagIds.length === 0
          ? Effect.succeed([])
          : select(sql`project_id = ${projectId} AND ${sql.in("feature_flag_id", flagIds)}`),
      ofHoldout: (projectId, holdoutId) => select(sql`project_id = ${projectId} AND holdout_id = ${holdoutId}`),
      create: (projectId, e) =>
        orStorageError(sql<StoredExperiment>`
          INSERT INTO experiments (project_id, ${experiments.inserted}) VALUES (${projectId}, ${experiments.values(e)})
          RETURNING ${experiments.columns}`).pipe(Effect.map((rows) => rows[0]!)),
      update: (projectId, id, patch) =>
        orStorageError(sql<StoredExperiment>`UPDATE experiments SET ${sql.csv([...experiments.sets(patch), sql`updated_at = now()`])}
          WHERE project_id = ${projectId} AND id = ${id} AND NOT deleted RETURNING ${experiments.columns}`).pipe(
          Effect.map(Arr.head)
        )
    })
  })
)
