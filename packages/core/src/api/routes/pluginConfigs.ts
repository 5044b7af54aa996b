import { Effect, Option, Schema } from "effect"
import { FunctionLogger } from "../../functions/logs.js"
import { FunctionRegistry } from "../../functions/registry.js"
import { type BuiltinPlugin, PLUGIN_DEFAULTS, pluginById } from "../../plugins/catalog.js"
import { PluginConfigStore, type StoredPluginConfig } from "../../services/PluginConfigStore.js"
import { NotFound } from "../errors.js"
import { PageParams, Paginated, paginated, toPage } from "../../domain/pagination.js"
import { environmentRoute } from "../route.js"
import { PathId } from "../../schema/fields.js"
import { toValidationError } from "../../schema/decode.js"
import { logRoute } from "../logRoute.js"

// Configurations of the built-in ingestion plugins (GeoIP, user-agent parsing, property filter):
// one per plugin in every project, switched on and off and configured with PATCH.

const TAG = "plugin configs"

const ConfigField = Schema.Struct({
  key: Schema.String,
  name: Schema.String,
  type: Schema.Literal("string", "boolean"),
  default: Schema.Unknown,
  hint: Schema.String
})

export const PluginConfig = Schema.Struct({
  id: Schema.Int,
  plugin: Schema.Int,
  plugin_info: Schema.Struct({
    id: Schema.Int,
    name: Schema.String,
    description: Schema.String,
    config_schema: Schema.Array(ConfigField)
  }),
  team_id: Schema.Int,
  name: Schema.String,
  description: Schema.String,
  enabled: Schema.Boolean,
  order: Schema.Int,
  config: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  created_at: Schema.Date,
  updated_at: Schema.Date
}).annotations({ identifier: "PluginConfig" })

const present =
  (projectId: number) =>
  (config: StoredPluginConfig): typeof PluginConfig.Type => {
    const plugin = pluginById(config.plugin_id)!
    return {
      id: config.id,
      plugin: plugin.id,
      plugin_info: {
        id: plugin.id,
        name: plugin.name,
        description: plugin.description,
        config_schema: plugin.configSchema
      },
      team_id: projectId,
      name: plugin.name,
      description: plugin.description,
      enabled: config.enabled,
      order: config.order,
      config: config.config,
      created_at: config.created_at,
      updated_at: config.updated_at
    }
  }

/** The project's configs of plugins this Zed knows. */
const configsOf = (projectId: number) =>
  Effect.map(
    Effect.flatMap(PluginConfigStore, (s) => s.list(projectId, PLUGIN_DEFAULTS)),
    (all) => all.filter((c) => pluginById(c.plugin_id) !== undefined)
  )

const findConfig = (projectId: number, id: number) =>
  Effect.flatMap(configsOf(projectId), (all) => {
    const found = all.find((c) => c.id === id)
    return found === undefined ? Effect.fail(new NotFound({ detail: "Not found." })) : Effect.succeed(found)
  })

const ConfigParams = Schema.Struct({ id: PathId })

const list = environmentRoute({
  method: "GET",
  path: "/plugin_configs",
  tag: TAG,
  summary: "List plugin configs",
  description: "The project's configuration of each built-in plugin, in the order they run.",
  scope: "plugin:read",
  query: PageParams,
  response: Paginated(PluginConfig, "PaginatedPluginConfigList"),
  handler: ({ project, query, request }) =>
    Effect.map(configsOf(project.id), (all) => {
      const page = toPage(query)
      return paginated(
        request.url,
        page,
        all.length,
        all.slice(page.offset, page.offset + page.limit).map(present(project.id))
      )
    })
})

const retrieve = environmentRoute({
  method: "GET",
  path: "/plugin_configs/:id",
  tag: TAG,
  summary: "Retrieve a plugin config",
  scope: "plugin:read",
  params: ConfigParams,
  response: PluginConfig,
  handler: ({ params, project }) => Effect.map(findConfig(project.id, params.id), present(project.id))
})

const ConfigPatch = Schema.Struct({
  enabled: Schema.optional(Schema.Boolean),
  config: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
}).annotations({ identifier: "PluginConfigWrite" })

const readConfig = (plugin: BuiltinPlugin, config: unknown) =>
  Schema.decodeUnknown(plugin.config, { errors: "first", onExcessProperty: "error" })(config).pipe(
    Effect.mapError((error) => toValidationError(error, ["config"]))
  )

const update = environmentRoute({
  method: "PATCH",
  path: "/plugin_configs/:id",
  tag: TAG,
  summary: "Update a plugin config",
  description:
    "`enabled` switches the plugin on or off for the project's events; `config` replaces its settings (see `plugin_info.config_schema`).",
  scope: "plugin:write",
  params: ConfigParams,
  body: ConfigPatch,
  response: PluginConfig,
  handler: ({ body, params, principal, project }) =>
    Effect.gen(function* () {
      const stored = yield* findConfig(project.id, params.id)
      const plugin = pluginById(stored.plugin_id)!
      const config = body.config === undefined ? undefined : yield* readConfig(plugin, body.config)
      const updated = Option.getOrThrow(
        yield* (yield* PluginConfigStore).update(project.id, stored.id, { enabled: body.enabled, config })
      )
      const changed = [
        ...(body.enabled !== undefined && body.enabled !== stored.enabled
          ? [body.enabled ? "enabled" : "disabled"]
          : []),
        ...(config === undefined ? [] : ["configured"])
      ]
      if (changed.length > 0) {
        ;(yield* FunctionLogger).log({
          projectId: project.id,
          owner: { kind: "plugin_config", id: String(stored.id) },
          pluginId: plugin.id,
          source: "SYSTEM",
          type: "INFO",
          message: `Plugin ${changed.join(" and ")} by ${principal.user.email}`
        })
      }
      yield* (yield* FunctionRegistry).invalidate(project.id)
      return present(project.id)(updated)
    })
})

const logs = logRoute({
  path: "/plugin_configs/:id/logs",
  tag: TAG,
  summary: "Logs of a plugin config",
  scope: "plugin:read",
  params: ConfigParams,
  owner: ({ params, project }) =>
    Effect.as(findConfig(project.id, params.id), { kind: "plugin_config" as const, id: String(params.id) }),
  fields: { plugin_id: Schema.Int, plugin_config_id: Schema.Int },
  ownerFields: (entry) => ({ plugin_id: entry.plugin_id ?? 0, plugin_config_id: Number(entry.owner.id) }),
  identifier: "PluginConfigLogEntry"
})

export const pluginConfigRoutes = [list, logs, retrieve, update]
