import { SqlClient } from "@effect/sql"
import { FunctionInsert, isUuid, type StoredFunction, uuidv7, ZedFunction, ZedFunctionStore } from "@zed/core/storage"
import { Array as Arr, Effect, Layer, Option } from "effect"
import { entityColumns } from "./entityColumns.js"
import { orStorageError } from "./sqlErrors.js"

export const ZedFunctionStoreSql = Layer.effect(
  ZedFunctionStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const functions = entityColumns(sql, ZedFunction, FunctionInsert)
    const live = (includeDeleted: boolean) => (includeDeleted ? sql`` : sql`AND NOT deleted`)

    return ZedFunctionStore.of({
      list: (projectId, includeDeleted = false) =>
        orStorageError(sql<StoredFunction>`SELECT ${functions.columns} FROM zed_functions WHERE project_id = ${projectId} ${live(includeDeleted)}
          ORDER BY execution_order ASC NULLS LAST, created_at, id`),
      // An id that is no UUID names no function here, as in memory, rather than failing the uuid cast.
      get: (projectId, id, includeDeleted = false) =>
        !isUuid(id)
          ? Effect.succeed(Option.none())
          : orStorageError(sql<StoredFunction>`SELECT ${functions.columns} FROM zed_functions
          WHERE project_id = ${projectId} AND id = ${id} ${live(includeDeleted)}`).pipe(Effect.map(Arr.head)),
      create: (projectId, f) => {
        // A transformation without an order goes after the project's others.
        const order =
          f.execution_order === null && f.type === "transformation"
            ? sql`(SELECT coalesce(max(execution_order), 0) + 1 FROM zed_functions
              WHERE project_id = ${projectId} AND type = 'transformation' AND NOT deleted)`
            : f.execution_order
        // clock_timestamp: functions created in one transaction still list in the order they were made.
        return orStorageError(sql<StoredFunction>`
          INSERT INTO zed_functions (id, project_id, ${functions.inserted}, created_at, updated_at)
          VALUES (${uuidv7()}, ${projectId}, ${functions.values({ ...f, execution_order: order })}, clock_timestamp(), clock_timestamp())
          RETURNING ${functions.columns}`).pipe(Effect.map((rows) => rows[0]!))
      },
      update: (projectId, id, patch) => {
        if (!isUuid(id)) return Effect.succeed(Option.none())
        const sets = [...functions.sets(patch), sql`updated_at = clock_timestamp()`]
        return orStorageError(sql<StoredFunction>`UPDATE zed_functions SET ${sql.csv(sets)}
          WHERE project_id = ${projectId} AND id = ${id}
          RETURNING ${functions.columns}`).pipe(Effect.map(Arr.head))
      }
    })
  })
)
