import { SqlClient } from "@effect/sql"
import { FunctionLogStore, type LogEntry } from "@zed/core/storage"
import { Effect, Layer } from "effect"
import { orStorageError } from "./sqlErrors.js"

type Row = Omit<LogEntry, "owner"> & { readonly owner_kind: LogEntry["owner"]["kind"]; readonly owner_id: string }

const entry = ({ owner_kind, owner_id, ...row }: Row): LogEntry => ({
  ...row,
  owner: { kind: owner_kind, id: owner_id }
})

export const FunctionLogStoreSql = Layer.effect(
  FunctionLogStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    return FunctionLogStore.of({
      // One statement: the sequence numbers follow the entries' order.
      append: (entries) =>
        entries.length === 0
          ? Effect.void
          : Effect.asVoid(
              orStorageError(sql`INSERT INTO function_logs
          (id, project_id, owner_kind, owner_id, plugin_id, timestamp, source, type, message, instance_id)
          VALUES ${sql.csv(
            entries.map(
              (e) =>
                sql`(${e.id}, ${e.project_id}, ${e.owner.kind}, ${e.owner.id}, ${e.plugin_id}, ${e.timestamp}, ${e.source}, ${e.type},
              ${e.message}, ${e.instance_id})`
            )
          )}`)
            ),
      list: (projectId, owner, query) => {
        const where = sql.and([
          sql`project_id = ${projectId}`,
          sql`owner_kind = ${owner.kind}`,
          sql`owner_id = ${owner.id}`,
          ...(query.types.length === 0 ? [] : [sql.in("type", query.types)]),
          // strpos, not ILIKE: the search's % and _ are plain characters.
          ...(query.search === undefined ? [] : [sql`strpos(lower(message), lower(${query.search})) > 0`]),
          ...(query.after === undefined ? [] : [sql`timestamp > ${query.after}`]),
          ...(query.before === undefined ? [] : [sql`timestamp < ${query.before}`])
        ])
        return orStorageError(
          Effect.all([
            sql<Row>`SELECT id, project_id, owner_kind, owner_id, plugin_id, timestamp, source, type, message, instance_id
            FROM function_logs WHERE ${where}
            ORDER BY timestamp DESC, seq DESC LIMIT ${query.limit} OFFSET ${query.offset}`,
            sql<{ total: number }>`SELECT count(*)::int AS total FROM function_logs WHERE ${where}`
          ])
        ).pipe(Effect.map(([rows, [count]]) => ({ count: count!.total, results: rows.map(entry) })))
      }
    })
  })
)
