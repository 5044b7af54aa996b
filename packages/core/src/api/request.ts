/** A request as Zed sees it, whichever framework received it. */
export interface ZedRequest {
  readonly method: string
  /** The absolute URL as the client addressed it; links such as pagination URLs are built from it. */
  readonly url: URL
  /** The path Zed routes on: the URL's path minus the base path an app mounted Zed under. */
  readonly path: string
  /** Header value by lower-case name. */
  readonly header: (name: string) => string | undefined
  /** The body, read once and remembered; rejects with `BodyTooLargeError` past the size limit. */
  readonly body: () => Promise<Uint8Array>
  readonly remoteAddress: string | undefined
}

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`request body exceeds ${limit} bytes`)
  }
}

/** Default limit on request bodies; capture endpoints bring their own. */
export const DEFAULT_BODY_LIMIT = 20 * 1024 * 1024

/** Strips `basePath` from `pathname`; a path outside the base path is not Zed's to route. */
export const routePath = (pathname: string, basePath: string | undefined): string | undefined => {
  const base = basePath === undefined || basePath === "/" ? "" : basePath.replace(/\/+$/, "")
  if (base === "") return pathname
  if (pathname === base) return "/"
  return pathname.startsWith(base + "/") ? pathname.slice(base.length) : undefined
}

/** Remembers the first read so the body can be consulted more than once (auth, then decoding). */
export const once = <A>(read: () => Promise<A>): (() => Promise<A>) => {
  let promise: Promise<A> | undefined
  return () => (promise ??= read())
}
