import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createClient } from "@clickhouse/client"
import { CLICKHOUSE_TABLES } from "@zed/core/domain"
import { Effect, Exit, Fiber, ManagedRuntime } from "effect"
import fc from "fast-check"
import {
  ClickHouse,
  chdbClickHouse,
  ClickHouseError,
  httpClickHouse,
  migrateClickHouse,
  type Statement
} from "../src/index.js"
import { type ClickHouseHttp, serveClickHouseHttp } from "./httpInterface.js"

// The HTTP layer against ClickHouse's HTTP interface (served by chDB on the same data directory as a
// chDB layer, so both can be asked the same thing): parameters arrive as typed values, settings
// take effect, rows go in and come back, and failures carry ClickHouse's codes.

const SLOW = "SELECT count() FROM numbers_mt(100000000000) WHERE sipHash64(number) % 7 = 3"

describe("httpClickHouse against ClickHouse's HTTP interface", () => {
  const dir = mkdtempSync(join(tmpdir(), "zed-ch-http-"))
  const path = join(dir, "chdb")
  let server: ClickHouseHttp
  let http: ManagedRuntime.ManagedRuntime<ClickHouse, ClickHouseError>
  const chdb = ManagedRuntime.make(chdbClickHouse({ path }))

  const on = (runtime: ManagedRuntime.ManagedRuntime<ClickHouse, ClickHouseError>) => ({
    query: (statement: Statement) => runtime.runPromise(Effect.flatMap(ClickHouse, (ch) => ch.query(statement))),
    command: (statement: Statement) => runtime.runPromise(Effect.flatMap(ClickHouse, (ch) => ch.command(statement))),
    insert: (table: string, rows: ReadonlyArray<Record<string, unknown>>) =>
      runtime.runPromise(Effect.flatMap(ClickHouse, (ch) => ch.insert(table, rows))),
    failure: (statement: Statement) =>
      runtime.runPromiseExit(Effect.flatMap(ClickHouse, (ch) => ch.query(statement))).then((exit) => {
        if (Exit.isSuccess(exit)) throw new Error(`succeeded: ${statement.sql}`)
        const error = exit.cause._tag === "Fail" ? exit.cause.error : undefined
        expect(error).toBeInstanceOf(ClickHouseError)
        return error!
      })
  })
  const overHttp = () => on(http)
  const direct = on(chdb)

  beforeAll(async () => {
    // The chDB layer first: chDB binds one data directory per process, and both use this one.
    await direct.query({ sql: "SELECT 1" })
    server = await serveClickHouseHttp(path)
    http = ManagedRuntime.make(httpClickHouse({ url: server.url }))
    await overHttp().query({ sql: "SELECT 1" })
  })

  afterAll(async () => {
    await http.dispose()
    await server.close()
    await chdb.dispose()
    rmSync(dir, { recursive: true, force: true })
  })

  it("creates every table of the schema", async () => {
    await http.runPromise(migrateClickHouse)
    const tables = (runtime: typeof direct) =>
      runtime
        .query({ sql: "SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name" })
        .then((r) => r.data.map((row) => row[0]))
    const names = CLICKHOUSE_TABLES.map((t) => t.name).sort()
    expect(await tables(overHttp())).toEqual(expect.arrayContaining(names))
    expect(await tables(direct)).toEqual(expect.arrayContaining(names))
    // Idempotent, as migrations are run on every start.
    await http.runPromise(migrateClickHouse)
  })

  it("binds any string as it was given, as the chDB layer does", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "binary" }), async (s) => {
        const statement = { sql: "SELECT {s:String} AS s, length({s:String}) AS n", params: { s } }
        const result = await overHttp().query(statement)
        expect(result.data).toEqual([[s, String(Buffer.byteLength(s))]])
        expect(result.meta).toEqual([
          { name: "s", type: "String" },
          { name: "n", type: "UInt64" }
        ])
        expect((await direct.query(statement)).data[0]![0]).toBe(s)
      }),
      { numRuns: 60, examples: [["it's a \\ back\nslash\ttab\r'; DROP TABLE x; --"], ["\\N"], ["\0"], ["日本語 🎉"]] }
    )
  })

  it("binds numbers, nulls, arrays and maps", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.array(fc.string({ unit: "binary" }), { maxLength: 5 }),
        fc.array(fc.option(fc.integer(), { nil: null }), { maxLength: 5 }),
        async (big, x, strings, ints) => {
          const result = await overHttp().query({
            sql: "SELECT {big:Int64}, {x:Float64}, {strings:Array(String)}, {ints:Array(Nullable(Int32))}, {none:Nullable(String)}",
            params: { big, x, strings, ints, none: null }
          })
          const [b, f, a, i, n] = result.data[0]!
          // Int64 as a JSON string, ClickHouse's default (output_format_json_quote_64bit_integers).
          expect(b).toBe(String(big))
          expect(f === x || (f === 0 && x === 0)).toBe(true)
          expect(a).toEqual(strings)
          expect(i).toEqual(ints)
          expect(n).toBeNull()
        }
      ),
      { numRuns: 40 }
    )
    const map = await overHttp().query({
      sql: "SELECT {m:Map(String, Int32)}['b']",
      params: { m: { a: 1, "b'\\": 2 } }
    })
    expect(map.data).toEqual([[0]])
    const quoted = await overHttp().query({
      sql: "SELECT {m:Map(String, Int32)}['b\\'\\\\']",
      params: { m: { a: 1, "b'\\": 2 } }
    })
    expect(quoted.data).toEqual([[2]])
  })

  it("applies settings: time zone, join nulls, 64-bit integers", async () => {
    const zone = { sql: "SELECT timezone(), toString(toDateTime(0))" }
    expect((await overHttp().query({ ...zone, settings: { session_timezone: "Asia/Tokyo" } })).data).toEqual([
      ["Asia/Tokyo", "1970-01-01 09:00:00"]
    ])
    // Settings belong to their statement, not to the connection it ran on.
    for (let i = 0; i < 4; i++)
      expect((await overHttp().query(zone)).data[0]).not.toEqual(["Asia/Tokyo", "1970-01-01 09:00:00"])

    const join = { sql: "SELECT b.y FROM (SELECT 1 AS x) AS a LEFT JOIN (SELECT 2 AS x, 5 AS y) AS b USING (x)" }
    for (const join_use_nulls of [0, 1]) {
      const [viaHttp, viaChdb] = await Promise.all([
        overHttp().query({ ...join, settings: { join_use_nulls } }),
        direct.query({ ...join, settings: { join_use_nulls } })
      ])
      expect(viaHttp.data).toEqual([[join_use_nulls === 1 ? null : 0]])
      expect(viaHttp).toEqual(viaChdb)
    }
    const wide = { sql: "SELECT toUInt64(1) AS n" }
    expect(
      (await overHttp().query({ ...wide, settings: { output_format_json_quote_64bit_integers: 0 } })).data
    ).toEqual([[1]])
    expect((await overHttp().query(wide)).data).toEqual([["1"]])
  })

  it("inserts JSONEachRow rows and reads them back, as the chDB layer does", async () => {
    await overHttp().command({
      sql: "CREATE TABLE rows_in (id UInt32, name String, tags Array(String), at DateTime64(3, 'UTC')) ENGINE = MergeTree ORDER BY id"
    })
    const names = fc.sample(fc.string({ unit: "binary" }), 20)
    const rows = names.map((name, id) => ({ id, name, tags: [name, "x"], at: "2024-05-06 07:08:09.123" }))
    await overHttp().insert("rows_in", rows)
    const read = { sql: "SELECT id, name, tags, toString(at) FROM rows_in ORDER BY id" }
    const back = await overHttp().query(read)
    expect(back.data).toEqual(rows.map((r) => [r.id, r.name, r.tags, r.at]))
    expect(await direct.query(read)).toEqual(back)
    // Settings with an insert: read-only refuses it.
    const refused = await http.runPromiseExit(
      Effect.flatMap(ClickHouse, (ch) => ch.insert("rows_in", rows, { readonly: 2 }))
    )
    expect(Exit.isFailure(refused) && refused.cause._tag === "Fail" ? refused.cause.error.code : undefined).toBe(164)
    expect((await overHttp().query({ sql: "SELECT count() FROM rows_in" })).data).toEqual([[String(rows.length)]])
  })

  it("refuses writes with readonly = 2 and lets reads through", async () => {
    await overHttp().command({ sql: "CREATE TABLE ro (a UInt8) ENGINE = MergeTree ORDER BY a" })
    const error = await overHttp().failure({ sql: "INSERT INTO ro VALUES (1)", settings: { readonly: 2 } })
    expect(error.code).toBe(164)
    expect((await overHttp().query({ sql: "SELECT count() FROM ro", settings: { readonly: 2 } })).data).toEqual([["0"]])
  })

  it("stops a statement at max_execution_time with code 159", async () => {
    const started = Date.now()
    const error = await overHttp().failure({ sql: SLOW, settings: { max_execution_time: 0.5 } })
    expect(error.code).toBe(159)
    expect(Date.now() - started).toBeLessThan(10_000)
  })

  it("fails with ClickHouse's code and message", async () => {
    const syntax = await overHttp().failure({ sql: "SELEC 1" })
    expect(syntax.code).toBe(62)
    expect(syntax.message).toMatch(/^Syntax error/)
    expect(syntax.cause).toMatchObject({ type: "SYNTAX_ERROR" })
    expect((await overHttp().failure({ sql: "SELECT * FROM no_such_table" })).code).toBe(60)
    expect((await overHttp().failure({ sql: "SELECT {a:UInt8}", params: { a: "not a number" } })).code).toBe(
      (await direct.failure({ sql: "SELECT {a:UInt8}", params: { a: "not a number" } })).code
    )
    expect((await overHttp().failure({ sql: "SELECT 1", settings: { no_such_setting: 1 } })).code).toBe(115)
  })

  it("stops a running statement with KILL QUERY, as Zed cancels one", async () => {
    const lead = "/* zed-query:kill-test */ "
    const running = await http.runPromise(
      Effect.flatMap(ClickHouse, (ch) => ch.query({ sql: `${lead}${SLOW} AND {n:UInt8} = 1`, params: { n: 1 } })).pipe(
        Effect.either,
        Effect.forkDaemon
      )
    )
    const kill = { sql: "KILL QUERY WHERE startsWith(query, {lead:String}) SYNC", params: { lead } }
    let killed = 0
    for (let attempt = 0; attempt < 50 && killed === 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      const result = await overHttp().query(kill)
      expect(result.meta.map((m) => m.name)).toEqual(["kill_status", "query_id", "user", "query"])
      killed = result.data.length
    }
    expect(killed).toBe(1)
    const outcome = await http.runPromise(Fiber.join(running))
    expect(outcome._tag === "Left" ? outcome.left.code : undefined).toBe(394)
    expect((await overHttp().query(kill)).data).toEqual([])
  })

  it("keeps the client's query id, in headers and in system.processes", async () => {
    const client = createClient({ url: server.url })
    try {
      const query_id = `zed-${Date.now()}`
      const slow = client.query({ query: SLOW, query_id, format: "JSONCompact" }).catch((e: unknown) => e)
      let seen: ReadonlyArray<unknown> = []
      for (let attempt = 0; attempt < 50 && seen.length === 0; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        seen = (
          await (
            await client.query({
              query: "SELECT query_id FROM system.processes WHERE query_id = {id:String}",
              query_params: { id: query_id },
              format: "JSONCompact"
            })
          ).json<{ data: Array<unknown> }>()
        ).data
      }
      expect(seen).toEqual([[query_id]])
      const again = await client.query({ query: "SELECT 1", query_id, format: "JSONCompact" }).catch((e: unknown) => e)
      expect(again).toMatchObject({ code: "216" })
      await client.command({ query: "KILL QUERY WHERE query_id = {id:String} SYNC", query_params: { id: query_id } })
      expect(await slow).toMatchObject({ code: "394", type: "QUERY_WAS_CANCELLED" })
      const done = await client.query({ query: "SELECT 1", query_id, format: "JSONCompact" })
      expect(done.query_id).toBe(query_id)
      expect(done.response_headers["x-clickhouse-query-id"]).toBe(query_id)
      expect(done.response_headers["x-clickhouse-format"]).toBe("JSONCompact")
    } finally {
      await client.close()
    }
  })

  it("compresses requests and responses when the client asks", async () => {
    const compressed = ManagedRuntime.make(
      httpClickHouse({ url: `${server.url}?compression_request=true&compression_response=true` })
    )
    try {
      const ch = on(compressed)
      await ch.command({ sql: "CREATE TABLE packed (s String) ENGINE = MergeTree ORDER BY s" })
      const rows = Array.from({ length: 200 }, (_, i) => ({ s: `row ${i} ${"é".repeat(i % 7)}` }))
      await ch.insert("packed", rows)
      expect((await ch.query({ sql: "SELECT s FROM packed ORDER BY s" })).data).toEqual(rows.map((r) => [r.s]).sort())
    } finally {
      await compressed.dispose()
    }
  })
})
