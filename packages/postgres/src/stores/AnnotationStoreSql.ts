import { SqlClient } from "@effect/sql"
import {
  Annotation,
  AnnotationInsert,
  type AnnotationOwner,
  AnnotationStore,
  type StoredAnnotation
} from "@zed/core/storage"
import { Array as Arr, Effect, Layer } from "effect"
import { entityColumns } from "./entityColumns.js"
import { orStorageError } from "./sqlErrors.js"

export const AnnotationStoreSql = Layer.effect(
  AnnotationStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const annotations = entityColumns(sql, Annotation, AnnotationInsert)
    const visible = (owner: AnnotationOwner) =>
      sql`NOT deleted AND (project_id = ${owner.projectId}
        OR (scope = 'organization' AND organization_id = ${owner.organizationId}))`
    const byId = (owner: AnnotationOwner, id: number) =>
      orStorageError(
        sql<StoredAnnotation>`SELECT ${annotations.columns} FROM annotations WHERE id = ${id} AND ${visible(owner)}`
      ).pipe(Effect.map(Arr.head))

    return AnnotationStore.of({
      list: (owner, q) => {
        const where = sql.and([
          visible(owner),
          ...(q.search === undefined ? [] : [sql`strpos(lower(coalesce(content, '')), lower(${q.search})) > 0`]),
          ...(q.scope === undefined ? [] : [sql`scope = ${q.scope}`]),
          ...(q.dashboardItem === undefined ? [] : [sql`dashboard_item = ${q.dashboardItem}`]),
          ...(q.dateFrom === undefined ? [] : [sql`date_marker >= ${q.dateFrom}`]),
          ...(q.dateTo === undefined ? [] : [sql`date_marker <= ${q.dateTo}`]),
          ...(q.after === undefined ? [] : [sql`created_at > ${q.after}`]),
          ...(q.before === undefined ? [] : [sql`created_at < ${q.before}`])
        ])
        return orStorageError(
          Effect.all([
            sql<StoredAnnotation>`SELECT ${annotations.columns} FROM annotations WHERE ${where}
              ORDER BY date_marker DESC NULLS LAST, id DESC LIMIT ${q.limit} OFFSET ${q.offset}`,
            sql<{ total: number }>`SELECT count(*)::int AS total FROM annotations WHERE ${where}`
          ])
        ).pipe(Effect.map(([results, [count]]) => ({ count: count!.total, results })))
      },
      get: byId,
      create: (owner, a) =>
        orStorageError(sql<StoredAnnotation>`
          INSERT INTO annotations (project_id, organization_id, ${annotations.inserted})
          VALUES (${owner.projectId}, ${owner.organizationId}, ${annotations.values(a)})
          RETURNING ${annotations.columns}`).pipe(Effect.map((rows) => rows[0]!)),
      update: (owner, id, patch) => {
        const sets = annotations.sets(patch)
        if (sets.length === 0) return byId(owner, id)
        return orStorageError(sql<StoredAnnotation>`UPDATE annotations SET ${sql.csv([...sets, sql`updated_at = now()`])}
          WHERE id = ${id} AND ${visible(owner)} RETURNING ${annotations.columns}`).pipe(Effect.map(Arr.head))
      }
    })
  })
)
