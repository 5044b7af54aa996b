// Zed serving the management API through nodeHandler; storage from argv[2]: "pglite" or "memory".
import { createServer } from "node:http"
import { createZed, memoryStorage } from "@zed/core"
import { pgliteStorage } from "@zed/postgres"

const KEY = process.env.BENCH_KEY
const zed = await createZed({
  storage: process.argv[2] === "memory" ? memoryStorage() : pgliteStorage(),
  bootstrap: { personalApiKey: KEY }
})
const server = createServer((req, res) => void zed.nodeHandler(req, res)).listen(0, "127.0.0.1", () => {
  process.send({ port: server.address().port })
})
