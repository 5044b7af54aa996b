import { Readable } from "node:stream"
import type { ReadableStream as NodeReadableStream } from "node:stream/web"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { Reply } from "./reply.js"
import { BodyTooLargeError, once, routePath, type ZedRequest } from "./request.js"

export interface NodeRequestOptions {
  /** Prefix to strip before routing; requests outside it are not Zed's. */
  readonly basePath?: string | undefined
  /** Believe `X-Forwarded-Proto`/`X-Forwarded-Host` (behind a proxy you run). */
  readonly trustProxy?: boolean | undefined
  /** The URL as the client addressed it, when the framework knows better (e.g. a mounted sub-app). */
  readonly url?: URL | undefined
  /** The path to route on, when the framework already stripped its mount path. */
  readonly path?: string | undefined
  /** The body, when a framework already read it. */
  readonly body?: (() => Promise<Uint8Array>) | undefined
}

const first = (value: string | Array<string> | undefined) =>
  (Array.isArray(value) ? value[0] : value)?.split(",")[0]?.trim()

const readNodeBody = (req: IncomingMessage) => (limit: number) =>
  new Promise<Uint8Array>((resolve, reject) => {
    if (Number(req.headers["content-length"]) > limit) {
      req.resume()
      return reject(new BodyTooLargeError(limit))
    }
    const chunks: Array<Buffer> = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= limit) return void chunks.push(chunk)
      req.off("data", onData)
      req.resume()
      reject(new BodyTooLargeError(limit))
    }
    req.on("data", onData)
    req.once("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)))
    req.once("error", reject)
  })

const requestUrl = (req: IncomingMessage, trustProxy: boolean): URL | undefined => {
  const proto =
    (trustProxy && first(req.headers["x-forwarded-proto"])) ||
    ("encrypted" in req.socket && req.socket.encrypted ? "https" : "http")
  const host = (trustProxy && first(req.headers["x-forwarded-host"])) || req.headers.host || "localhost"
  try {
    // Concatenated, not resolved against a base: a path such as `//x` must stay a path.
    return new URL(`${proto}://${host}${req.url ?? "/"}`)
  } catch {
    return undefined
  }
}

/** Zed's view of a node:http request; undefined when the URL is unusable or outside the base path. */
export const fromNodeRequest = (req: IncomingMessage, options: NodeRequestOptions = {}): ZedRequest | undefined => {
  const url = options.url ?? requestUrl(req, options.trustProxy ?? false)
  if (url === undefined) return undefined
  const path = options.path ?? routePath(url.pathname, options.basePath)
  if (path === undefined) return undefined
  return {
    method: req.method ?? "GET",
    url,
    path,
    header: (name) => {
      const value = req.headers[name]
      return Array.isArray(value) ? value.join(", ") : value
    },
    body: once(options.body ?? readNodeBody(req)),
    remoteAddress: req.socket.remoteAddress
  }
}

export const writeNodeReply = (res: ServerResponse, reply: Reply): void => {
  res.writeHead(
    reply.status,
    reply.cookies.length === 0 ? reply.headers : { ...reply.headers, "set-cookie": [...reply.cookies] }
  )
  if (reply.body instanceof ReadableStream) Readable.fromWeb(reply.body as NodeReadableStream<Uint8Array>).pipe(res)
  else res.end(reply.body ?? undefined)
}
