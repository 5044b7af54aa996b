import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, ManagedRuntime } from "effect"
import fc from "fast-check"
import { inlineParams } from "../src/inline.js"
import { ClickHouse, chdbClickHouse } from "../src/index.js"

// On chDB, parameters are written into the statement: any value must come back as it went in, and
// nothing but a placeholder in the statement's own text may be replaced.

describe("parameters written into chDB statements", () => {
  const dir = mkdtempSync(join(tmpdir(), "zed-ch-inline-"))
  const runtime = ManagedRuntime.make(chdbClickHouse({ path: dir }))
  afterAll(async () => {
    await runtime.dispose()
    rmSync(dir, { recursive: true })
  })
  const select = (sql: string, params: Record<string, unknown>) =>
    runtime.runPromise(Effect.flatMap(ClickHouse, (ch) => ch.query({ sql, params }))).then((r) => r.data)

  it("round-trips any text, list of texts and number", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: "binary" }),
        fc.array(fc.string({ unit: "grapheme" }), { maxLength: 4 }),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        async (text, texts, x) => {
          const [row] = await select("SELECT {s:String}, {a:Array(String)}, {x:Float64}, length({s:String})", {
            s: text,
            a: texts,
            x
          })
          expect(row![0]).toBe(text)
          expect(row![1]).toEqual(texts)
          expect(Object.is(row![2], x) || row![2] === x || (x === 0 && row![2] === 0)).toBe(true)
          expect(Number(row![3])).toBe(Buffer.byteLength(text))
        }
      ),
      { numRuns: 60 }
    )
  })

  // JSON has no infinities: ClickHouse writes them as null, as the API's JSON does Postgres' ones.
  it("binds infinities and NaN, which come back as NULL", async () => {
    const [row] = await select(
      "SELECT {a:Float64}, {b:Float64}, {c:Float64}, {a:Float64} < {b:Float64}, isNaN({c:Float64})",
      { a: -Infinity, b: Infinity, c: NaN }
    )
    expect(row!.slice(0, 3)).toEqual([null, null, null])
    expect(row!.slice(3).map(Number)).toEqual([1, 1])
  })

  it("replaces placeholders only outside quotes and comments", () => {
    const sql =
      "SELECT {a:String} AS `{a:String}`, '{a:String}', \"{a:String}\" /* {a:String} */ -- {a:String}\n, {a:String}"
    expect(inlineParams(sql, { a: "x'`" })).toBe(
      "SELECT CAST('x\\'`' AS String) AS `{a:String}`, '{a:String}', \"{a:String}\" /* {a:String} */ -- {a:String}\n, CAST('x\\'`' AS String)"
    )
  })

  it("refuses a placeholder without a value", () => {
    expect(() => inlineParams("SELECT {b:String}", { a: 1 })).toThrow(/b:String/)
  })
})
