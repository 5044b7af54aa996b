import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { chdbClickHouse, clickhouseStorage } from "@zed/clickhouse"
import { createZed, type ZedStorage } from "@zed/core"
import { EventStore } from "@zed/core/storage"
import { pgliteStorage } from "@zed/postgres"
import { Effect } from "effect"
import { runZed, startZed } from "./processes.js"

// `zed migrate-events` end to end: it refuses while Zed runs on the PGlite directory or with no
// ClickHouse configured, then copies the events so that Zed on chDB serves the same ones.

const root = mkdtempSync(join(tmpdir(), "zed-migrate-cli-"))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const events = async (storage: ZedStorage) => {
  const zed = await createZed({ storage, bootstrap: false })
  try {
    const listed = await zed.run(Effect.flatMap(EventStore, (s) => s.list(1, { limit: 100_000, offset: 0 })))
    return [...listed].sort((a, b) => a.uuid.localeCompare(b.uuid))
  } finally {
    await zed.close()
  }
}

describe("zed migrate-events", () => {
  it("copies a stopped install's events from PGlite to chDB, once", { timeout: 120_000 }, async () => {
    const env = { ZED_DATA_DIR: join(root, "data") }
    expect((await runZed(["demo", "--events", "300", "--seed", "4", "--end", "2026-02-01"], env)).code).toBe(0)

    const running = await startZed(env)
    const locked = await runZed(["migrate-events"], { ...env, ZED_EVENTS: "chdb" })
    await running.stop()
    expect(locked.code).toBe(1)
    expect(locked.stderr).toContain("in use by process")

    const untargeted = await runZed(["migrate-events"], env)
    expect(untargeted.code).toBe(1)
    expect(untargeted.stderr).toContain("set CLICKHOUSE_URL")

    const migrated = await runZed(["migrate-events", "--batch-size", "100"], { ...env, ZED_EVENTS: "chdb" })
    expect(migrated.code, migrated.stderr).toBe(0)
    expect(migrated.stdout).toMatch(
      /^Copied 300 events, \d+ persons, \d+ person_distinct_ids, \d+ groups, 0 session_recordings in \d+\.\d s, \d+ rows\/s$/m
    )
    expect(migrated.stderr).toContain("events: 300 of 300 rows (100%)")

    const again = await runZed(["migrate-events"], { ...env, ZED_EVENTS: "chdb" })
    expect(again.stdout).toContain("Nothing left to copy")

    const metadata = () => pgliteStorage({ dataDir: join(env.ZED_DATA_DIR, "pgdata") })
    const before = await events(metadata())
    expect(before).toHaveLength(300)
    expect(
      await events(
        clickhouseStorage({
          metadata: metadata(),
          clickhouse: chdbClickHouse({ path: join(env.ZED_DATA_DIR, "chdb") })
        })
      )
    ).toEqual(before)
  })
})
