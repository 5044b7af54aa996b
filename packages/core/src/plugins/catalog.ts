import { Schema } from "effect"
import { geoipEnrich } from "./geoipPlugin.js"
import { filterProperties, parsePropertyList } from "./propertyFilter.js"
import { userAgentPlugin } from "./userAgent.js"

// Zed's built-in ingestion plugins, the ones most PostHog installs enable. Each project gets a
// plugin config for every one of them (GeoIP on, the others off), changed with PATCH.

export interface PluginDeps {
  /** `$geoip_*` properties for an address; none without a GeoIP database. */
  readonly geoip: (ip: string) => Record<string, unknown>
}

export interface ConfigField {
  readonly key: string
  readonly name: string
  readonly type: "string" | "boolean"
  readonly default: unknown
  readonly hint: string
}

export interface BuiltinPlugin {
  readonly id: number
  readonly name: string
  readonly description: string
  readonly enabled: boolean
  readonly configSchema: ReadonlyArray<ConfigField>
  /** A config to store; anything else is refused. */
  readonly config: Schema.Schema<Record<string, unknown>, any>
  /** The event's new properties. Plugins never throw on odd events: they leave them as they are. */
  readonly apply: (
    properties: Record<string, unknown>,
    config: Readonly<Record<string, unknown>>,
    deps: PluginDeps
  ) => Record<string, unknown>
}

const strict = <F extends Schema.Struct.Fields>(fields: F) =>
  Schema.Struct(fields).annotations({ parseOptions: { onExcessProperty: "error" } }) as unknown as Schema.Schema<
    Record<string, unknown>,
    any
  >

export const BUILTIN_PLUGINS: ReadonlyArray<BuiltinPlugin> = [
  {
    id: 1,
    name: "GeoIP",
    description:
      "Adds `$geoip_*` properties (city, country, continent, coordinates) from the event's `$ip`, and sets them on the person.",
    enabled: true,
    configSchema: [],
    config: strict({}),
    apply: (properties, _config, deps) => geoipEnrich(properties, deps.geoip)
  },
  {
    id: 2,
    name: "User Agent Populator",
    description:
      "Parses `$raw_user_agent` into `$browser`, `$browser_version`, `$os`, `$os_version` and `$device_type`.",
    enabled: false,
    configSchema: [
      {
        key: "overrideUserAgentDetails",
        name: "Override existing details",
        type: "boolean",
        default: false,
        hint: "Replace `$browser`, `$os`… an SDK already set."
      }
    ],
    config: strict({ overrideUserAgentDetails: Schema.optional(Schema.Boolean) }),
    apply: (properties, config) =>
      userAgentPlugin(properties, { overrideUserAgentDetails: config["overrideUserAgentDetails"] === true })
  },
  {
    id: 3,
    name: "Property Filter",
    description: "Removes the listed properties from every event before it is stored.",
    enabled: false,
    configSchema: [
      {
        key: "properties",
        name: "Properties to remove",
        type: "string",
        default: "",
        hint: "Comma-separated names, e.g. `$ip,email,$set.email`."
      }
    ],
    config: strict({ properties: Schema.optional(Schema.String) }),
    apply: (properties, config) => filterProperties(properties, parsePropertyList(String(config["properties"] ?? "")))
  }
]

export const pluginById = (id: number) => BUILTIN_PLUGINS.find((p) => p.id === id)

/** What each project starts with. */
export const PLUGIN_DEFAULTS = BUILTIN_PLUGINS.map((p, order) => ({
  plugin_id: p.id,
  enabled: p.enabled,
  order: order + 1,
  config: {}
}))
