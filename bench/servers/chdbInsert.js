// The chDB ingest baseline: the rows Zed would store, inserted straight into the events table of a
// chDB store (made and migrated by Zed as ZED_EVENTS=chdb makes it, under argv[2]) as one
// JSONEachRow insert per request's batch, one after another, without Zed.
import { join } from "node:path"
import { createZed } from "@zed/core"
import { storageFor } from "@zed/node"
import { Session } from "chdb"
import { Option } from "effect"

const dir = process.argv[2]
const setup = await createZed({
  storage: storageFor({
    events: "chdb",
    dataDir: dir,
    databaseUrl: Option.none(),
    clickhouseUrl: Option.none(),
    clickhouseCluster: Option.none()
  })
})
await setup.close()

const session = new Session(join(dir, "chdb"))
process.on("message", async ({ batches }) => {
  const started = performance.now()
  for (const rows of batches) {
    await session.insert({
      table: "events",
      format: "JSONEachRow",
      values: Buffer.from(rows.map((row) => JSON.stringify(row)).join("\n"))
    })
  }
  const seconds = (performance.now() - started) / 1000
  session.close()
  process.send({ seconds })
})
process.send({ ready: true })
