// @ts-check
// Where the build puts the data directory new PGlite stores copy (scripts/pgliteTemplate.js), found
// from src/ and dist/ alike. Built from the module's path at run time rather than a literal URL, so
// that a bundler does not rewrite it into an asset.
import { existsSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..")

export const TEMPLATE = join(packageDir, "pgdata-template")
export const TEMPLATE_STAMP = `${TEMPLATE}.json`

/** What the stamp beside the template says: the PGlite version that made it. */
export const templateStamp = () => {
  // The package does not export its package.json; it sits above the entry point's dist/. (Resolved
  // with require: vitest's module runner has no import.meta.resolve.)
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite")
  const { version } = JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8"))
  return JSON.stringify({ pglite: version })
}

/** Whether a template exists and the installed PGlite made it: one another version made (PGlite
 * upgraded after the build) may not open, so a store runs initdb instead. */
export const templateIsCurrent = () =>
  existsSync(TEMPLATE) && existsSync(TEMPLATE_STAMP) && readFileSync(TEMPLATE_STAMP, "utf8") === templateStamp()
