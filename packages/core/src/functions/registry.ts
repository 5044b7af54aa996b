import { Cache, Context, Duration, Effect, Layer, Option, Schema } from "effect"
import { PLUGIN_DEFAULTS } from "../plugins/catalog.js"
import { PluginConfigStore, type StoredPluginConfig } from "../services/PluginConfigStore.js"
import type { StorageError } from "../services/StorageError.js"
import { type StoredFunction, ZedFunctionStore } from "../services/ZedFunctionStore.js"
import { FunctionFilters } from "./filters.js"
import { Masking } from "./masking.js"

// What runs on a project's events, read once and kept in memory: ingestion asks for it on every
// request. A change made through this instance drops the project's entry at once; other
// instances sharing the database see it within the TTL.

export interface ActiveFunction {
  readonly fn: StoredFunction
  readonly filters: FunctionFilters | null
  readonly masking: (Masking & { readonly bytecode: ReadonlyArray<unknown> }) | null
}

export interface ProjectPipeline {
  /** Enabled plugin configs, by order. */
  readonly plugins: ReadonlyArray<StoredPluginConfig>
  /** Enabled transformations, by execution order. */
  readonly transformations: ReadonlyArray<ActiveFunction>
  readonly destinations: ReadonlyArray<ActiveFunction>
}

export class FunctionRegistry extends Context.Tag("@zed/core/FunctionRegistry")<
  FunctionRegistry,
  {
    readonly get: (projectId: number) => Effect.Effect<ProjectPipeline, StorageError>
    readonly invalidate: (projectId: number) => Effect.Effect<void>
  }
>() {}

const TTL = Duration.seconds(5)

const decodeFilters = Schema.decodeUnknownOption(FunctionFilters)
const decodeMasking = Schema.decodeUnknownOption(
  Schema.Struct({ ...Masking.fields, bytecode: Schema.Array(Schema.Unknown) })
)

/** Stored filters and masking were validated when saved; anything unreadable counts as absent. */
const active = (fn: StoredFunction): ActiveFunction => ({
  fn,
  filters: fn.filters === null ? null : Option.getOrNull(decodeFilters(fn.filters)),
  masking: fn.masking === null ? null : Option.getOrNull(decodeMasking(fn.masking))
})

export const FunctionRegistryLive = Layer.effect(
  FunctionRegistry,
  Effect.gen(function* () {
    const functions = yield* ZedFunctionStore
    const plugins = yield* PluginConfigStore
    const cache = yield* Cache.make({
      capacity: 10_000,
      timeToLive: TTL,
      lookup: (projectId: number) =>
        Effect.map(
          Effect.all([functions.list(projectId), plugins.list(projectId, PLUGIN_DEFAULTS)], {
            concurrency: "unbounded"
          }),
          ([fns, configs]): ProjectPipeline => {
            const enabled = fns.filter((f) => f.enabled)
            return {
              plugins: configs.filter((c) => c.enabled),
              transformations: enabled.filter((f) => f.type === "transformation").map(active),
              destinations: enabled.filter((f) => f.type === "destination").map(active)
            }
          }
        )
    })
    return FunctionRegistry.of({
      get: (projectId) => cache.get(projectId),
      invalidate: (projectId) => cache.invalidate(projectId)
    })
  })
)
