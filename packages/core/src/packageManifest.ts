import { createRequire } from "node:module"
import { join } from "node:path"

// Packages whose files Zed serves (posthog-js, @zed/web) are found at run time, and resolved with a
// `require` a bundler cannot see (Next.js bundles Zed and replaces a `createRequire(…).resolve(…)`
// it cannot follow with a throw), so Node does the lookup.

const requireFrom = (base: string): NodeJS.Require =>
  (
    (process.getBuiltinModule?.("node:module") as typeof import("node:module") | undefined) ?? { createRequire }
  ).createRequire(base)

/** The path of `name`'s package.json as Node finds it from this module, or else from the working directory. */
export const packageManifest = (name: string): string => {
  const manifest = [name, "package.json"].join("/")
  try {
    return requireFrom(import.meta.url).resolve(manifest)
  } catch {
    return requireFrom(join(process.cwd(), "package.json")).resolve(manifest)
  }
}
