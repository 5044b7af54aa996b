import { readdirSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { packageManifest } from "../packageManifest.js"

// The web app as @zed/web's build left it: `index.html` and hashed files under `assets/`, each text
// file also as `.gz` and `.br`. Read once, at the first request for the app, and kept: the whole
// build is a few hundred kilobytes.

export interface WebAsset {
  readonly body: Uint8Array
  readonly gzip: Uint8Array | undefined
  readonly br: Uint8Array | undefined
  readonly contentType: string
}

export interface WebAppFiles {
  /** index.html's text, into which the handler writes where the app and the API are. */
  readonly index: string
  /** By path under the build, e.g. `/assets/index-B0yIPBS1.js`. */
  readonly assets: ReadonlyMap<string, WebAsset>
}

const TYPES: Record<string, string> = {
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
  woff2: "font/woff2",
  json: "application/json"
}

const typeOf = (name: string) => TYPES[name.slice(name.lastIndexOf(".") + 1)] ?? "application/octet-stream"

const optional = (file: string) => {
  try {
    return new Uint8Array(readFileSync(file))
  } catch {
    return undefined
  }
}

/** The built app in `dist`, or undefined when there is none (not built, or @zed/web not installed). */
export const readWebApp = (dist: string): WebAppFiles | undefined => {
  let index: string
  try {
    index = readFileSync(join(dist, "index.html"), "utf8")
  } catch {
    return undefined
  }
  const assets = new Map<string, WebAsset>()
  const names = readdirSync(join(dist, "assets")).filter((name) => !/\.(gz|br)$/.test(name))
  for (const name of names) {
    const file = join(dist, "assets", name)
    assets.set(`/assets/${name}`, {
      body: new Uint8Array(readFileSync(file)),
      gzip: optional(`${file}.gz`),
      br: optional(`${file}.br`),
      contentType: typeOf(name)
    })
  }
  return { index, assets }
}

/** Where @zed/web's build is, as Node resolves the package; undefined when it is not installed. */
export const webAppDist = (): string | undefined => {
  try {
    return join(dirname(packageManifest("@zed/web")), "dist")
  } catch {
    return undefined
  }
}
