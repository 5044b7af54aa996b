import { randomUUID } from "node:crypto"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { afterEach, describe, expect, it } from "@effect/vitest"
import { createZed } from "@zed/core"
import { EventStore } from "@zed/core/storage"
import { pgliteStorage } from "@zed/postgres"
import { Effect } from "effect"
import { type Started, startZed } from "./processes.js"

// Crash safety of the standalone server on PGlite: clients keep sending batches while the server is
// killed with SIGKILL at random moments and restarted on the same data directory. Clients retry a
// batch whose answer they never got, with the same uuids, as the SDKs do. Every batch answered 200
// must be stored, once, intact; retries of batches that were in fact committed must not duplicate.

const KEYS = {
  ZED_PROJECT_API_KEY: "phc_durability_project_key_0000001",
  ZED_PERSONAL_API_KEY: "phx_durability_personal_key_000001"
}
const CLIENTS = 4
const KILLS = 5
const BATCH = 20

const dirs: Array<string> = []
const children: Array<Started> = []
afterEach(() => {
  // A failed run may leave a server behind.
  for (const { child } of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

interface Sent {
  readonly uuid: string
  readonly event: string
  readonly distinct_id: string
  readonly properties: { readonly client: number; readonly seq: number; readonly i: number }
}

// jsonb keeps keys in its own order.
const sorted = (object: object) => JSON.stringify(Object.entries(object).sort())

const gate = () => {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { opened, open }
}

describe("zed serve on PGlite under SIGKILL", () => {
  it("stores every acknowledged event exactly once across crashes", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "zed-durability-"))
    dirs.push(dataDir)
    const env = { ZED_DATA_DIR: dataDir, ...KEYS }
    const start = async () => {
      const started = await startZed(env)
      children.push(started)
      return started
    }

    let server = await start()
    // Closed while the server is down; clients wait at it before (re)sending.
    let up = gate()
    up.open()

    const sent = new Map<string, Sent>()
    const acknowledged = new Set<string>()
    const unexpected: Array<string> = []
    let batches = 0
    let failures = 0
    let stopping = false

    /** Sends one batch until it is answered 200, as an SDK retries; false on any other answer. */
    const deliver = async (body: string): Promise<boolean> => {
      for (;;) {
        await up.opened
        try {
          const response = await fetch(`${server.url}/batch/`, {
            method: "POST",
            body,
            headers: { "content-type": "application/json" },
            signal: AbortSignal.timeout(20_000)
          })
          const text = await response.text()
          if (response.status === 200) return true
          // 503 is storage saying "retry"; anything else is a failure of the test.
          if (response.status !== 503) {
            unexpected.push(`${response.status} ${text}`)
            return false
          }
        } catch {
          // The server died under the request (reset) or is gone (refused): try again once it is back.
        }
        failures++
        await sleep(25)
      }
    }

    const client = async (n: number) => {
      for (let seq = 0; !stopping; seq++) {
        const events: Array<Sent> = Array.from({ length: BATCH }, (_, i) => ({
          uuid: randomUUID(),
          event: i % 4 === 0 ? "$pageview" : "clicked",
          // A few people per client, so person processing runs in the crashed transactions too.
          distinct_id: `client-${n}-user-${seq % 3}`,
          properties: { client: n, seq, i }
        }))
        for (const event of events) sent.set(event.uuid, event)
        batches++
        if (await deliver(JSON.stringify({ api_key: KEYS.ZED_PROJECT_API_KEY, batch: events }))) {
          for (const event of events) acknowledged.add(event.uuid)
        }
      }
    }
    const clients = Array.from({ length: CLIENTS }, (_, n) => client(n))

    for (let kill = 0; kill < KILLS; kill++) {
      await sleep(300 + Math.random() * 1200)
      up = gate()
      const exited = new Promise((resolve) => server.child.once("exit", resolve))
      server.child.kill("SIGKILL")
      await exited
      // The dead process's lock is still there, and the restart takes it over.
      expect(existsSync(join(dataDir, "pgdata.lock"))).toBe(true)
      server = await start()
      up.open()
    }
    await sleep(300 + Math.random() * 1200)
    stopping = true
    await Promise.all(clients)
    expect(await server.stop()).toBe(0)

    expect(unexpected).toEqual([])
    // The kills cut requests off, and every batch was eventually acknowledged.
    expect(failures).toBeGreaterThan(0)
    expect(batches).toBeGreaterThan(KILLS)
    expect(acknowledged.size).toBe(batches * BATCH)

    const zed = await createZed({ storage: pgliteStorage({ dataDir: join(dataDir, "pgdata") }), bootstrap: false })
    try {
      const stored = await zed.run(
        Effect.flatMap(EventStore, (store) => store.list(1, { limit: 10_000_000, offset: 0 }))
      )
      const copies = new Map<string, number>()
      for (const event of stored) copies.set(event.uuid, (copies.get(event.uuid) ?? 0) + 1)
      expect([...copies].filter(([, n]) => n > 1)).toEqual([])
      expect([...acknowledged].filter((uuid) => copies.get(uuid) !== 1)).toEqual([])
      expect(stored.filter((event) => !sent.has(event.uuid)).map((event) => event.uuid)).toEqual([])
      // Nothing torn: each stored event is the one sent (plus the $ip the server adds).
      const torn = stored.filter((event) => {
        const original = sent.get(event.uuid)!
        const { $ip, ...properties } = event.properties
        return (
          event.event !== original.event ||
          event.distinct_id !== original.distinct_id ||
          sorted(properties) !== sorted(original.properties) ||
          $ip !== "127.0.0.1"
        )
      })
      expect(torn).toEqual([])
      expect(stored.length).toBe(sent.size)
    } finally {
      await zed.close()
    }
  }, 150_000)
})
