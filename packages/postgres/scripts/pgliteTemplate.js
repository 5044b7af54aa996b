// @ts-check
// Creates the data directory every new PGlite store starts from (packages/postgres/pgdata-template),
// once per PGlite version. Run by `npm run build`. initdb takes seconds and grows PGlite's WebAssembly
// heap by about 500 MB that a process never gets back; a store copies this directory instead
// (pgliteThread.ts), so neither a server's first start nor a test's temporary store pays for it.
import { renameSync, rmSync, writeFileSync } from "node:fs"
import { PGlite } from "@electric-sql/pglite"
import { TEMPLATE, TEMPLATE_STAMP, templateIsCurrent, templateStamp } from "../src/pgliteTemplatePath.js"
import { pgliteOptions } from "../src/pgliteOptions.js"

if (!templateIsCurrent()) {
  // Made beside it and renamed into place, so an interrupted build never leaves half a template.
  const making = `${TEMPLATE}.making-${process.pid}`
  rmSync(making, { recursive: true, force: true })
  const db = await PGlite.create(making, pgliteOptions)
  await db.close()
  rmSync(TEMPLATE, { recursive: true, force: true })
  renameSync(making, TEMPLATE)
  writeFileSync(TEMPLATE_STAMP, templateStamp())
}
