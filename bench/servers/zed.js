// Zed serving requests through nodeHandler. Storage from argv[2]: "memory", "pglite" (in memory),
// "pglite:<dir>" or "postgres:<url>". Reports its memory when asked (servers/memory.js).
import { createServer } from "node:http"
import { createZed, memoryStorage } from "@zed/core"
import { pgliteStorage, postgresStorage } from "@zed/postgres"
import { reportMemory } from "./memory.js"

const [kind, ...rest] = (process.argv[2] ?? "pglite").split(":")
const where = rest.join(":")
const storage =
  kind === "memory"
    ? memoryStorage()
    : kind === "postgres"
      ? postgresStorage({ url: where })
      : pgliteStorage({ dataDir: where || undefined })

const zed = await createZed({
  storage,
  bootstrap: { personalApiKey: process.env.BENCH_KEY, projectApiKey: process.env.BENCH_TOKEN }
})
const server = createServer((req, res) => void zed.nodeHandler(req, res)).listen(0, "127.0.0.1", () => {
  process.send({ port: server.address().port })
})
reportMemory()
process.on("disconnect", () => server.close(() => zed.close().then(() => process.exit(0))))
