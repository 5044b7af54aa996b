// @ts-check
// Creates the data directory every new PGlite store starts from (packages/postgres/pgdata-template),
// once per PGlite version. Run by `npm run build`. initdb takes seconds and grows PGlite's WebAssembly
// heap by about 500 MB that a process never gets back; a store copies this directory instead
// (pgliteThread.ts), so neither a server's first start nor a test's temporary store pays for it.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { PGlite } from "@electric-sql/pglite"
import { TEMPLATE, TEMPLATE_STAMP } from "../src/pgliteTemplatePath.js"
import { pgliteOptions } from "../src/pgliteOptions.js"

// The package does not export its package.json; it sits above the entry point's dist/.
const { version } = JSON.parse(
  readFileSync(new URL("../package.json", import.meta.resolve("@electric-sql/pglite")), "utf8")
)
const stamp = JSON.stringify({ pglite: version })

if (!(existsSync(TEMPLATE) && existsSync(TEMPLATE_STAMP) && readFileSync(TEMPLATE_STAMP, "utf8") === stamp)) {
  // Made beside it and renamed into place, so an interrupted build never leaves half a template.
  const making = `${TEMPLATE}.making-${process.pid}`
  rmSync(making, { recursive: true, force: true })
  const db = await PGlite.create(making, pgliteOptions)
  await db.close()
  rmSync(TEMPLATE, { recursive: true, force: true })
  renameSync(making, TEMPLATE)
  writeFileSync(TEMPLATE_STAMP, stamp)
}
