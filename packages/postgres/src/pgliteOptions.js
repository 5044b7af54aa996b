// @ts-check
// How Zed opens PGlite, shared by its thread (pgliteWorker.js) and the memory benchmark's baseline.
import { PGlite } from "@electric-sql/pglite"

const INT8 = 20

/**
 * Postgres' memory settings, sized for one embedded session rather than a server's hundred. PGlite's
 * WebAssembly heap only grows, so whatever Postgres touches once stays resident: the default 128 MB
 * of shared buffers alone cost 120 MB of RSS once warm (`npm run bench -- memory`). Table pages
 * evicted from these buffers are still in the OS page cache, a read away. ANALYZE (autoAnalyze.ts)
 * samples 300 rows per statistics target: at the default 100, 30,000 events with their properties,
 * which held the heap about 30 MB higher under a steady ingest; row counts, which plans mostly turn
 * on, do not depend on the sample.
 */
const SETTINGS = {
  shared_buffers: "32MB",
  maintenance_work_mem: "16MB",
  temp_buffers: "2MB",
  wal_buffers: "1MB",
  default_statistics_target: "10"
}

/** @type {import("@electric-sql/pglite").PGliteOptions} */
export const pgliteOptions = {
  startParams: [
    ...PGlite.defaultStartParams,
    ...Object.entries(SETTINGS).flatMap(([name, value]) => ["-c", `${name}=${value}`])
  ],
  // bigint columns (counts) arrive as numbers, as from the PostgreSQL server.
  parsers: { [INT8]: (value) => Number(value) }
}
