import { Context, type Effect, type Option } from "effect"
import type { Project, ProjectSettings } from "../domain/models.js"
import type { StorageError } from "./StorageError.js"

export interface NewProject {
  readonly organization: string
  readonly name: string
  readonly timezone: string
  readonly api_token: string
}

export type ProjectPatch = { readonly [K in keyof ProjectSettings]?: ProjectSettings[K] | undefined } & {
  readonly name?: string | undefined
  readonly timezone?: string | undefined
  /** A new project API key: the old one stops working. */
  readonly api_token?: string | undefined
  readonly test_account_filters?: Project["test_account_filters"] | undefined
}

export interface ProjectQuery {
  readonly organization: string
  /** Restrict to these ids; null for all of the organization's projects. */
  readonly ids: ReadonlyArray<number> | null
  readonly limit: number
  readonly offset: number
}

export class ProjectStore extends Context.Tag("@zed/core/ProjectStore")<
  ProjectStore,
  {
    readonly create: (input: NewProject) => Effect.Effect<Project, StorageError>
    readonly get: (id: number) => Effect.Effect<Option.Option<Project>, StorageError>
    readonly findByApiToken: (token: string) => Effect.Effect<Option.Option<Project>, StorageError>
    /** Records that the project has received an event. */
    readonly markIngested: (id: number) => Effect.Effect<void, StorageError>
    readonly list: (
      query: ProjectQuery
    ) => Effect.Effect<{ readonly count: number; readonly results: ReadonlyArray<Project> }, StorageError>
    readonly update: (id: number, patch: ProjectPatch) => Effect.Effect<Option.Option<Project>, StorageError>
  }
>() {}
