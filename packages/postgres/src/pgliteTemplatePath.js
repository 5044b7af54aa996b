// @ts-check
// Where the build puts the data directory new PGlite stores copy (scripts/pgliteTemplate.js), found
// from src/ and dist/ alike. Built from the module's path at run time rather than a literal URL, so
// that a bundler does not rewrite it into an asset.
import { existsSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..")

export const TEMPLATE = join(packageDir, "pgdata-template")
export const TEMPLATE_STAMP = `${TEMPLATE}.json`

/** PGlite's package.json, found as Node finds packages: in node_modules of this package's folder or
 * one above it. (Not with require.resolve, which bundlers such as Next.js's rewrite into a module id.) */
const pglitePackage = () => {
  for (let dir = packageDir; ; dir = dirname(dir)) {
    const file = join(dir, "node_modules", "@electric-sql", "pglite", "package.json")
    if (existsSync(file)) return file
    if (dirname(dir) === dir) return undefined
  }
}

/** What the stamp beside the template says: the PGlite version that made it (undefined when PGlite
 * cannot be found from here). */
export const templateStamp = () => {
  const file = pglitePackage()
  return file && JSON.stringify({ pglite: JSON.parse(readFileSync(file, "utf8")).version })
}

/** Whether a template exists and the installed PGlite made it: one another version made (PGlite
 * upgraded after the build) may not open, so a store runs initdb instead. */
export const templateIsCurrent = () => {
  const stamp = templateStamp()
  return (
    stamp !== undefined &&
    existsSync(TEMPLATE) &&
    existsSync(TEMPLATE_STAMP) &&
    readFileSync(TEMPLATE_STAMP, "utf8") === stamp
  )
}
