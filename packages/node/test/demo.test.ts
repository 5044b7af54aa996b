import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { createZed, loadDemoData, memoryStorage, type Zed } from "@zed/core"
import { EventStore, PersonStore } from "@zed/core/storage"
import { pgliteStorage } from "@zed/postgres"
import { Effect } from "effect"
import { runZed } from "./processes.js"

// `zed demo` loads the generated data set into the configured store. On PGlite it must store exactly
// what loading the same options into memory stores (which the core tests check against the events).

const root = mkdtempSync(join(tmpdir(), "zed-demo-"))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const DAY = 86_400_000

/** Everything stored in project 1, in an order independent of the store. */
const contents = async (zed: Zed) => {
  const events = await zed.run(Effect.flatMap(EventStore, (s) => s.list(1, { limit: 100_000, offset: 0 })))
  const persons = await zed.run(
    Effect.flatMap(PersonStore, (s) => s.list(1, { properties: [], limit: 100_000, offset: 0 }))
  )
  return {
    events: events
      .map(({ distinct_id, event, person_id, properties, timestamp, uuid }) => ({
        uuid,
        event,
        distinct_id,
        person_id,
        timestamp,
        properties
      }))
      .sort((a, b) => a.uuid.localeCompare(b.uuid)),
    persons: persons.results
      .map(({ created_at, distinct_ids, is_identified, properties, uuid }) => ({
        uuid,
        distinct_ids: [...distinct_ids].sort(),
        is_identified,
        properties,
        created_at
      }))
      .sort((a, b) => a.uuid.localeCompare(b.uuid))
  }
}

const openPglite = (dataDir: string) =>
  createZed({ storage: pgliteStorage({ dataDir: join(dataDir, "pgdata") }), bootstrap: false })

describe("zed demo", () => {
  it("refuses missing or malformed options before opening any store", async () => {
    const dataDir = join(root, "untouched")
    for (const [args, message] of [
      [[], "zed demo needs --events"],
      [["--events", "0"], `--events takes a whole number from 1, not "0"`],
      [["--events", "5", "--end", "2026-02-30"], `--end takes a date as YYYY-MM-DD, not "2026-02-30"`]
    ] as const) {
      const result = await runZed(["demo", ...args], { ZED_DATA_DIR: dataDir })
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(message)
      expect(result.stderr).toContain("zed demo --events <n>")
    }
    expect(existsSync(dataDir)).toBe(false)
  })

  it("loads the data set into PGlite exactly as it loads into memory, reporting progress and rate", async () => {
    const dataDir = join(root, "loaded")
    const result = await runZed(["demo", "--events", "2500", "--seed", "9", "--end", "2026-02-01"], {
      ZED_DATA_DIR: dataDir
    })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(
      /^Loaded 2500 demo events \(seed 9, up to 2026-02-01\) into project 1 in \d+\.\d s, \d+ events\/s$/m
    )
    expect(result.stderr).toContain(`credentials are in ${join(dataDir, "credentials.json")}`)
    expect(result.stderr).toMatch(/^ {2}1000 of 2500 events, \d+ events\/s$/m)

    const pglite = await openPglite(dataDir)
    const memory = await createZed({ storage: memoryStorage() })
    try {
      expect(await loadDemoData(memory, { events: 2500, seed: 9, end: new Date("2026-02-01T00:00:00Z") })).toBe(2500)
      const [stored, reference] = await Promise.all([contents(pglite), contents(memory)])
      expect(stored.events).toHaveLength(2500)
      expect(stored.persons.length).toBeGreaterThan(50)
      expect(stored).toEqual(reference)
    } finally {
      await pglite.close()
      await memory.close()
    }

    const elsewhere = await runZed(["demo", "--events", "10", "--project", "7"], { ZED_DATA_DIR: dataDir })
    expect(elsewhere.code).toBe(1)
    expect(elsewhere.stderr).toContain("zed demo: there is no project 7")
  })

  it("ends the data at the start of the current UTC day by default", async () => {
    const dataDir = join(root, "today")
    const before = Math.floor(Date.now() / DAY) * DAY
    const result = await runZed(["demo", "--events", "200", "--seed", "3"], { ZED_DATA_DIR: dataDir })
    const after = Math.floor(Date.now() / DAY) * DAY
    expect(result.code, result.stderr).toBe(0)
    const zed = await openPglite(dataDir)
    try {
      const { events } = await contents(zed)
      expect(events).toHaveLength(200)
      const times = events.map((e) => e.timestamp.getTime())
      expect(Math.max(...times)).toBeLessThan(after)
      expect(Math.min(...times)).toBeGreaterThanOrEqual(before - 42 * DAY)
      expect(Math.max(...times)).toBeGreaterThan(before - 7 * DAY)
    } finally {
      await zed.close()
    }
  })
})
