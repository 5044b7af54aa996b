import { SqlClient } from "@effect/sql"
import { PluginConfigStore, type StoredPluginConfig } from "@zed/core/storage"
import { Array as Arr, Effect, Layer } from "effect"
import { orStorageError } from "./sqlErrors.js"

const COLUMNS = `id, plugin_id, enabled, "order", config, created_at, updated_at`

export const PluginConfigStoreSql = Layer.effect(
  PluginConfigStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)

    return PluginConfigStore.of({
      // Defaults are inserted only when some are missing (an insert that conflicts still spends
      // identity values). Readers racing on a new project both insert; the unique key lets one row
      // per plugin through, and inserting in plugin order keeps them from deadlocking.
      list: (projectId, defaults) => {
        const select = sql<StoredPluginConfig>`SELECT ${columns} FROM plugin_configs WHERE project_id = ${projectId} ORDER BY "order", id`
        return orStorageError(
          Effect.gen(function* () {
            const stored = yield* select
            const have = new Set(stored.map((c) => c.plugin_id))
            const rows = defaults
              .filter((d) => !have.has(d.plugin_id))
              .sort((a, b) => a.plugin_id - b.plugin_id)
              .map(
                (d) => sql`(${projectId}, ${d.plugin_id}, ${d.enabled}, ${d.order}, ${JSON.stringify(d.config)}::jsonb)`
              )
            if (rows.length === 0) return stored
            yield* sql`INSERT INTO plugin_configs (project_id, plugin_id, enabled, "order", config) VALUES ${sql.csv(rows)}
            ON CONFLICT (project_id, plugin_id) DO NOTHING`
            return yield* select
          })
        )
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
