import { Context, Effect, Layer, Option } from "effect"
import { makeReadThrough } from "../cache/readThrough.js"
import type { Project } from "../domain/models.js"
import { ProjectStore } from "../services/ProjectStore.js"
import type { StorageError } from "../services/StorageError.js"

/** Projects by project API key, as every capture and flag request looks them up: cached, briefly. */
export class ProjectTokens extends Context.Tag("@zed/core/ProjectTokens")<
  ProjectTokens,
  {
    readonly find: (token: string) => Effect.Effect<Option.Option<Project>, StorageError>
    /** The cached answer of `find`, without reading; undefined when none is cached. */
    readonly peek: (token: string) => Option.Option<Project> | undefined
    /** Forget cached projects after this instance changed one (other instances catch up within a minute). */
    readonly invalidate: Effect.Effect<void>
  }
>() {}

const MINUTE = 60_000

export const ProjectTokensLive = Layer.scoped(
  ProjectTokens,
  Effect.gen(function* () {
    const projects = yield* ProjectStore
    const cache = yield* makeReadThrough({
      capacity: 10_000,
      lookup: (token: string) => projects.findByApiToken(token),
      // Unknown keys are remembered only briefly, so a project created elsewhere is found soon. A
      // known one is served while it is read again, so requests never wait on the refresh.
      timeToLive: (found) => (Option.isSome(found) ? MINUTE : 5_000),
      staleFor: (found) => (Option.isSome(found) ? 10 * MINUTE : 0)
    })
    return ProjectTokens.of({ find: cache.get, peek: cache.peek, invalidate: Effect.sync(cache.invalidateAll) })
  })
)
