import { SqlClient } from "@effect/sql"
import { PluginConfigStore, type StoredPluginConfig } from "@zed/core"
import { Array as Arr, Effect, Layer } from "effect"
import { orStorageError } from "./sqlErrors.js"

const COLUMNS = `id, plugin_id, enabled, "order", config, created_at, updated_at`

export const PluginConfigStoreSql = Layer.effect(
  PluginConfigStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)

    return PluginConfigStore.of({
      // Readers racing on a new project both insert; the unique key lets one row per plugin through,
      // and inserting in plugin order keeps them from deadlocking on each other's rows.
      list: (projectId, defaults) => {
        const rows = [...defaults]
          .sort((a, b) => a.plugin_id - b.plugin_id)
          .map((d) => sql`(${projectId}, ${d.plugin_id}, ${d.enabled}, ${d.order}, ${JSON.stringify(d.config)}::jsonb)`)
        const missing = rows.length === 0 ? Effect.void : Effect.asVoid(sql`
          INSERT INTO plugin_configs (project_id, plugin_id, enabled, "order", config) VALUES ${sql.csv(rows)}
          ON CONFLICT (project_id, plugin_id) DO NOTHING`)
        return orStorageError(Effect.zipRight(
          missing,
          sql<StoredPluginConfig>`SELECT ${columns} FROM plugin_configs WHERE project_id = ${projectId} ORDER BY "order", id`
        ))
      },
      update: (projectId, id, patch) => {
        const sets = [
          ...(patch.enabled === undefined ? [] : [sql`enabled = ${patch.enabled}`]),
          ...(patch.config === undefined ? [] : [sql`config = ${JSON.stringify(patch.config)}::jsonb`]),
          sql`updated_at = clock_timestamp()`
        ]
        return orStorageError(sql<StoredPluginConfig>`UPDATE plugin_configs SET ${sql.csv(sets)}
          WHERE project_id = ${projectId} AND id = ${id}
          RETURNING ${columns}`).pipe(Effect.map(Arr.head))
      }
    })
  })
)
