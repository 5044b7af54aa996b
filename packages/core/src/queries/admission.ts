import { Data, Effect, FiberRef } from "effect"

/** The personal API key a query runs for, set by the HTTP edge for the request and what it starts. */
export const QueryCaller = FiberRef.unsafeMake<string | undefined>(undefined)

/** Over the limit of queries running at once for a project or a key. */
export class QueryLimitReached extends Data.TaggedError("QueryLimitReached")<{ readonly message: string }> {}

/**
 * Queries running at once, per project and per calling key: a query over either limit is refused at
 * once (to be tried again) rather than queued behind the others, so no caller can take every
 * database connection or core.
 */
export const makeAdmission = (limits: { readonly perProject: number; readonly perKey: number }) => {
  const byProject = new Map<number, number>()
  const byKey = new Map<string, number>()
  const change = <K>(counts: Map<K, number>, key: K, by: number) => {
    const next = (counts.get(key) ?? 0) + by
    if (next === 0) counts.delete(key)
    else counts.set(key, next)
  }
  /** Takes a place for a query of `projectId`; answers the effect that gives it back. */
  const acquire = (projectId: number): Effect.Effect<Effect.Effect<void>, QueryLimitReached> =>
    Effect.flatMap(FiberRef.get(QueryCaller), (caller) => {
      if ((byProject.get(projectId) ?? 0) >= limits.perProject) {
        return Effect.fail(
          new QueryLimitReached({
            message: `${limits.perProject} queries of this project are running already: try again shortly`
          })
        )
      }
      if (caller !== undefined && (byKey.get(caller) ?? 0) >= limits.perKey) {
        return Effect.fail(
          new QueryLimitReached({
            message: `${limits.perKey} queries of this API key are running already: try again shortly`
          })
        )
      }
      change(byProject, projectId, 1)
      if (caller !== undefined) change(byKey, caller, 1)
      return Effect.succeed(
        Effect.sync(() => {
          change(byProject, projectId, -1)
          if (caller !== undefined) change(byKey, caller, -1)
        })
      )
    })
  return {
    acquire,
    /** Runs `effect` in a place of its own. */
    admitted: <A, E, R>(
      projectId: number,
      effect: Effect.Effect<A, E, R>
    ): Effect.Effect<A, E | QueryLimitReached, R> =>
      Effect.acquireUseRelease(
        acquire(projectId),
        () => effect,
        (release) => release
      )
  }
}
