import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll } from "@effect/vitest"
import { memoryStorage, type ZedStorage } from "@zed/core"
import { ProjectStore, QueryExecutor, type StorageServices, uuidv7 } from "@zed/core/storage"
import { bootstrap } from "../../core/src/bootstrap.js"
import { Context, Effect, Layer, ManagedRuntime, Option } from "effect"
import { chdbClickHouse, clickhouseStorage } from "../../clickhouse/src/index.js"
import { pgliteStorage, postgresStorage, temporaryDatabase } from "../src/index.js"
import { TEST_SERVER_URL } from "./server.js"

export interface Backend {
  readonly storage: ZedStorage
  readonly cleanup: () => Promise<void>
  /** The server database's URL, for a second instance on it (PostgreSQL only). */
  readonly url?: string
}

/**
 * Every storage backend, each fresh: in memory, PGlite in a temporary directory, a new database on
 * the server, and events in chDB beside PGlite metadata, all in a temporary directory.
 */
export const backends = (name: string): Record<string, () => Promise<Backend>> => ({
  memory: async () => ({ storage: memoryStorage(), cleanup: async () => {} }),
  pglite: async () => {
    const dir = mkdtempSync(join(tmpdir(), `zed-${name}-`))
    return {
      storage: pgliteStorage({ dataDir: join(dir, "pgdata") }),
      cleanup: async () => rmSync(dir, { recursive: true })
    }
  },
  postgres: async () => {
    const db = await temporaryDatabase(TEST_SERVER_URL)
    return { storage: postgresStorage({ url: db.url }), cleanup: db.drop, url: db.url }
  },
  chdb: async () => {
    const dir = mkdtempSync(join(tmpdir(), `zed-${name}-`))
    const storage = clickhouseStorage({
      metadata: pgliteStorage({ dataDir: join(dir, "pgdata") }),
      clickhouse: chdbClickHouse({ path: join(dir, "chdb") })
    })
    return { storage, cleanup: async () => rmSync(dir, { recursive: true }) }
  }
})

export { incomingEvent } from "../../core/test/support.js"

/** The storage with its query executor's `execute` replaced by `wrap` of it (the rest as it is). */
export const wrapExecute = (
  storage: ZedStorage,
  wrap: (execute: QueryExecutor["Type"]["execute"]) => QueryExecutor["Type"]["execute"]
): ZedStorage =>
  Layer.map(storage, (services) => {
    const executor = Context.get(services, QueryExecutor)
    return Context.add(services, QueryExecutor, QueryExecutor.of({ ...executor, execute: wrap(executor.execute) }))
  })

/**
 * The storage with every ZedQL statement's time limit cut to `ms` (Zed's own are a minute and ten),
 * so that a runaway query is stopped by the executor within a test's time.
 */
export const capQueryTimeout = (storage: ZedStorage, ms: number): ZedStorage =>
  wrapExecute(storage, (execute) => (request) => execute({ ...request, timeoutMs: Math.min(request.timeoutMs, ms) }))

/**
 * A suite's store: a fresh backend as a runtime, bootstrapped before the suite's tests and closed
 * after them, with a second project (`other`) in the same organization for isolation checks.
 */
export const suiteStorage = (make: () => Promise<Backend>) => {
  let runtime: ManagedRuntime.ManagedRuntime<StorageServices, unknown>
  let cleanup: () => Promise<void> = async () => {}
  const suite = {
    other: 0,
    run: <A, E>(effect: Effect.Effect<A, E, StorageServices>) => runtime.runPromise(effect),
    runExit: <A, E>(effect: Effect.Effect<A, E, StorageServices>) => runtime.runPromiseExit(effect)
  }
  beforeAll(async () => {
    const backend = await make()
    cleanup = backend.cleanup
    runtime = ManagedRuntime.make(backend.storage)
    await suite.run(bootstrap())
    suite.other = await suite.run(
      Effect.gen(function* () {
        const projects = yield* ProjectStore
        const first = Option.getOrThrow(yield* projects.get(1))
        return (yield* projects.create({
          organization: first.organization,
          name: "Other",
          timezone: "UTC",
          api_token: `phc_other_${uuidv7()}`
        })).id
      })
    )
  })
  afterAll(async () => {
    await runtime?.dispose()
    await cleanup()
  })
  return suite
}
