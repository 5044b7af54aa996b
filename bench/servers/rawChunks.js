// The recordings baseline: the request bodies (gzip'd posthog-js payloads) inserted as they are into a
// plain bytea table of the same store, several to a parameterized multi-row INSERT, one INSERT after
// another, without Zed. Storage from argv[2]: "pglite:<dir>" or "postgres:<url>"; the bodies come
// over IPC (advanced serialization) as `{chunks, batch}`, and the answer is `{seconds}`.
import { PGlite } from "@electric-sql/pglite"
import pg from "pg"

const [kind, ...rest] = process.argv[2].split(":")
const where = rest.join(":")
const db = kind === "postgres" ? new pg.Client({ connectionString: where }) : await PGlite.create(where)
if (kind === "postgres") await db.connect()
await db.query(
  "CREATE TABLE recording_chunks (id bigserial PRIMARY KEY, session_id text NOT NULL, data bytea NOT NULL)"
)

process.on("message", async ({ batch, chunks: arrays, sessionId }) => {
  // They arrive as plain Uint8Arrays; pg binds Buffers as bytea.
  const chunks = arrays.map((array) => Buffer.from(array.buffer, array.byteOffset, array.byteLength))
  const started = performance.now()
  for (let at = 0; at < chunks.length; at += batch) {
    const rows = chunks.slice(at, at + batch)
    await db.query(
      `INSERT INTO recording_chunks (session_id, data) VALUES ${rows.map((_, i) => `($1, $${i + 2})`).join(", ")}`,
      [sessionId, ...rows]
    )
  }
  const seconds = (performance.now() - started) / 1000
  const {
    rows: [{ bytes }]
  } = await db.query("SELECT sum(length(data))::int AS bytes FROM recording_chunks")
  await (kind === "postgres" ? db.end() : db.close())
  process.send({ seconds, bytes })
})
process.send({ ready: true })
