import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import {
  EventStore,
  type ExecuteRequest,
  PersonStore,
  QueryExecutor,
  type StorageServices,
  Transactor
} from "@zed/core/storage"
import { bootstrap } from "../../core/src/bootstrap.js"
import { ingest } from "../../core/src/ingest/writer.js"
import { pgliteStorage } from "@zed/postgres"
import { Cause, Context, Effect, Exit, Fiber, Layer, ManagedRuntime } from "effect"
import { executeRequest, failureOf, incomingEvent } from "../../core/test/support.js"
import { ClickHouse, chdbClickHouse, ClickHouseError, clickhouseStorage, httpClickHouse } from "../src/index.js"
import { type ClickHouseHttp, serveClickHouseHttp } from "./httpInterface.js"

// What ClickHouse storage adds to the metadata store's behaviour: ClickHouse writes only after the
// Postgres commit, each event once however often it is sent, persons and their merges mirrored as
// versions, and ZedQL's statements read-only, in the project's zone, stopped at their limit or on
// request. The same through chDB in the process and through ClickHouse's HTTP interface.

// Runs for hours unless stopped; bound, as ZedQL's statements are.
const RUNAWAY = "SELECT count() FROM numbers(100000000000) WHERE sipHash64(number) % 7 = {p0:UInt64}"

describe.each(["chdb", "http"])("ClickHouse storage on %s", (engine) => {
  const dir = mkdtempSync(join(tmpdir(), "zed-ch-storage-"))
  const path = join(dir, "chdb")
  let server: ClickHouseHttp | undefined
  let zed: ManagedRuntime.ManagedRuntime<StorageServices, unknown>
  // A second connection to the same data, to see what is stored there.
  const direct = ManagedRuntime.make(chdbClickHouse({ path }))
  const run = <A, E>(effect: Effect.Effect<A, E, StorageServices>) => zed.runPromise(effect)
  const rows = (sql: string) =>
    direct.runPromise(Effect.flatMap(ClickHouse, (ch) => ch.query({ sql }))).then((r) => r.data)
  const execute = (req: ExecuteRequest) => zed.runPromiseExit(Effect.flatMap(QueryExecutor, (q) => q.execute(req)))

  beforeAll(async () => {
    // Over HTTP, ClickHouse's HTTP interface is served by chDB on the same data.
    server = engine === "http" ? await serveClickHouseHttp(path) : undefined
    const clickhouse = server === undefined ? chdbClickHouse({ path }) : httpClickHouse({ url: server.url })
    zed = ManagedRuntime.make(
      clickhouseStorage({ metadata: pgliteStorage({ dataDir: join(dir, "pgdata") }), clickhouse })
    )
    await run(bootstrap())
  })
  afterAll(async () => {
    await zed?.dispose()
    await direct.dispose()
    await server?.close()
    rmSync(dir, { recursive: true })
  })

  it("writes nothing to ClickHouse from a transaction that rolls back", async () => {
    const event = { ...incomingEvent("rolled_back", "carol"), processPerson: false }
    const exit = await zed.runPromiseExit(
      Effect.flatMap(Transactor, (t) =>
        t.transaction(
          Effect.zipRight(
            Effect.flatMap(EventStore, (events) =>
              events.insert(1, [{ ...event, person_id: randomUUID(), created_at: event.received_at, groups: [] }])
            ),
            Effect.fail("abort" as const)
          )
        )
      )
    )
    expect(failureOf(exit)).toBe("abort")
    expect(await rows("SELECT count() FROM events WHERE event = 'rolled_back'")).toEqual([["0"]])
  })

  it("stores an event sent again once, and tells the second sender it stored nothing", async () => {
    const event = incomingEvent("$pageview", "dora", { $current_url: "https://example.com/" })
    const first = await run(ingest([{ projectId: 1, events: [event] }]))
    const again = await run(ingest([{ projectId: 1, events: [event, event] }]))
    expect(first.stored[0]!.map((e) => e.uuid)).toEqual([event.uuid])
    expect(again.stored[0]).toEqual([])
    expect(await rows(`SELECT count() FROM events WHERE uuid = '${event.uuid}'`)).toEqual([["1"]])
  })

  it("mirrors persons and distinct ids as versions, and repoints events after a merge", async () => {
    await run(ingest([{ projectId: 1, events: [incomingEvent("$pageview", "anon-7", { $set: { plan: "free" } })] }]))
    await run(ingest([{ projectId: 1, events: [incomingEvent("$pageview", "erin", { $set: { plan: "pro" } })] }]))
    await run(ingest([{ projectId: 1, events: [incomingEvent("$merge_dangerously", "erin", { alias: "anon-7" })] }]))
    const erin = (
      await run(
        Effect.flatMap(PersonStore, (p) => p.list(1, { distinct_id: "erin", properties: [], limit: 1, offset: 0 }))
      )
    ).results[0]!
    const latest =
      await rows(`SELECT id, argMax(JSONExtractString(properties, 'plan'), version), argMax(is_deleted, version) FROM persons
      WHERE project_id = 1 GROUP BY id HAVING argMax(is_deleted, version) = 0 AND id IN (SELECT argMax(person_id, version) FROM person_distinct_ids WHERE distinct_id IN ('erin', 'anon-7') GROUP BY distinct_id)`)
    expect(latest).toEqual([[String(erin.id), "pro", 0]])
    // Events of both distinct ids now carry the surviving person.
    expect(
      await rows("SELECT DISTINCT toString(person_id) FROM events WHERE distinct_id IN ('erin', 'anon-7')")
    ).toEqual([[erin.uuid]])
  })

  it("runs statements read-only, with ClickHouse's message when the query is at fault", async () => {
    expect(failureOf(await execute(executeRequest("INSERT INTO events (project_id) VALUES (1)")))).toMatchObject({
      _tag: "QueryFailed",
      message: expect.stringMatching(/readonly/i)
    })
    expect(failureOf(await execute(executeRequest("SELECT nope FROM events")))).toMatchObject({
      _tag: "QueryFailed",
      message: expect.stringMatching(/nope/)
    })
  })

  it("binds parameters in order and runs in the request's time zone", async () => {
    const exit = await execute(
      executeRequest(
        "SELECT {p0:String}, {p1:Int64} + 1, toString(toStartOfDay(toDateTime64('2024-01-01 00:00:00', 6, 'UTC'), {p2:String}))",
        {
          params: ["it's", 41, "Asia/Tokyo"],
          timezone: "Asia/Tokyo"
        }
      )
    )
    expect(
      Exit.isSuccess(exit) ? exit.value.rows.map(([a, b, c]) => [a, Number(b), c]) : Cause.pretty(exit.cause)
    ).toEqual([["it's", 42, "2024-01-01 00:00:00"]])
    // Text without a zone is read in the project's: midnight in Tokyo is 15:00 UTC the day before.
    const local = await execute(
      executeRequest("SELECT toString(toTimeZone(toDateTime64('2024-01-01 00:00:00', 0), 'UTC'))", {
        timezone: "Asia/Tokyo"
      })
    )
    expect(Exit.isSuccess(local) ? local.value.rows : Cause.pretty(local.cause)).toEqual([["2023-12-31 15:00:00"]])
  })

  it("stops a runaway statement at its time limit", async () => {
    const started = performance.now()
    expect(failureOf(await execute(executeRequest(RUNAWAY, { timeoutMs: 800, params: [3] })))).toEqual(
      expect.objectContaining({ _tag: "QueryTimeout", timeoutMs: 800 })
    )
    expect(performance.now() - started).toBeLessThan(5_000)
  })

  it("stops a statement on cancel, and answers whether one was running", async () => {
    const req = executeRequest(RUNAWAY, { params: [3] })
    const fiber = zed.runFork(Effect.flatMap(QueryExecutor, (q) => q.execute(req)))
    await new Promise((resolve) => setTimeout(resolve, 300))
    const cancelled = await run(Effect.flatMap(QueryExecutor, (q) => q.cancel(req.executionId)))
    const exit = await zed.runPromise(Fiber.await(fiber))
    expect(cancelled).toBe(true)
    expect(failureOf(exit)).toMatchObject({ _tag: "QueryCancelled" })
    expect(await run(Effect.flatMap(QueryExecutor, (q) => q.cancel(randomUUID())))).toBe(false)
  })
})

describe("a ClickHouse write failing after the commit", () => {
  const dir = mkdtempSync(join(tmpdir(), "zed-ch-unwritten-"))
  let failPersons = false
  // chDB, but for an insert of persons refused once on request.
  const flaky = Layer.map(chdbClickHouse({ path: join(dir, "chdb") }), (context) => {
    const ch = Context.get(context, ClickHouse)
    return Context.add(context, ClickHouse, {
      ...ch,
      insert: (table, rows, settings) =>
        Effect.suspend(() => {
          if (table !== "persons" || !failPersons) return ch.insert(table, rows, settings)
          failPersons = false
          return Effect.fail(new ClickHouseError({ code: 210, message: "connection reset" }))
        })
    })
  })
  const zed = ManagedRuntime.make(
    clickhouseStorage({ metadata: pgliteStorage({ dataDir: join(dir, "pgdata") }), clickhouse: flaky })
  )
  const run = <A, E>(effect: Effect.Effect<A, E, StorageServices>) => zed.runPromise(effect)
  const plans = () =>
    zed
      .runPromise(
        Effect.flatMap(ClickHouse, (ch) =>
          ch.query({
            sql: "SELECT argMax(JSONExtractString(properties, 'plan'), version) AS plan FROM persons GROUP BY id ORDER BY plan"
          })
        ).pipe(Effect.provide(flaky))
      )
      .then((r) => r.data.map((row) => row[0]))
  afterAll(async () => {
    await zed.dispose()
    rmSync(dir, { recursive: true })
  })

  it("fails the request, and the person's new version is written with the next commit", async () => {
    await run(bootstrap())
    await run(ingest([{ projectId: 1, events: [incomingEvent("$pageview", "fay", { $set: { plan: "free" } })] }]))
    failPersons = true
    const update = incomingEvent("$pageview", "fay", { $set: { plan: "pro" } })
    expect(Exit.isFailure(await zed.runPromiseExit(ingest([{ projectId: 1, events: [update] }])))).toBe(true)
    expect(await plans()).toEqual(["free"])
    // The SDK's retry finds the person already changed: nothing of its own to write, but what was owed.
    await run(ingest([{ projectId: 1, events: [update] }]))
    expect(await plans()).toEqual(["pro"])
  })
})
