import { createHash } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { promisify } from "node:util"
import { gzip } from "node:zlib"
import { Context, Effect, Layer, Option } from "effect"
import { packageManifest } from "../packageManifest.js"

// posthog-js's browser builds, served as PostHog's asset host serves them: the snippet loads
// `array.js`, and the slim core loads its extensions (recorder, surveys, exception autocapture,
// web vitals…) at run time as `/static/<name>.js`. They come from the posthog-js package Zed
// depends on (pinned in @zed/core's package.json), read once each and kept, with a gzipped copy.

/** One file of posthog-js's `dist/`, as served. */
export interface SdkAsset {
  readonly body: Uint8Array
  readonly gzipped: Uint8Array
  /** A strong tag of the content. */
  readonly etag: string
  readonly contentType: string
}

export class PosthogJs extends Context.Tag("@zed/core/PosthogJs")<
  PosthogJs,
  {
    /** The version of posthog-js served; none when the package cannot be found (a bundler moved Zed away from it). */
    readonly version: string | undefined
    /** Every file name served: `dist/`'s scripts and their source maps. */
    readonly names: ReadonlyArray<string>
    readonly get: (name: string) => Effect.Effect<Option.Option<SdkAsset>>
  }
>() {}

const SERVED = /^[a-z0-9][a-z0-9.-]*\.js(\.map)?$/

const contentType = (name: string) =>
  name.endsWith(".map") ? "application/json; charset=utf-8" : "application/javascript; charset=utf-8"

interface Listing {
  readonly dist: string
  readonly version: string | undefined
  readonly names: ReadonlyArray<string>
}

/** The package's `dist/` directory, version and served files, as Node resolves `posthog-js` from this module. */
const locate = (): Listing => {
  try {
    const manifest = packageManifest("posthog-js")
    const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version: string }
    const dist = join(dirname(manifest), "dist")
    return {
      dist,
      version,
      names: readdirSync(dist)
        .filter((name) => SERVED.test(name))
        .sort()
    }
  } catch {
    return { dist: "", version: undefined, names: [] }
  }
}

let listing: Listing | undefined

/** What posthog-js ships, looked up once. */
export const posthogJsFiles = (): Listing => (listing ??= locate())

export const PosthogJsLive = Layer.sync(PosthogJs, () => {
  const { dist, names, version } = posthogJsFiles()
  const known = new Set(names)
  // The set of files is fixed, so keeping each one read is bounded by the package's size.
  const loaded = new Map<string, Promise<SdkAsset>>()
  const load = async (name: string): Promise<SdkAsset> => {
    const body = new Uint8Array(await readFile(join(dist, name)))
    return {
      body,
      gzipped: new Uint8Array(await promisify(gzip)(body)),
      etag: `"${createHash("sha1").update(body).digest("hex")}"`,
      contentType: contentType(name)
    }
  }
  return PosthogJs.of({
    version,
    names,
    get: (name) =>
      known.has(name)
        ? Effect.map(
            Effect.promise(() => {
              let asset = loaded.get(name)
              if (asset === undefined) loaded.set(name, (asset = load(name)))
              return asset
            }),
            Option.some
          )
        : Effect.succeed(Option.none())
  })
})
