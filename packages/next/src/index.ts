import type { Zed } from "@zed/core"

export interface ZedNextOptions {
  /** The part of the URL before Zed's paths, e.g. "/analytics" for `app/analytics/[...zed]/route.ts`. */
  readonly basePath?: string | undefined
  /** Names the instance kept across hot reloads; distinct names give distinct instances. */
  readonly instance?: string | undefined
}

type Handler = (request: Request) => Promise<Response>

export interface RouteHandlers {
  readonly GET: Handler
  readonly HEAD: Handler
  readonly POST: Handler
  readonly PUT: Handler
  readonly PATCH: Handler
  readonly DELETE: Handler
  readonly OPTIONS: Handler
}

// Next.js re-evaluates route modules on hot reload, and a second Zed over the same embedded
// database would be refused; the instance therefore lives on globalThis, created on first request
// (never at build time, when Next evaluates route modules to collect page data).
const instances: Map<string, Promise<Zed>> = ((globalThis as any)[Symbol.for("@zed/next/instances")] ??= new Map())

// Next.js compresses responses itself and drops a route handler's own Content-Encoding, so a body
// Zed sends pre-compressed (the web app's files, posthog-js's scripts) would reach the browser
// compressed twice and labelled once. Zed is asked for plain bodies; Next compresses them.
const identityBodies = (request: Request): Request => {
  if ((request.method !== "GET" && request.method !== "HEAD") || !request.headers.has("accept-encoding")) return request
  const headers = new Headers(request.headers)
  headers.delete("accept-encoding")
  return new Request(request.url, { method: request.method, headers })
}

/**
 * Route handlers for an App Router catch-all route:
 * `export const { GET, POST, PATCH, PUT, DELETE, OPTIONS, HEAD } = zedRouteHandlers(() => createZed({ storage }))`.
 */
export const zedRouteHandlers = (create: () => Zed | Promise<Zed>, options: ZedNextOptions = {}): RouteHandlers => {
  const key = options.instance ?? "default"
  const zed = () => {
    let instance = instances.get(key)
    if (instance === undefined) {
      instance = Promise.resolve().then(create)
      instance.catch(() => instances.delete(key))
      instances.set(key, instance)
    }
    return instance
  }
  const handle: Handler = async (request) =>
    (await zed()).handler(identityBodies(request), { basePath: options.basePath })
  return { GET: handle, HEAD: handle, POST: handle, PUT: handle, PATCH: handle, DELETE: handle, OPTIONS: handle }
}
