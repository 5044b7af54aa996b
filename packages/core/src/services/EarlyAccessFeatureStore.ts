import { Context, type Effect, type Option } from "effect"
import type {
  EarlyAccessFeaturePatch,
  NewEarlyAccessFeature,
  StoredEarlyAccessFeature
} from "../earlyAccess/featureEntity.js"
import type { StorageError } from "./StorageError.js"

// Early access features: a named feature at a release stage, released through its own flag.

export type { EarlyAccessFeaturePatch, NewEarlyAccessFeature, StoredEarlyAccessFeature }

export class EarlyAccessFeatureStore extends Context.Tag("@zed/core/EarlyAccessFeatureStore")<
  EarlyAccessFeatureStore,
  {
    /** Newest first. */
    readonly list: (
      projectId: number,
      page: { readonly limit: number; readonly offset: number }
    ) => Effect.Effect<
      { readonly count: number; readonly results: ReadonlyArray<StoredEarlyAccessFeature> },
      StorageError
    >
    /** Those at one of these stages, oldest first (as posthog-js lists them). */
    readonly atStages: (
      projectId: number,
      stages: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyArray<StoredEarlyAccessFeature>, StorageError>
    readonly get: (
      projectId: number,
      id: string
    ) => Effect.Effect<Option.Option<StoredEarlyAccessFeature>, StorageError>
    /** Fails with a conflict when the flag already releases another feature. */
    readonly create: (
      projectId: number,
      feature: NewEarlyAccessFeature
    ) => Effect.Effect<StoredEarlyAccessFeature, StorageError>
    readonly update: (
      projectId: number,
      id: string,
      patch: EarlyAccessFeaturePatch
    ) => Effect.Effect<Option.Option<StoredEarlyAccessFeature>, StorageError>
    /** Deletes it for good; false when there was none. */
    readonly remove: (projectId: number, id: string) => Effect.Effect<boolean, StorageError>
  }
>() {}
