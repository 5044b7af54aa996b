import { SqlClient } from "@effect/sql"
import { isUuid, type StoredFunction, uuidv7, ZedFunctionStore } from "@zed/core/storage"
import { Array as Arr, Effect, Layer, Option } from "effect"
import { jsonb, patchSets } from "./patchSets.js"
import { orStorageError } from "./sqlErrors.js"

const COLUMNS = `id, type, name, description, enabled, deleted, code, bytecode, inputs_schema, inputs, secrets, filters, masking,
  mappings, icon_url, template_id, execution_order, created_by, created_at, updated_at`

const JSON_COLUMNS = new Set(["bytecode", "inputs_schema", "inputs", "secrets", "filters", "masking", "mappings"])

export const ZedFunctionStoreSql = Layer.effect(
  ZedFunctionStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)
    const json = (v: unknown) => jsonb(sql, v)
    const live = (includeDeleted: boolean) => (includeDeleted ? sql`` : sql`AND NOT deleted`)

    return ZedFunctionStore.of({
      list: (projectId, includeDeleted = false) =>
        orStorageError(sql<StoredFunction>`SELECT ${columns} FROM zed_functions WHERE project_id = ${projectId} ${live(includeDeleted)}
          ORDER BY execution_order ASC NULLS LAST, created_at, id`),
      // An id that is no UUID names no function here, as in memory, rather than failing the uuid cast.
      get: (projectId, id, includeDeleted = false) =>
        !isUuid(id)
          ? Effect.succeed(Option.none())
          : orStorageError(sql<StoredFunction>`SELECT ${columns} FROM zed_functions
          WHERE project_id = ${projectId} AND id = ${id} ${live(includeDeleted)}`).pipe(Effect.map(Arr.head)),
      create: (projectId, f) => {
        // A transformation without an order goes after the project's others.
        const order =
          f.execution_order === null && f.type === "transformation"
            ? sql`(SELECT coalesce(max(execution_order), 0) + 1 FROM zed_functions
              WHERE project_id = ${projectId} AND type = 'transformation' AND NOT deleted)`
            : sql`${f.execution_order}`
        // clock_timestamp: functions created in one transaction still list in the order they were made.
        return orStorageError(sql<StoredFunction>`
          INSERT INTO zed_functions (id, project_id, type, name, description, enabled, deleted, code, bytecode, inputs_schema, inputs,
            secrets, filters, masking, mappings, icon_url, template_id, execution_order, created_by, created_at, updated_at)
          VALUES (${uuidv7()}, ${projectId}, ${f.type}, ${f.name}, ${f.description}, ${f.enabled}, ${f.deleted}, ${f.code},
            ${json(f.bytecode)}, ${json(f.inputs_schema)}, ${json(f.inputs)}, ${json(f.secrets)}, ${json(f.filters)}, ${json(f.masking)},
            ${json(f.mappings)}, ${f.icon_url}, ${f.template_id}, ${order}, ${f.created_by}, clock_timestamp(), clock_timestamp())
          RETURNING ${columns}`).pipe(Effect.map((rows) => rows[0]!))
      },
      update: (projectId, id, patch) => {
        if (!isUuid(id)) return Effect.succeed(Option.none())
        const sets = [...patchSets(sql, patch, JSON_COLUMNS), sql`updated_at = clock_timestamp()`]
        return orStorageError(sql<StoredFunction>`UPDATE zed_functions SET ${sql.csv(sets)}
          WHERE project_id = ${projectId} AND id = ${id}
          RETURNING ${columns}`).pipe(Effect.map(Arr.head))
      }
    })
  })
)
