import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import * as Reactivity from "@effect/experimental/Reactivity"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { type ZedStorage } from "@zed/core"
import { type ExecuteRequest, QueryExecutor, type StorageServices } from "@zed/core/storage"
import { bootstrap } from "../../core/src/bootstrap.js"
import { ingest } from "../../core/src/ingest/writer.js"
import { Cause, Effect, Exit, Fiber, ManagedRuntime } from "effect"
import fc from "fast-check"
import { pgliteStorage } from "../src/index.js"
import * as PgliteClient from "../src/PgliteClient.js"
import { open as openThread } from "../src/pgliteThread.js"
import { executeRequest, failureOf } from "../../core/test/support.js"
import { backends, incomingEvent } from "./backends.js"
import { activeOnServer } from "./server.js"

// ZedQL's executor on both SQL engines: results with type OIDs, read-only, in the request's time
// zone, and stopped for real at its time limit, by `cancel` or by interruption.

// Runs for hours unless stopped.
const RUNAWAY = "SELECT count(*) FROM generate_series(1, 100000) a, generate_series(1, 100000) b"

describe.each(["pglite", "postgres"])("%s query executor", (name) => {
  let runtime: ManagedRuntime.ManagedRuntime<StorageServices, unknown>
  let cleanup: () => Promise<void>
  const run = <A, E>(effect: Effect.Effect<A, E, StorageServices>) => runtime.runPromise(effect)
  const execute = (req: ExecuteRequest) => runtime.runPromiseExit(Effect.flatMap(QueryExecutor, (q) => q.execute(req)))
  const rows = async (sql: string, overrides: Partial<ExecuteRequest> = {}) => {
    const exit = await execute(executeRequest(sql, overrides))
    if (Exit.isFailure(exit)) throw new Error(`query failed: ${Cause.pretty(exit.cause)}`)
    return exit.value.rows
  }
  const eventCount = async () => (await rows("SELECT count(*) FROM events"))[0]![0]

  beforeAll(async () => {
    const backend = await backends("query-executor")[name]!()
    cleanup = backend.cleanup
    runtime = ManagedRuntime.make(backend.storage)
    await run(bootstrap())
    await run(
      ingest([
        {
          projectId: 1,
          events: [
            incomingEvent("$pageview", "ada"),
            incomingEvent("$pageview", "bob"),
            incomingEvent("signed_up", "ada")
          ]
        }
      ])
    )
  })
  afterAll(async () => {
    await runtime.dispose()
    await cleanup()
  })

  it("answers rows as arrays with each column's type OID, duplicate names kept", async () => {
    const exit = await execute(
      executeRequest(
        "SELECT event, count(*) AS n, $1::text AS n, now() AS at FROM events WHERE project_id = $2 GROUP BY event ORDER BY event",
        {
          params: ["x", 1]
        }
      )
    )
    expect(Exit.isSuccess(exit)).toBe(true)
    const { columns, rows } = Exit.isSuccess(exit) ? exit.value : { columns: [], rows: [] }
    expect(columns).toEqual([
      { name: "event", typeOid: 25 },
      { name: "n", typeOid: 20 },
      { name: "n", typeOid: 25 },
      { name: "at", typeOid: 1184 }
    ])
    expect(rows.map((row) => row.slice(0, 3))).toEqual([
      ["$pageview", 2, "x"],
      ["signed_up", 1, "x"]
    ])
    expect(rows[0]![3]).toBeInstanceOf(Date)
  })

  it("runs the statement read-only", async () => {
    const exit = await execute(
      executeRequest("WITH gone AS (DELETE FROM events RETURNING 1) SELECT count(*) FROM gone")
    )
    expect(failureOf(exit)).toMatchObject({
      _tag: "QueryFailed",
      message: expect.stringMatching(/read-only transaction/)
    })
    expect(await eventCount()).toBe(3)
  })

  it("fails with the database's message when the query is at fault", async () => {
    expect(failureOf(await execute(executeRequest("SELECT 1 / 0")))).toMatchObject({
      _tag: "QueryFailed",
      message: "division by zero"
    })
    expect(failureOf(await execute(executeRequest("SELECT nope FROM events")))).toMatchObject({
      _tag: "QueryFailed",
      message: expect.stringMatching(/column "nope" does not exist/)
    })
  })

  it("runs in the request's time zone, taken as a parameter, and leaves the session's alone", async () => {
    const hour = "SELECT to_char(timestamptz '2024-01-01 00:00Z', 'HH24')"
    expect(await rows(hour, { timezone: "Asia/Tokyo" })).toEqual([["09"]])
    expect(await rows(hour)).toEqual([["00"]])
    const injected = await execute(executeRequest(hour, { timezone: "UTC'; DROP TABLE events; --" }))
    expect(failureOf(injected)).toMatchObject({ _tag: "QueryFailed", message: expect.stringMatching(/TimeZone/) })
    expect(await eventCount()).toBe(3)
  })

  it("formats any instant as the zone's local time", async () => {
    const zones = ["UTC", "Asia/Tokyo", "Asia/Kolkata", "America/New_York", "Europe/Berlin", "Australia/Sydney"]
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...zones),
        fc.date({ min: new Date("2010-01-01Z"), max: new Date("2030-01-01Z"), noInvalidDate: true }),
        async (timezone, at) => {
          const local = new Intl.DateTimeFormat("sv-SE", {
            timeZone: timezone,
            year: "numeric",
            month: "2-digit",
            day: "2-digit",
            hour: "2-digit",
            minute: "2-digit",
            hourCycle: "h23"
          }).format(at)
          expect(
            await rows("SELECT to_char($1::timestamptz, 'YYYY-MM-DD HH24:MI')", {
              timezone,
              params: [at.toISOString()]
            })
          ).toEqual([[local]])
        }
      ),
      { numRuns: 30 }
    )
  })

  it("stops a runaway statement at its time limit, and the database is usable right after", async () => {
    // The main thread stays free while the statement runs: its timers fire.
    let ticks = 0
    const ticker = setInterval(() => ticks++, 20)
    const started = performance.now()
    const req = executeRequest(RUNAWAY, { timeoutMs: 800 })
    const exit = await execute(req)
    const elapsed = performance.now() - started
    clearInterval(ticker)
    expect(failureOf(exit)).toEqual(expect.objectContaining({ _tag: "QueryTimeout", timeoutMs: 800 }))
    expect(elapsed).toBeGreaterThanOrEqual(790)
    expect(elapsed).toBeLessThan(5_000)
    expect(ticks).toBeGreaterThan(20)
    if (name === "postgres") expect(await activeOnServer(req.executionId)).toBe(false)
    // Committed data is intact (on PGlite, across the thread's restart).
    expect(await eventCount()).toBe(3)
  })

  it("stops a running statement on cancel from another fiber", async () => {
    const req = executeRequest(RUNAWAY, { timeoutMs: 60_000 })
    const fiber = runtime.runFork(Effect.flatMap(QueryExecutor, (q) => q.execute(req)))
    const started = performance.now()
    const cancel = (id: string) => run(Effect.flatMap(QueryExecutor, (q) => q.cancel(id)))
    // Until the statement is running, there is nothing to cancel.
    while (!(await cancel(req.executionId))) {
      expect(performance.now() - started).toBeLessThan(10_000)
      await sleep(25)
    }
    const exit = await runtime.runPromise(Fiber.await(fiber))
    expect(failureOf(exit)).toEqual(expect.objectContaining({ _tag: "QueryCancelled" }))
    expect(performance.now() - started).toBeLessThan(10_000)
    if (name === "postgres") expect(await activeOnServer(req.executionId)).toBe(false)
    expect(await cancel(req.executionId)).toBe(false)
    expect(await eventCount()).toBe(3)
  })

  it("answers false to cancelling an execution that is not running", async () => {
    const cancel = (id: string) => run(Effect.flatMap(QueryExecutor, (q) => q.cancel(id)))
    expect(await cancel(randomUUID())).toBe(false)
    expect(await cancel("not-a-uuid%")).toBe(false)
  })

  it("does not leave the statement running when the execution is interrupted", async () => {
    const req = executeRequest(RUNAWAY, { timeoutMs: 60_000 })
    const fiber = runtime.runFork(Effect.flatMap(QueryExecutor, (q) => q.execute(req)))
    await sleep(1_000)
    await runtime.runPromise(Fiber.interrupt(fiber))
    if (name === "postgres") expect(await activeOnServer(req.executionId)).toBe(false)
    // Were it still running, the next query would wait behind it (PGlite) or find it (the server).
    const started = performance.now()
    expect(await eventCount()).toBe(3)
    expect(performance.now() - started).toBeLessThan(5_000)
  })

  it("lets the rest of the store wait for the session, not fail, while a statement is stopped", async () => {
    const stopped = execute(executeRequest(RUNAWAY, { timeoutMs: 800 }))
    await sleep(200)
    const written = run(ingest([{ projectId: 1, events: [incomingEvent("$pageview", "carol")] }]))
    expect(failureOf(await stopped)).toEqual(expect.objectContaining({ _tag: "QueryTimeout" }))
    await written
    expect(await eventCount()).toBe(4)
  })
})

describe("PGlite thread", () => {
  const dirs: Array<string> = []
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "zed-pglite-thread-"))
    dirs.push(dir)
    return join(dir, "pgdata")
  }

  const withClient = <A, E>(
    f: (
      sql: Effect.Effect.Success<ReturnType<typeof PgliteClient.make>>,
      thread: Effect.Effect.Success<ReturnType<typeof openThread>>
    ) => Effect.Effect<A, E>
  ) =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const thread = yield* openThread(dataDir())
          const sql = yield* Effect.provide(PgliteClient.make(thread), Reactivity.layer)
          yield* sql`CREATE TABLE t (n int)`
          return yield* f(sql, thread)
        })
      )
    )

  it("never lets a transaction go on after a restart: none of its writes remain", () =>
    withClient((sql, thread) =>
      Effect.gen(function* () {
        const cut = yield* Effect.exit(
          sql.withTransaction(
            Effect.gen(function* () {
              yield* sql`INSERT INTO t VALUES (1)`
              thread.restart()
              yield* sql`INSERT INTO t VALUES (2)`
            })
          )
        )
        expect(failureOf(cut)).toMatchObject({ _tag: "SqlError" })
        // Restarted between its last statement and COMMIT: the COMMIT is refused too.
        const uncommitted = yield* Effect.exit(
          sql.withTransaction(
            Effect.gen(function* () {
              yield* sql`INSERT INTO t VALUES (3)`
              thread.restart()
            })
          )
        )
        expect(Exit.isFailure(uncommitted)).toBe(true)
        expect(yield* sql`SELECT n FROM t`).toEqual([])
        // The session itself goes on, on the new thread.
        yield* sql.withTransaction(sql`INSERT INTO t VALUES (4)`)
        expect(yield* sql`SELECT n FROM t`).toEqual([{ n: 4 }])
      })
    ))

  it("fails everything that ran or waited on the thread when it restarts, and keeps what was committed", () =>
    withClient((sql, thread) =>
      Effect.gen(function* () {
        yield* sql`INSERT INTO t VALUES (1)`
        const runaway = thread.query(RUNAWAY, [], "object")
        const queued = thread.query("INSERT INTO t VALUES (2)", [], "object")
        yield* Effect.sleep("300 millis")
        const generation = thread.generation()
        thread.restart()
        expect(thread.generation()).toBe(generation + 1)
        yield* Effect.promise(async () => {
          await expect(runaway).rejects.toThrow(/restarted/)
          await expect(queued).rejects.toThrow(/restarted/)
        })
        expect(yield* sql`SELECT n FROM t`).toEqual([{ n: 1 }])
      })
    ))

  it("keeps an in-memory database across a stopped statement", async () => {
    const runtime = ManagedRuntime.make(pgliteStorage() satisfies ZedStorage)
    try {
      await runtime.runPromise(bootstrap())
      await runtime.runPromise(ingest([{ projectId: 1, events: [incomingEvent("$pageview", "ada")] }]))
      const count = (req: ExecuteRequest) =>
        runtime.runPromiseExit(Effect.flatMap(QueryExecutor, (q) => q.execute(req)))
      expect(failureOf(await count(executeRequest(RUNAWAY, { timeoutMs: 300 })))).toEqual(
        expect.objectContaining({ _tag: "QueryTimeout" })
      )
      const after = await count(executeRequest("SELECT count(*) FROM events"))
      expect(Exit.isSuccess(after) && after.value.rows).toEqual([[1]])
    } finally {
      await runtime.dispose()
    }
  })
})
