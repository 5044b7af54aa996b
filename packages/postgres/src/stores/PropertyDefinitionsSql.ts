import { SqlClient } from "@effect/sql"
import { type PropertyDefinition, PropertyDefinitions } from "@zed/core/storage"
import { Effect, Layer } from "effect"
import { orStorageError } from "./sqlErrors.js"

export const PropertyDefinitionsSql = Layer.effect(
  PropertyDefinitions,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return PropertyDefinitions.of({
      // The first type recorded stays, also between duplicates in one call (by their position). Rows
      // go in key order, so that concurrent writers recording overlapping definitions wait on each
      // other rather than deadlock.
      record: (projectId, definitions) =>
        definitions.length === 0
          ? Effect.void
          : orStorageError(sql`
              INSERT INTO property_definitions (project_id, owner, group_type_index, key, property_type)
              SELECT ${projectId}, owner, group_type_index, key, property_type
              FROM ROWS FROM (json_to_recordset(${JSON.stringify(definitions)}::json)
                AS (owner text, "groupTypeIndex" smallint, key text, "propertyType" text))
                WITH ORDINALITY AS d(owner, group_type_index, key, property_type, position)
              ORDER BY owner, coalesce(group_type_index, -1), key, position
              ON CONFLICT DO NOTHING`).pipe(Effect.asVoid),
      list: (projectId) =>
        orStorageError(sql<PropertyDefinition>`
          SELECT owner, key, property_type AS "propertyType", group_type_index AS "groupTypeIndex"
          FROM property_definitions WHERE project_id = ${projectId}
          ORDER BY owner, coalesce(group_type_index, -1), key`)
    })
  })
)
