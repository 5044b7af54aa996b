import { type Context, Effect, Schema } from "effect"
import type { Project } from "../domain/models.js"
import type { Scope } from "../domain/scopes.js"
import type { StorageError } from "../services/StorageError.js"
import type { ZedConfig } from "../services/ZedConfig.js"
import type { Principal } from "./auth.js"
import { readJson } from "./body.js"
import { type ApiError, NotFound } from "./errors.js"
import { Reply } from "./reply.js"
import type { ZedRequest } from "./request.js"
import { decode } from "../schema/decode.js"

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS"

export interface Input<P, Q, B> {
  readonly request: ZedRequest
  readonly params: P
  readonly query: Q
  readonly body: B
}
export interface AuthedInput<P, Q, B> extends Input<P, Q, B> {
  readonly principal: Principal
}
export interface ProjectInput<P, Q, B> extends AuthedInput<P, Q, B> {
  readonly project: Project
}

interface Spec<P, Q, B, O, R, In> {
  readonly method: Method
  readonly path: string
  /** More paths answering the same way (aliases). */
  readonly aliases?: ReadonlyArray<string>
  readonly summary: string
  readonly description?: string
  /** Groups the route in the API reference. */
  readonly tag: string
  readonly params?: Schema.Schema<P, any, never>
  readonly query?: Schema.Schema<Q, any, never>
  readonly body?: Schema.Schema<B, any, never>
  /** Schema of the success body; without one the handler answers with a `Reply` of its own. */
  readonly response?: Schema.Schema<O, any, never>
  readonly status?: number
  /** Error statuses the route can answer beyond those its access and schemas imply, for the reference. */
  readonly errors?: ReadonlyArray<number>
  /**
   * Whether a path the route matches is Zed's at all (default: every one). Mounts sharing paths with
   * their app (`serves`) leave the others to it; Zed itself answers them 404.
   */
  readonly owns?: (params: Readonly<Record<string, string>>) => boolean
  readonly handler: (input: In) => Effect.Effect<O | Reply, ApiError | StorageError, R>
  /** A way to answer without a fiber, for the hottest routes (see `FastPath`). */
  readonly fast?: FastPath<R> | undefined
}

/**
 * Answers a request from what is already in memory, with no fiber of its own: bound once to the
 * services, it gives a reply, or undefined to send the request down the route's handler, which
 * must answer it the same way.
 */
export type FastPath<R> = (
  services: Context.Context<R>
) => (request: ZedRequest) => Reply | undefined | Promise<Reply | undefined>

/** Who may call a route: anyone, or a personal API key with a scope (and, on project routes, access to the project). */
export type Access =
  | { readonly _tag: "Public" }
  | {
      readonly _tag: "PersonalKey"
      readonly scope: Scope
      readonly project: boolean
      /** Only organization admins and owners may call it; members get 403. */
      readonly admin: boolean
    }

/** What the handler pipeline establishes before a route runs. */
export interface RouteContext {
  readonly request: ZedRequest
  readonly params: Readonly<Record<string, string>>
  readonly principal: Principal | undefined
  readonly project: Project | undefined
}

export interface Route<R = never> {
  readonly method: Method
  readonly paths: ReadonlyArray<string>
  readonly summary: string
  readonly description: string | undefined
  readonly tag: string
  readonly access: Access
  readonly status: number
  readonly errors: ReadonlyArray<number>
  readonly owns: (params: Readonly<Record<string, string>>) => boolean
  readonly schemas: {
    readonly params: Schema.Schema.AnyNoContext | undefined
    readonly query: Schema.Schema.AnyNoContext | undefined
    readonly body: Schema.Schema.AnyNoContext | undefined
    readonly response: Schema.Schema.AnyNoContext | undefined
  }
  /** Decodes the request (its body within `ZedConfig`'s limit) and runs the handler. */
  readonly run: (context: RouteContext) => Effect.Effect<Reply, ApiError | StorageError, R | ZedConfig>
  readonly fast: FastPath<R> | undefined
}

const make = <P, Q, B, O, R, In>(
  paths: ReadonlyArray<string>,
  access: Access,
  spec: Spec<P, Q, B, O, R, In>
): Route<R> => {
  const status = spec.status ?? 200
  const encode = spec.response && Schema.encode(spec.response)
  return {
    method: spec.method,
    paths,
    summary: spec.summary,
    description: spec.description,
    tag: spec.tag,
    access,
    status,
    errors: spec.errors ?? [],
    owns: spec.owns ?? (() => true),
    schemas: { params: spec.params, query: spec.query, body: spec.body, response: spec.response },
    fast: spec.fast,
    run: (context) =>
      Effect.gen(function* () {
        const { request } = context
        // A path parameter that does not parse names nothing that exists.
        const params = spec.params
          ? yield* Effect.mapError(decode(spec.params, context.params), () => new NotFound({ detail: "Not found." }))
          : ({} as P)
        const query = spec.query ? yield* decode(spec.query, Object.fromEntries(request.url.searchParams)) : ({} as Q)
        const body = spec.body
          ? yield* Effect.flatMap(readJson(request), (json) => decode(spec.body!, json))
          : (undefined as B)
        const input = { request, params, query, body, principal: context.principal, project: context.project }
        const out = yield* spec.handler(input as In)
        if (out instanceof Reply) return out
        return Reply.json(status, encode ? yield* Effect.orDie(encode(out as O)) : out)
      })
  }
}

export const publicRoute = <P = {}, Q = {}, B = undefined, O = unknown, R = never>(
  spec: Spec<P, Q, B, O, R, Input<P, Q, B>>
): Route<R> => make([spec.path, ...(spec.aliases ?? [])], { _tag: "Public" }, spec)

/** Who may call a management route: a credential with `scope`, and with `admin` only admins and owners. */
interface Guard {
  readonly scope: Scope
  readonly admin?: boolean | undefined
}

/** A management route for a personal API key holding `scope` (or a signed-in user). */
export const apiRoute = <P = {}, Q = {}, B = undefined, O = unknown, R = never>(
  spec: Spec<P, Q, B, O, R, AuthedInput<P, Q, B>> & Guard
): Route<R> =>
  make([spec.path], { _tag: "PersonalKey", scope: spec.scope, project: false, admin: spec.admin ?? false }, spec)

/**
 * A route inside one project, served under both `/api/environments/:project_id` and
 * `/api/projects/:project_id` (a project and its environment are one and the same).
 */
export const environmentRoute = <P = {}, Q = {}, B = undefined, O = unknown, R = never>(
  spec: Spec<P, Q, B, O, R, ProjectInput<P, Q, B>> & Guard
): Route<R> =>
  make(
    ["/api/environments/:project_id", "/api/projects/:project_id"].map((prefix) => prefix + spec.path),
    { _tag: "PersonalKey", scope: spec.scope, project: true, admin: spec.admin ?? false },
    spec
  )

/** DELETE on a resource deleted softly (PATCH {"deleted": true}): 405 with no body, as PostHog answers. */
export const softDeleteOnly = (path: string, tag: string, scope: Scope): Route<never> =>
  environmentRoute({
    method: "DELETE",
    path,
    tag,
    summary: 'Not allowed: delete with PATCH {"deleted": true}',
    description: "Answers 405 with no body, as PostHog does for resources deleted softly.",
    scope,
    handler: () => Effect.succeed(Reply.empty(405, { allow: "GET, PATCH" }))
  })
