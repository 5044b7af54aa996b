import { Cache, Context, Duration, Effect, Exit, Layer, Option } from "effect"
import type { Project } from "../domain/models.js"
import { ProjectStore } from "../services/ProjectStore.js"
import type { StorageError } from "../services/StorageError.js"

/** Projects by project API key, as every capture request looks them up: cached, briefly. */
export class ProjectTokens extends Context.Tag("@zed/core/ProjectTokens")<ProjectTokens, {
  readonly find: (token: string) => Effect.Effect<Option.Option<Project>, StorageError>
  /** Forget cached projects after this instance changed one (other instances catch up within a minute). */
  readonly invalidate: Effect.Effect<void>
}>() {}

export const ProjectTokensLive = Layer.effect(
  ProjectTokens,
  Effect.gen(function*() {
    const projects = yield* ProjectStore
    const cache = yield* Cache.makeWith({
      capacity: 10_000,
      lookup: (token: string) => projects.findByApiToken(token),
      // Unknown keys are remembered only briefly, so a project created elsewhere is found soon.
      timeToLive: (exit) => Exit.isSuccess(exit) && Option.isSome(exit.value) ? Duration.minutes(1) : Duration.seconds(5)
    })
    return ProjectTokens.of({ find: (token) => cache.get(token), invalidate: cache.invalidateAll })
  })
)
