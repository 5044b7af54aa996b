// The ingest baseline: the same rows inserted straight into the same events table (migrated by Zed),
// as multi-row INSERTs of one request's batch each, one after another, without Zed.
// PGlite is opened with the settings Zed opens it with.
import { PGlite } from "@electric-sql/pglite"
import { createZed } from "@zed/core"
import { pgliteStorage, postgresStorage } from "@zed/postgres"
import { pgliteOptions } from "../../packages/postgres/dist/pgliteOptions.js"
import pg from "pg"

const [kind, ...rest] = process.argv[2].split(":")
const where = rest.join(":")
const setup = await createZed({
  storage: kind === "postgres" ? postgresStorage({ url: where }) : pgliteStorage({ dataDir: where })
})
await setup.close()

const db = kind === "postgres" ? new pg.Client({ connectionString: where }) : await PGlite.create(where, pgliteOptions)
if (kind === "postgres") await db.connect()

const COLUMNS = 8
const insert = (rows) => {
  const values = []
  const params = []
  for (const row of rows) {
    const at = params.length
    values.push(`(${Array.from({ length: COLUMNS }, (_, i) => `$${at + i + 1}`).join(", ")})`)
    params.push(
      1,
      row.uuid,
      row.event,
      row.distinct_id,
      row.person_id,
      JSON.stringify(row.properties),
      row.timestamp,
      row.created_at
    )
  }
  return db.query(
    `INSERT INTO events (project_id, uuid, event, distinct_id, person_id, properties, timestamp, created_at) VALUES ${values.join(", ")}`,
    params
  )
}

process.on("message", async ({ batches }) => {
  const started = performance.now()
  for (const rows of batches) await insert(rows)
  const seconds = (performance.now() - started) / 1000
  await (kind === "postgres" ? db.end() : db.close())
  process.send({ seconds })
})
process.send({ ready: true })
