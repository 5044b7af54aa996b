import { SqlClient } from "@effect/sql"
import {
  isUuid,
  PropertyDefinitions,
  type StoredEventDefinition,
  type StoredPropertyDefinition
} from "@zed/core/storage"
import { Array as Arr, Effect, Layer, Option } from "effect"
import { patchSets } from "./patchSets.js"
import { orStorageError } from "./sqlErrors.js"

const JSON_COLUMNS = new Set(["tags"])

export const PropertyDefinitionsSql = Layer.effect(
  PropertyDefinitions,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const described = "description, tags, verified, hidden, updated_at, verified_at"
    const propertyColumns = sql.literal(
      `id, owner, key, property_type AS "propertyType", group_type_index AS "groupTypeIndex", ${described}`
    )
    const eventColumns = sql.literal(`id, name, created_at, last_seen_at, ${described}`)
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
      // In key order too; a name given twice counts once, at its latest.
      recordEvents: (projectId, events) => {
        if (events.length === 0) return Effect.void
        const rows = JSON.stringify(events)
        return orStorageError(
          Effect.all([
            sql`INSERT INTO event_definitions (project_id, name, last_seen_at)
              SELECT ${projectId}::int, name, max("seenAt") FROM json_to_recordset(${rows}::json) AS d(name text, "seenAt" timestamptz)
              GROUP BY name ORDER BY name
              ON CONFLICT (project_id, name) DO UPDATE SET last_seen_at = excluded.last_seen_at
              WHERE event_definitions.last_seen_at IS NULL OR event_definitions.last_seen_at < excluded.last_seen_at`,
            sql`INSERT INTO event_properties (project_id, event, property)
              SELECT DISTINCT ${projectId}::int, d.name, k.key
              FROM json_to_recordset(${rows}::json) AS d(name text, properties json),
                json_array_elements_text(d.properties) AS k(key)
              ORDER BY 2, 3
              ON CONFLICT DO NOTHING`
          ])
        ).pipe(Effect.asVoid)
      },
      list: (projectId) =>
        orStorageError(sql<StoredPropertyDefinition>`
          SELECT ${propertyColumns} FROM property_definitions WHERE project_id = ${projectId}
          ORDER BY owner, coalesce(group_type_index, -1), key`),
      listEvents: (projectId) =>
        orStorageError(sql<StoredEventDefinition>`
          SELECT ${eventColumns} FROM event_definitions WHERE project_id = ${projectId} ORDER BY name`),
      seenWith: (projectId, events) =>
        events.length === 0
          ? Effect.succeed(new Set<string>())
          : orStorageError(sql<{ property: string }>`
              SELECT DISTINCT property FROM event_properties
              WHERE project_id = ${projectId} AND event IN (SELECT unnest(${events}::text[]))`).pipe(
              Effect.map((rows) => new Set(rows.map((r) => r.property)))
            ),
      updateEvent: (projectId, id, patch) =>
        !isUuid(id)
          ? Effect.succeed(Option.none())
          : orStorageError(sql<StoredEventDefinition>`
              UPDATE event_definitions SET ${sql.csv([...patchSets(sql, patch, JSON_COLUMNS), sql`updated_at = now()`])}
              WHERE project_id = ${projectId} AND id = ${id} RETURNING ${eventColumns}`).pipe(Effect.map(Arr.head)),
      updateProperty: (projectId, id, { propertyType, ...patch }) =>
        !isUuid(id)
          ? Effect.succeed(Option.none())
          : orStorageError(sql<StoredPropertyDefinition>`
              UPDATE property_definitions SET ${sql.csv([
                ...patchSets(sql, { ...patch, property_type: propertyType }, JSON_COLUMNS),
                sql`updated_at = now()`
              ])}
              WHERE project_id = ${projectId} AND id = ${id} RETURNING ${propertyColumns}`).pipe(Effect.map(Arr.head))
    })
  })
)
