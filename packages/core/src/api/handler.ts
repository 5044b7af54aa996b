import { Cause, type Context, Effect } from "effect"
import type { ApiKeyStore } from "../services/ApiKeyStore.js"
import type { ProjectStore } from "../services/ProjectStore.js"
import type { SessionStore } from "../services/SessionStore.js"
import type { UserStore } from "../services/UserStore.js"
import type { ZedConfig } from "../services/ZedConfig.js"
import { QueryCaller } from "../queries/admission.js"
import { authenticate, authorize, requireAdmin, resolveProject } from "./auth.js"
import { errorReply, MethodNotAllowed, NotFound, serverErrorReply, storageFailureReply } from "./errors.js"
import type { Reply } from "./reply.js"
import type { ZedRequest } from "./request.js"
import type { Route } from "./route.js"
import { compile } from "./router.js"

export interface App<R> {
  /** Answers one request; never fails: every error becomes an error reply. */
  readonly handle: (
    request: ZedRequest
  ) => Effect.Effect<Reply, never, R | ApiKeyStore | ProjectStore | SessionStore | UserStore | ZedConfig>
  /** Whether some route serves `path` (with any method), so mounts can pass other paths on. */
  readonly serves: (path: string) => boolean
  /**
   * The routes' fast paths bound to these services: a reply for a request answered from memory,
   * or undefined for one that `handle` must answer.
   */
  readonly fast: (
    services: Context.Context<R>
  ) => (request: ZedRequest) => Reply | undefined | Promise<Reply | undefined>
}

export const makeApp = <R>(routes: ReadonlyArray<Route<R>>): App<R> => {
  const router = compile(
    routes.flatMap((route) => route.paths.map((path) => ({ method: route.method, path, value: route })))
  )

  const dispatch = (request: ZedRequest) =>
    Effect.gen(function* () {
      const match = router.match(request.method, request.path)
      if (match._tag === "NotFound") return yield* new NotFound({ detail: "Not found." })
      if (match._tag === "MethodNotAllowed") {
        return yield* new MethodNotAllowed({ method: request.method, allow: match.allow })
      }
      const { params, value: route } = match
      if (route.access._tag === "Public") {
        return yield* route.run({ request, params, principal: undefined, project: undefined })
      }
      const principal = yield* authenticate(request)
      yield* authorize(principal, route.access.scope)
      if (route.access.admin) yield* requireAdmin(principal)
      const project = route.access.project ? yield* resolveProject(principal, params["project_id"]!) : undefined
      // Queries it runs, and what they start in the background, count against the key's limit.
      return yield* Effect.locally(route.run({ request, params, principal, project }), QueryCaller, principal.caller)
    })

  return {
    handle: (request) =>
      dispatch(request).pipe(
        Effect.catchAll((error) =>
          error._tag === "StorageError"
            ? Effect.as(Effect.logError("storage failure", error.message, error.cause), storageFailureReply(error))
            : Effect.succeed(errorReply(error))
        ),
        Effect.catchAllCause((cause) =>
          Effect.as(Effect.logError("unexpected failure", Cause.pretty(cause)), serverErrorReply())
        )
      ),
    serves: (path) => {
      const match = router.match("GET", path)
      return match._tag === "Found" ? match.value.owns(match.params) : match._tag !== "NotFound"
    },
    fast: (services) => {
      const bound = new Map(
        routes.flatMap((route) => (route.fast === undefined ? [] : [[route, route.fast(services)] as const]))
      )
      return (request) => {
        if (bound.size === 0) return undefined
        const match = router.match(request.method, request.path)
        return match._tag === "Found" ? bound.get(match.value)?.(request) : undefined
      }
    }
  }
}
