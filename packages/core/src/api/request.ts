/** A request as Zed sees it, whichever framework received it. */
export interface ZedRequest {
  readonly method: string
  /** The absolute URL as the client addressed it; links such as pagination URLs are built from it. */
  readonly url: URL
  /** The path Zed routes on: the URL's path minus the base path an app mounted Zed under. */
  readonly path: string
  /** Header value by lower-case name. */
  readonly header: (name: string) => string | undefined
  /**
   * The body, read once and remembered; rejects with `BodyTooLargeError` past `limit` bytes (the
   * route's: `ZedLimits.bodyBytes`), without reading further.
   */
  readonly body: (limit: number) => Promise<Uint8Array>
  readonly remoteAddress: string | undefined
}

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`request body exceeds ${limit} bytes`)
  }
}

/** Strips `basePath` from `pathname`; a path outside the base path is not Zed's to route. */
export const routePath = (pathname: string, basePath: string | undefined): string | undefined => {
  const base = basePath === undefined || basePath === "/" ? "" : basePath.replace(/\/+$/, "")
  if (base === "") return pathname
  if (pathname === base) return "/"
  return pathname.startsWith(base + "/") ? pathname.slice(base.length) : undefined
}

/**
 * Remembers the first read so the body can be consulted more than once (auth, then decoding); each
 * reader's own limit holds against what was read.
 */
export const once = (read: (limit: number) => Promise<Uint8Array>): ((limit: number) => Promise<Uint8Array>) => {
  let promise: Promise<Uint8Array> | undefined
  return (limit) =>
    (promise ??= read(limit)).then((bytes) => {
      if (bytes.length > limit) throw new BodyTooLargeError(limit)
      return bytes
    })
}
