// @ts-check
// How Zed opens PGlite, shared by its thread (pgliteWorker.js) and the memory benchmark's baseline.

const INT8 = 20

/** @type {import("@electric-sql/pglite").PGliteOptions} */
export const pgliteOptions = {
  // bigint columns (counts) arrive as numbers, as from the PostgreSQL server.
  parsers: { [INT8]: (value) => Number(value) }
}
