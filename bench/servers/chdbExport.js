// The chDB export baseline: the same rows an export of every event writes, ordered the same way,
// written as CSV to a file by chDB itself in one statement (INTO OUTFILE), without Zed, on the
// chDB store of the clickhouse bench's data set (argv[2], Zed's <dir>; its server closed first).
// The sort spills to disk past 1 GB, as ten million rows of properties would not fit in memory.
import { rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Session } from "chdb"

const session = new Session(join(process.argv[2], "chdb"))
process.on("message", async ({ columns }) => {
  const file = join(tmpdir(), `zed-bench-export-${process.pid}.csv`)
  rmSync(file, { force: true })
  const started = performance.now()
  await session.queryAsync(
    `SELECT ${columns} FROM events WHERE project_id = 1 ORDER BY timestamp, uuid INTO OUTFILE '${file}' FORMAT CSVWithNames SETTINGS max_bytes_before_external_sort = 1000000000`
  )
  const seconds = (performance.now() - started) / 1000
  const rows = Number(
    (await session.queryAsync("SELECT count() FROM events WHERE project_id = 1", { format: "CSV" })).text()
  )
  rmSync(file, { force: true })
  session.close()
  process.send({ seconds, rows })
})
process.send({ ready: true })
