// @ts-check
// The PGlite thread's entry (see pgliteThread.ts). Plain JavaScript, so that Node starts it as it is
// from the sources (tests) as well as from dist/.
import { parentPort, workerData } from "node:worker_threads"
import { PGlite } from "@electric-sql/pglite"
import { pgliteOptions } from "./pgliteOptions.js"

const port = /** @type {import("node:worker_threads").MessagePort} */ (parentPort)

// What a DatabaseError tells beyond its message; the rest of it (the query's options) cannot be posted.
const FIELDS = [
  "code",
  "severity",
  "detail",
  "hint",
  "position",
  "where",
  "schema",
  "table",
  "column",
  "dataType",
  "constraint",
  "routine"
]

/** @param {unknown} error */
const describe = (error) => {
  if (!(error instanceof Error)) return { message: String(error) }
  /** @type {Record<string, unknown>} */
  const described = { message: error.message }
  for (const field of FIELDS) {
    const value = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (error))[field]
    if (value !== undefined) described[field] = value
  }
  return described
}

/** @param {import("@electric-sql/pglite").Results} results */
const plain = ({ rows, fields, affectedRows }) => ({ rows, fields, affectedRows })

/** @type {PGlite} */
let db
try {
  db = await PGlite.create(workerData.dataDir, pgliteOptions)
} catch (error) {
  port.postMessage({ failed: describe(error) })
  process.exit(1)
}

/**
 * @typedef {{ id: number, op: "query", sql: string, params: Array<unknown>, rowMode: "array" | "object" }
 *   | { id: number, op: "exec", sql: string }
 *   | { id: number, op: "close" }} Request
 */
port.on("message", async (/** @type {Request} */ request) => {
  try {
    const result =
      request.op === "query"
        ? plain(await db.query(request.sql, request.params, { rowMode: request.rowMode }))
        : request.op === "exec"
          ? (await db.exec(request.sql)).map(plain)
          : await db.close()
    port.postMessage({ id: request.id, result })
  } catch (error) {
    port.postMessage({ id: request.id, error: describe(error) })
  }
})
port.postMessage({ ready: true })
