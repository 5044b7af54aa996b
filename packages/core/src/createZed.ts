import type { IncomingMessage, ServerResponse } from "node:http"
import { Context, Effect, type Layer, ManagedRuntime } from "effect"
import { errorReply, NotFound } from "./api/errors.js"
import { type AppServices, appLayer } from "./app.js"
import { makeApp } from "./api/handler.js"
import { fromNodeRequest, type NodeRequestOptions, writeNodeReply } from "./api/node.js"
import type { Reply } from "./api/reply.js"
import type { ZedRequest } from "./api/request.js"
import { routes } from "./api/routes/index.js"
import { fromWebRequest, toWebResponse, type WebRequestOptions } from "./api/web.js"
import { makeWebApp, type WebAppOptions } from "./api/webApp.js"
import { readWebApp, type WebAppFiles, webAppDist } from "./web/webAppFiles.js"
import { Lifecycle } from "./lifecycle/Lifecycle.js"
import { bootstrap, type BootstrapOptions, type BootstrapResult, validateBootstrapOptions } from "./bootstrap.js"
import { type GeoIp, GeoIpNone } from "./services/GeoIp.js"
import type { ZedStorage } from "./services/Storage.js"
import { MembershipLevel } from "./domain/models.js"
import { type DestinationRetries, type HostAuthenticate, limitsOf, type LimitsOptions } from "./services/ZedConfig.js"

export interface ZedOptions {
  /** Where Zed keeps its data: `memoryStorage()`, or `pgliteStorage()` / `postgresStorage()` from `@zed/postgres`. */
  readonly storage: ZedStorage
  /** First-start bootstrap (organization, project, admin, keys); `false` to skip it. */
  readonly bootstrap?: BootstrapOptions | false | undefined
  /** Believe `X-Forwarded-*` headers: client IP (for `$ip`), and scheme and host on node:http requests. Only behind a proxy you run. */
  readonly trustProxy?: boolean | undefined
  /** Where flag evaluation finds `$geoip_*` properties: `DbipGeoIp` from `@zed/geoip`, or none (the default). */
  readonly geoip?: Layer.Layer<GeoIp> | undefined
  /** How destinations retry failed HTTP requests (default 3 retries, waits doubling from 1 s). */
  readonly destinationRetries?: DestinationRetries | undefined
  /**
   * Whether the hottest routes (`/decide`, `/flags`) may answer from memory without an Effect fiber
   * (default true). The answers are the same either way; false is for comparing the two.
   */
  readonly fastPaths?: boolean | undefined
  /** What one request or caller may take of this instance (see `ZedLimits`); each at its default unless given. */
  readonly limits?: LimitsOptions | undefined
  /**
   * The web app (@zed/web's build) beside the API: where under Zed's mount it is (default: Zed's
   * root, at `/login`, `/project/:id/…`), or `false` for none. Served when @zed/web is installed.
   */
  readonly web?: WebAppOptions | false | undefined
  /**
   * For apps that sign their users in themselves: who the request's user is (by the app's own session
   * cookie or header), or undefined. Such a user is found, or made in the first organization, by
   * e-mail and is signed in to Zed for that request: no Zed session, no CSRF token (the host's
   * session is the host's to protect). Zed's own sign-in and API keys keep working beside it.
   */
  readonly authenticate?: HostAuthenticate | undefined
  /** The membership level of users `authenticate` brings in (default "member"). */
  readonly authenticatedLevel?: "member" | "admin" | undefined
  /** Milliseconds `close()` waits for requests under way before it closes storage (default 10 s). */
  readonly shutdownGraceMs?: number | undefined
}

export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000

export interface Zed {
  /** Fetch API handler, for Next.js route handlers and other `Request → Response` hosts. */
  readonly handler: (request: Request, options?: WebRequestOptions) => Promise<Response>
  /** node:http handler: `http.createServer(zed.nodeHandler)`. */
  readonly nodeHandler: (req: IncomingMessage, res: ServerResponse, options?: NodeRequestOptions) => Promise<void>
  /** The framework-neutral core the adapters are built on. */
  readonly handle: (request: ZedRequest) => Promise<Reply>
  /** Whether Zed serves `path` (with any method), for mounts that pass other paths on. */
  readonly serves: (path: string) => boolean
  /** Runs an effect against Zed's storage and services, e.g. `zed.run(issuePersonalApiKey(...))`. */
  readonly run: <A, E>(effect: Effect.Effect<A, E, AppServices>) => Promise<A>
  /** What the first start created, if this was the first start. */
  readonly bootstrap: BootstrapResult
  /**
   * Shuts down: at once `/_readyz` answers 503 and running queries stop (answering 503); then, once
   * requests under way have finished (or the grace period has passed), what was accepted for storage
   * is written and storage is released (PGlite closed, or the connection pool). Stop your server from
   * taking new connections first. Calling it again returns the same promise.
   */
  readonly close: (options?: { readonly graceMs?: number | undefined }) => Promise<void>
}

const notFound = errorReply(new NotFound({ detail: "Not found." }))

export const createZed = async (options: ZedOptions): Promise<Zed> => {
  if (options.bootstrap) await Effect.runPromise(validateBootstrapOptions(options.bootstrap))
  const runtime = ManagedRuntime.make(
    appLayer(options.storage, options.geoip ?? GeoIpNone, {
      trustProxy: options.trustProxy ?? false,
      destinationRetries: options.destinationRetries,
      limits: limitsOf(options.limits),
      hostAuthentication:
        options.authenticate === undefined
          ? undefined
          : { authenticate: options.authenticate, level: MembershipLevel[options.authenticatedLevel ?? "member"] }
    })
  )
  try {
    await runtime.runtime()
    const bootstrapped: BootstrapResult =
      options.bootstrap === false ? { created: false } : await runtime.runPromise(bootstrap(options.bootstrap ?? {}))
    const app = makeApp(routes)
    let webFiles: WebAppFiles | undefined | null = null
    const web =
      options.web === false
        ? undefined
        : makeWebApp(() => {
            if (webFiles === null) {
              const dist = webAppDist()
              webFiles = dist === undefined ? undefined : readWebApp(dist)
            }
            return webFiles
          }, options.web)
    // The API's routes win; then the web app takes the GETs that are its own.
    const webReply = (request: ZedRequest) =>
      web === undefined || app.serves(request.path) ? undefined : web.reply(request)
    const fast = options.fastPaths === false ? () => undefined : app.fast((await runtime.runtime()).context)
    // Requests under way, so that close() can let them finish before it closes storage.
    let underWay = 0
    let idle: (() => void) | undefined
    const handle = async (request: ZedRequest) => {
      underWay++
      try {
        return (await fast(request)) ?? webReply(request) ?? (await runtime.runPromise(app.handle(request)))
      } finally {
        if (--underWay === 0) idle?.()
      }
    }
    const lifecycle = Context.get((await runtime.runtime()).context, Lifecycle)
    let closing: Promise<void> | undefined
    const close = async (graceMs: number) => {
      await runtime.runPromise(lifecycle.beginShutdown)
      if (underWay > 0) {
        await new Promise<void>((resolve) => {
          idle = resolve
          setTimeout(resolve, graceMs).unref()
        })
      }
      await runtime.dispose()
    }
    return {
      handle,
      serves: (path) => app.serves(path) || (web?.serves(path) ?? false),
      handler: async (request, webOptions) => {
        const zedRequest = fromWebRequest(request, webOptions)
        return toWebResponse(zedRequest === undefined ? notFound : await handle(zedRequest))
      },
      nodeHandler: async (req, res, nodeOptions) => {
        const zedRequest = fromNodeRequest(req, { trustProxy: options.trustProxy, ...nodeOptions })
        writeNodeReply(res, zedRequest === undefined ? notFound : await handle(zedRequest))
      },
      run: (effect) => runtime.runPromise(effect),
      bootstrap: bootstrapped,
      close: (closeOptions) =>
        (closing ??= close(closeOptions?.graceMs ?? options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS))
    }
  } catch (error) {
    await runtime.dispose()
    throw error
  }
}
