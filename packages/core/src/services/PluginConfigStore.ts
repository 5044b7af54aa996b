import { Context, type Effect, type Option } from "effect"
import type { StorageError } from "./StorageError.js"

// Per-project configurations of Zed's built-in ingestion plugins. Each project has one per
// plugin, created with the plugin's defaults the first time the project's configs are read.

export interface StoredPluginConfig {
  readonly id: number
  readonly plugin_id: number
  readonly enabled: boolean
  /** Plugins run in ascending order. */
  readonly order: number
  readonly config: Readonly<Record<string, unknown>>
  readonly created_at: Date
  readonly updated_at: Date
}

export type PluginDefaults = Pick<StoredPluginConfig, "plugin_id" | "enabled" | "order" | "config">

export interface PluginConfigPatch {
  readonly enabled?: boolean | undefined
  readonly config?: Readonly<Record<string, unknown>> | undefined
}

export class PluginConfigStore extends Context.Tag("@zed/core/PluginConfigStore")<
  PluginConfigStore,
  {
    /** The project's configs by `order`, first creating those of `defaults` it does not have yet. */
    readonly list: (
      projectId: number,
      defaults: ReadonlyArray<PluginDefaults>
    ) => Effect.Effect<ReadonlyArray<StoredPluginConfig>, StorageError>
    readonly update: (
      projectId: number,
      id: number,
      patch: PluginConfigPatch
    ) => Effect.Effect<Option.Option<StoredPluginConfig>, StorageError>
  }
>() {}
