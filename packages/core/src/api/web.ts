import type { Reply } from "./reply.js"
import { BodyTooLargeError, once, routePath, type ZedRequest } from "./request.js"

export interface WebRequestOptions {
  /** Prefix to strip before routing; requests outside it are not Zed's. */
  readonly basePath?: string | undefined
}

/** Zed's view of a Fetch API request; undefined when outside the base path. */
export const fromWebRequest = (request: Request, options: WebRequestOptions = {}): ZedRequest | undefined => {
  const url = new URL(request.url)
  const path = routePath(url.pathname, options.basePath)
  if (path === undefined) return undefined
  return {
    method: request.method,
    url,
    path,
    header: (name) => request.headers.get(name) ?? undefined,
    body: once(async (limit) => {
      if (Number(request.headers.get("content-length")) > limit) throw new BodyTooLargeError(limit)
      const bytes = new Uint8Array(await request.arrayBuffer())
      if (bytes.length > limit) throw new BodyTooLargeError(limit)
      return bytes
    }),
    remoteAddress: undefined
  }
}

export const toWebResponse = (reply: Reply): Response => {
  const headers = new Headers(reply.headers)
  for (const cookie of reply.cookies) headers.append("set-cookie", cookie)
  return new Response(reply.body as BodyInit | null, { status: reply.status, headers })
}
