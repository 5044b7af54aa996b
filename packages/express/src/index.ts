import type { Zed } from "@zed/core"
import { fromNodeRequest, writeNodeReply } from "@zed/core/adapter"
import type { NextFunction, Request, RequestHandler, Response } from "express"

export interface ZedExpressOptions {
  /**
   * Pass requests Zed has no route for on to the app's next handler. By default it does so only
   * when mounted at the root (sharing paths with the app); under its own path Zed answers them
   * with its JSON 404.
   */
  readonly fallthrough?: boolean | undefined
}

// A body parser mounted before Zed (express.json(), say) has already consumed the stream: hand Zed
// what it parsed. Raw buffers and text pass through untouched; parsed JSON is serialized again.
const parsedBody = (req: Request): (() => Promise<Uint8Array>) | undefined => {
  const body: unknown = req.body
  if (!req.readableEnded || body === undefined) return undefined
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === "string" ? body : JSON.stringify(body))
  return () => Promise.resolve(bytes)
}

/**
 * Express middleware serving Zed: `app.use("/analytics", zedMiddleware(zed))`. Takes the instance
 * or a promise of it, so the app can mount it before Zed has finished starting.
 */
export const zedMiddleware =
  (zed: Zed | Promise<Zed>, options: ZedExpressOptions = {}): RequestHandler =>
  (req: Request, res: Response, next: NextFunction) => {
    Promise.resolve(zed)
      .then(async (instance) => {
        const fallthrough = options.fallthrough ?? req.baseUrl === ""
        if (fallthrough && !instance.serves(req.path)) return next()
        const request = fromNodeRequest(req, {
          url: new URL(req.originalUrl, `${req.protocol}://${req.get("host") ?? "localhost"}`),
          path: req.path,
          body: parsedBody(req)
        })
        if (request === undefined) return next()
        writeNodeReply(res, await instance.handle(request))
      })
      .catch(next)
  }
