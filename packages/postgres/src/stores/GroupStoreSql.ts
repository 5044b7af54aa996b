import { SqlClient } from "@effect/sql"
import { GROUP_TYPE_LIMIT, type Group, GroupStore } from "@zed/core/storage"
import { Array as Arr, Effect, Layer } from "effect"
import { orStorageError } from "./sqlErrors.js"

export const GroupStoreSql = Layer.effect(
  GroupStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const types = (projectId: number) =>
      orStorageError(sql<{ group_type: string; group_type_index: number }>`
        SELECT group_type, group_type_index FROM group_type_mappings WHERE project_id = ${projectId}`).pipe(
        Effect.map((rows) => new Map(rows.map((r) => [r.group_type, r.group_type_index])))
      )
    return GroupStore.of({
      types,
      ensureTypes: (projectId, wanted) =>
        Effect.gen(function* () {
          const mapping = yield* types(projectId)
          const missing = wanted.filter((t) => !mapping.has(t))
          if (missing.length === 0 || mapping.size >= GROUP_TYPE_LIMIT) return mapping
          // Next free index, in the order the types were first seen; a concurrent writer taking the
          // same index makes this insert do nothing and the re-read shows who won.
          for (const type of missing) {
            yield* orStorageError(sql`
              INSERT INTO group_type_mappings (project_id, group_type, group_type_index)
              SELECT ${projectId}, ${type}, count(*) FROM group_type_mappings WHERE project_id = ${projectId}
              HAVING count(*) < ${GROUP_TYPE_LIMIT}
              ON CONFLICT DO NOTHING`)
          }
          return yield* types(projectId)
        }),
      upsert: (projectId, updates) =>
        updates.length === 0
          ? Effect.void
          : orStorageError(sql`
              INSERT INTO groups (project_id, group_type_index, group_key, properties, created_at)
              SELECT ${projectId}, group_type_index, group_key, properties, first_seen
              FROM json_to_recordset(${JSON.stringify(updates)}::json)
                AS r(group_type_index integer, group_key text, properties jsonb, first_seen timestamptz)
              ON CONFLICT (project_id, group_type_index, group_key) DO UPDATE
                SET properties = groups.properties || excluded.properties, version = groups.version + 1`).pipe(
              Effect.asVoid
            ),
      get: (projectId, typeIndex, key) =>
        orStorageError(sql<Group>`
          SELECT group_type_index, group_key, properties, created_at, version FROM groups
          WHERE project_id = ${projectId} AND group_type_index = ${typeIndex} AND group_key = ${key}`).pipe(
          Effect.map(Arr.head)
        )
    })
  })
)
