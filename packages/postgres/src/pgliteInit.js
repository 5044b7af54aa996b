// @ts-check
// Creates a PGlite database in a fresh directory, then exits (see `initialize` in pgliteThread.ts).
// Run as a process of its own: plain JavaScript, so that Node starts it as it is from the sources
// (tests) as well as from dist/.
import { PGlite } from "@electric-sql/pglite"
import { pgliteOptions } from "./pgliteOptions.js"

const send = /** @type {(message: unknown) => void} */ (process.send?.bind(process))
try {
  const db = await PGlite.create(process.argv[2], pgliteOptions)
  await db.close()
  send({ done: true })
} catch (error) {
  send({ failed: error instanceof Error ? error.message : String(error) })
}
process.disconnect()
