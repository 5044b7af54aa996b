import { Effect, Option } from "effect"
import { PluginConfigStore, type StoredPluginConfig } from "../PluginConfigStore.js"
import type { Journal } from "./journal.js"

type Owned = StoredPluginConfig & { readonly project_id: number }

const strip = ({ project_id: _, ...rest }: Owned): StoredPluginConfig => rest

export const makeMemoryPluginConfigs = (journal: Journal) => {
  const configs = new Map<number, Owned>()
  let id = 1

  const ofProject = (projectId: number) => [...configs.values()].filter((c) => c.project_id === projectId)

  return PluginConfigStore.of({
    list: (projectId, defaults) =>
      Effect.sync(() => {
        const now = new Date()
        // In plugin order, as SQL inserts them, so that ids (which break ties of order) match.
        for (const d of [...defaults].sort((a, b) => a.plugin_id - b.plugin_id)) {
          if (ofProject(projectId).some((c) => c.plugin_id === d.plugin_id)) continue
          const config: Owned = { ...d, id: id++, project_id: projectId, created_at: now, updated_at: now }
          journal.set(configs, config.id, config)
        }
        return ofProject(projectId)
          .sort((a, b) => a.order - b.order || a.id - b.id)
          .map(strip)
      }),
    update: (projectId, configId, patch) =>
      Effect.sync(() =>
        Option.fromNullable(configs.get(configId)).pipe(
          Option.filter((c) => c.project_id === projectId),
          Option.map((c) => {
            const next: Owned = {
              ...c,
              ...(patch.enabled === undefined ? {} : { enabled: patch.enabled }),
              ...(patch.config === undefined ? {} : { config: patch.config }),
              updated_at: new Date()
            }
            journal.set(configs, configId, next)
            return strip(next)
          })
        )
      )
  })
}
