import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { DEFAULT_GRAMMAR_LIMITS, makeGrammarPool, measureText } from "../src/grammar/pool.js"

// The grammar pool parses on threads of its own: hostile texts are refused before parsing or
// stopped while parsing, and never break the parses that follow.

const limits = { ...DEFAULT_GRAMMAR_LIMITS, timeoutMs: 1_000 }

describe("grammar pool", () => {
  it("parses, and reports the grammar's own syntax errors as JSON", async () => {
    const pool = makeGrammarPool(limits)
    try {
      expect(JSON.parse(await Effect.runPromise(pool.parse("parseSelect", "SELECT 1")))).toMatchObject({
        node: "SelectQuery"
      })
      expect(JSON.parse(await Effect.runPromise(pool.parse("parseSelect", "SELECT FROM WHERE")))).toMatchObject({
        error: true
      })
      expect(JSON.parse(await Effect.runPromise(pool.parse("parseProgram", "let x := 1; return x")))).toMatchObject({
        node: "Program"
      })
    } finally {
      await pool.close()
    }
  })

  it("refuses texts over a limit before parsing them, naming the limit", async () => {
    const pool = makeGrammarPool(limits)
    const refused = (text: string) => Effect.runPromise(Effect.flip(pool.parse("parseSelect", text)))
    try {
      expect(await refused("SELECT " + "1".repeat(limits.maxLength))).toMatchObject({ limit: "length" })
      expect(await refused("SELECT " + "[".repeat(300) + "1" + "]".repeat(300))).toMatchObject({ limit: "depth" })
      expect(await refused("SELECT " + Array(limits.maxNodes).fill("1").join("+"))).toMatchObject({ limit: "nodes" })
    } finally {
      await pool.close()
    }
  })

  it("stops a parse past its time, and a tree too deep, and parses the next text as ever", async () => {
    const pool = makeGrammarPool(limits)
    const outcome = (text: string) => Effect.runPromise(Effect.either(pool.parse("parseSelect", text)))
    try {
      const slow = await outcome("SELECT " + "abs(".repeat(40) + "1" + ")".repeat(40))
      expect(slow._tag === "Left" && slow.left.limit).toBe("time")
      // Under the token limit, but an operator chain nests the tree past what the parser survives.
      const deep = await outcome("SELECT " + "NOT ".repeat(300) + "1")
      expect(deep._tag === "Left" && ["depth", "time"].includes(deep.left.limit)).toBe(true)
      const chain = await outcome("SELECT " + Array(1000).fill("1").join("+"))
      expect(chain._tag === "Left" && ["depth", "time"].includes(chain.left.limit)).toBe(true)
      expect(JSON.parse(await Effect.runPromise(pool.parse("parseSelect", "SELECT 2")))).toMatchObject({
        node: "SelectQuery"
      })
    } finally {
      await pool.close()
    }
  })

  it("measures bracket depth and tokens outside strings and comments", () => {
    expect(measureText("SELECT f((1), [2]) -- ((((\n/* [[[ */ 'a(b' \"c[\" `d{`")).toEqual({ depth: 2, tokens: 14 })
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200 }), fc.string(), (depth, filler) => {
        const quoted = `'${filler.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`
        expect(measureText("SELECT " + "(".repeat(depth) + quoted + ")".repeat(depth)).depth).toBe(depth)
      })
    )
  })
})
