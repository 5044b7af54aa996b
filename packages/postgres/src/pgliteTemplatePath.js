// @ts-check
// Where the build puts the data directory new PGlite stores copy (scripts/pgliteTemplate.js), found
// from src/ and dist/ alike. Built from the module's path at run time rather than a literal URL, so
// that a bundler does not rewrite it into an asset.
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..")

export const TEMPLATE = join(packageDir, "pgdata-template")
export const TEMPLATE_STAMP = `${TEMPLATE}.json`
