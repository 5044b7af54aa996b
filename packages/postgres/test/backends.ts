import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type IncomingEvent, memoryStorage, uuidv7, type ZedStorage } from "@zed/core"
import { pgliteStorage, postgresStorage, temporaryDatabase } from "../src/index.js"
import { TEST_SERVER_URL } from "./server.js"

export interface Backend {
  readonly storage: ZedStorage
  readonly cleanup: () => Promise<void>
}

/** Every storage backend, each fresh: in memory, PGlite in a temporary directory, a new database on the server. */
export const backends = (name: string): Record<string, () => Promise<Backend>> => ({
  memory: async () => ({ storage: memoryStorage(), cleanup: async () => {} }),
  pglite: async () => {
    const dir = mkdtempSync(join(tmpdir(), `zed-${name}-`))
    return { storage: pgliteStorage({ dataDir: join(dir, "pgdata") }), cleanup: async () => rmSync(dir, { recursive: true }) }
  },
  postgres: async () => {
    const db = await temporaryDatabase(TEST_SERVER_URL)
    return { storage: postgresStorage({ url: db.url }), cleanup: db.drop }
  }
})

/** An event as capture hands it to ingestion, happening now. */
export const incomingEvent = (name: string, distinctId: string, properties: Record<string, unknown> = {}): IncomingEvent => ({
  uuid: uuidv7(),
  event: name,
  distinct_id: distinctId,
  properties,
  timestamp: new Date(),
  received_at: new Date(),
  processPerson: true
})
