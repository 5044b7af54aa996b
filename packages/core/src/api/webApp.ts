import type { WebAppFiles } from "../web/webAppFiles.js"
import { Reply } from "./reply.js"
import { routePath, type ZedRequest } from "./request.js"

// The web app beside the API. Its files are answered for GET and HEAD only, and never for a path
// of the API or the SDKs (those keep their JSON 404s). Hashed assets are immutable; index.html is
// never cached, and is written for the place the app is mounted, so one build serves any base path.

export interface WebAppOptions {
  /** Where the app is under Zed's own root (default "/": beside the API, e.g. `/login`, `/project/1/sql`). */
  readonly basePath?: string | undefined
}

/** First path segments of the API and the SDKs' endpoints; `_…` (health) too. */
const API_SEGMENTS = new Set([
  "api",
  "i",
  "e",
  "batch",
  "capture",
  "track",
  "engage",
  "decide",
  "flags",
  "s",
  "static",
  "array",
  "shared",
  "embedded",
  "exports"
])

/** The app's own first segments: at Zed's root it claims only these, so a host app keeps its paths. */
const PAGE_SEGMENTS = new Set(["", "login", "signup", "project"])

const CHARSET = '<meta charset="utf-8" />'
const YEAR = "public, max-age=31536000, immutable"

const escapeAttribute = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;")

/** The part of the URL's path before Zed's route path: where the host mounted Zed ("" at the root). */
const mountOf = (request: ZedRequest) => {
  const pathname = request.url.pathname
  const mount = pathname.endsWith(request.path) ? pathname.slice(0, pathname.length - request.path.length) : pathname
  return mount.replace(/\/+$/, "")
}

export interface WebApp {
  /** Whether the app answers GET `path` (a Zed route path). */
  readonly serves: (path: string) => boolean
  /** The app's answer, or undefined when the request is not the app's. */
  readonly reply: (request: ZedRequest) => Reply | undefined
}

export const makeWebApp = (files: () => WebAppFiles | undefined, options: WebAppOptions = {}): WebApp => {
  const base = (options.basePath ?? "/").replace(/\/+$/, "")
  const ownPath = (path: string) => {
    const inner = routePath(path, base)
    if (inner === undefined) return undefined
    const segment = inner.split("/")[1] ?? ""
    if (base === "" && (API_SEGMENTS.has(segment) || segment.startsWith("_") || !PAGE_SEGMENTS.has(segment))) {
      return segment === "assets" ? inner : undefined
    }
    return inner
  }
  return {
    serves: (path) => ownPath(path) !== undefined && files() !== undefined,
    reply: (request) => {
      if (request.method !== "GET" && request.method !== "HEAD") return undefined
      const path = ownPath(request.path)
      const built = path === undefined ? undefined : files()
      if (path === undefined || built === undefined) return undefined
      if (path.startsWith("/assets/")) {
        const asset = built.assets.get(path)
        if (asset === undefined) return undefined
        const accepts = request.header("accept-encoding") ?? ""
        const [encoding, body] =
          asset.br && /\bbr\b/.test(accepts)
            ? ["br", asset.br]
            : asset.gzip && /\bgzip\b/.test(accepts)
              ? ["gzip", asset.gzip]
              : [undefined, asset.body]
        const headers = {
          "content-type": asset.contentType,
          "cache-control": YEAR,
          vary: "Accept-Encoding",
          ...(encoding ? { "content-encoding": encoding } : {})
        }
        return new Reply(200, request.method === "HEAD" ? null : body, headers)
      }
      const mount = mountOf(request)
      const app = mount + base
      // Pages behind sign-in ask who is signed in first: the browser starts that call while the
      // app's scripts are still being evaluated.
      const preload = /^\/(login|signup)(\/|$)/.test(path)
        ? ""
        : `\n    <link rel="preload" as="fetch" crossorigin href="${escapeAttribute(mount)}/api/users/@me/" />`
      const html = built.index.replace(
        CHARSET,
        `${CHARSET}\n    <base href="${escapeAttribute(app)}/" />\n    <meta name="zed-api" content="${escapeAttribute(mount)}" />\n    <meta name="zed-app" content="${escapeAttribute(app)}" />${preload}`
      )
      return new Reply(200, request.method === "HEAD" ? null : html, {
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-cache",
        "x-content-type-options": "nosniff",
        "referrer-policy": "same-origin"
      })
    }
  }
}
