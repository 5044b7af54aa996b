import { Context, type Effect, type Option } from "effect"
import type { ExperimentPatch, NewExperiment, StoredExperiment } from "../experiments/experimentEntity.js"
import type { StorageError } from "./StorageError.js"

export type { ExperimentPatch, NewExperiment, StoredExperiment }

export interface ExperimentQuery {
  readonly archived?: boolean | undefined
  /** Case-insensitive part of the name. */
  readonly search?: string | undefined
  readonly limit: number
  readonly offset: number
}

/** Experiments; deleted ones are kept, marked, and neither listed nor found. */
export class ExperimentStore extends Context.Tag("@zed/core/ExperimentStore")<
  ExperimentStore,
  {
    /** Live experiments, newest first. */
    readonly list: (
      projectId: number,
      query: ExperimentQuery
    ) => Effect.Effect<{ readonly count: number; readonly results: ReadonlyArray<StoredExperiment> }, StorageError>
    readonly get: (projectId: number, id: number) => Effect.Effect<Option.Option<StoredExperiment>, StorageError>
    /** The live experiments on a flag: what guards the flag against edits that would break them. */
    readonly ofFlag: (projectId: number, flagId: number) => Effect.Effect<ReadonlyArray<StoredExperiment>, StorageError>
    /** The live experiments on any of these flags: a flag's `experiment_set`, a page of flags at once. */
    readonly ofFlags: (
      projectId: number,
      flagIds: ReadonlyArray<number>
    ) => Effect.Effect<ReadonlyArray<StoredExperiment>, StorageError>
    /** The live experiments using a holdout. */
    readonly ofHoldout: (
      projectId: number,
      holdoutId: number
    ) => Effect.Effect<ReadonlyArray<StoredExperiment>, StorageError>
    readonly create: (projectId: number, experiment: NewExperiment) => Effect.Effect<StoredExperiment, StorageError>
    readonly update: (
      projectId: number,
      id: number,
      patch: ExperimentPatch
    ) => Effect.Effect<Option.Option<StoredExperiment>, StorageError>
  }
>() {}
