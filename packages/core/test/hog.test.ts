import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import fc from "fast-check"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import {
  type Bytecode,
  compileExpression,
  compileProgram,
  compileTemplate,
  type HogCompileError,
  type HogOutcome,
  runHog,
  runHogAsync
} from "../src/hog/index.js"

const CORPUS = fileURLToPath(new URL("./hog", import.meta.url))
const LIMITS = { timeoutMs: 5_000, memoryBytes: 64 * 1024 * 1024 }
const EVENT = { event: "signup", properties: { plan: "pro", name: "Ada" } }

const compiled = (compile: Effect.Effect<Bytecode, HogCompileError>) => Effect.runPromise(compile)
const compileFailure = (compile: Effect.Effect<Bytecode, HogCompileError>) => Effect.runPromise(Effect.flip(compile))

interface Request {
  readonly url: string
  readonly init: { method: string; headers: Record<string, string>; body: unknown }
}

/** Runs a program with printed lines and fetch requests recorded; fetch answers 201 {ok: true}. */
const runRecorded = async (source: string, globals: Record<string, unknown> = { event: EVENT }) => {
  const lines: Array<string> = []
  const requests: Array<Request> = []
  const outcome = await runHogAsync(await compiled(compileProgram(source)), {
    globals,
    limits: LIMITS,
    print: (line) => lines.push(line),
    fetch: async (url, init) => {
      requests.push({ url, init })
      return { status: 201, body: { ok: true } }
    }
  })
  return { outcome, lines, requests }
}

const run = async (source: string, globals: Record<string, unknown> = {}) =>
  runHog(await compiled(compileProgram(source)), { globals, limits: LIMITS })

describe("hog corpus", () => {
  const programs = readdirSync(CORPUS)
    .filter((f) => f.endsWith(".hog"))
    .sort()

  it("has programs for each area", () => {
    expect(programs.length).toBeGreaterThanOrEqual(10)
  })

  for (const file of programs) {
    it(file, async () => {
      const source = readFileSync(join(CORPUS, file), "utf8")
      const expected = readFileSync(join(CORPUS, file.replace(/\.hog$/, ".stdout")), "utf8")
      const { outcome, lines } = await runRecorded(source)
      expect(outcome).toEqual({ _tag: "Finished", result: null })
      expect(lines.map((l) => `${l}\n`).join("")).toEqual(expected)
    })
  }

  it("fetch sends the request the program built and returns the response", async () => {
    const { requests } = await runRecorded(readFileSync(join(CORPUS, "fetch.hog"), "utf8"))
    expect(requests).toEqual([
      {
        url: "https://example.com/hook",
        init: { method: "POST", headers: { "Content-Type": "application/json" }, body: { event: "signup", n: 1 } }
      }
    ])
  })
})

describe("hog results", () => {
  it("a program's result is what it returns, as plain JS", async () => {
    expect(await run("let x := {'a': [1, (2, 3)]}\nreturn x")).toEqual({ _tag: "Finished", result: { a: [1, [2, 3]] } })
    expect(await run("let x := 5")).toEqual({ _tag: "Finished", result: null })
  })

  it("return stops a program early", async () => {
    expect(await run("let i := 0\nwhile (true) { i := i + 1\n if (i = 4) { return i } }")).toEqual({
      _tag: "Finished",
      result: 4
    })
  })

  it("expressions evaluate against globals", async () => {
    const bytecode = await compiled(compileExpression("event.properties.plan || '-' || toString(length(event.event))"))
    expect(runHog(bytecode, { globals: { event: EVENT }, limits: LIMITS })).toEqual({
      _tag: "Finished",
      result: "pro-6"
    })
  })

  it("templates render strings, and a lone placeholder yields its value", async () => {
    const render = async (text: string) =>
      runHog(await compiled(compileTemplate(text)), { globals: { event: EVENT }, limits: LIMITS })
    expect(await render("Hi {event.properties.name}!")).toEqual({ _tag: "Finished", result: "Hi Ada!" })
    expect(await render("{event.properties}")).toEqual({ _tag: "Finished", result: EVENT.properties })
    expect(await render("plain text")).toEqual({ _tag: "Finished", result: "plain text" })
  })
})

describe("hog failures", () => {
  const failed = (outcome: HogOutcome) => {
    expect(outcome._tag).toBe("Failed")
    return outcome._tag === "Failed" ? outcome.message : ""
  }

  it("an uncaught throw fails with the error's type and message", async () => {
    expect(failed(await run("throw Error('boom')"))).toBe("Error: boom")
    expect(failed(await run("fun f() { throw RetryError('later') }\nf()"))).toBe("RetryError: later")
  })

  it("a catch of another type lets the error through", async () => {
    expect(failed(await run("try { throw Error('x') } catch (e: RetryError) { print('no') }"))).toBe("Error: x")
  })

  it("a function that returned from inside try no longer catches later throws", async () => {
    const { outcome, lines } = await runRecorded(
      "fun early() {\n  try { return 1 } catch (e) { print('wrongly caught') }\n}\nearly()\nthrow Error('late')"
    )
    expect(lines).toEqual([])
    expect(failed(outcome)).toBe("Error: late")
  })

  it("runtime errors fail readably", async () => {
    expect(failed(await run("return nope"))).toContain("nope")
    expect(failed(await run("return notAFunction(1)"))).toContain("notAFunction")
  })

  it("an endless loop times out", async () => {
    const bytecode = await compiled(compileProgram("let i := 0\nwhile (true) { i := i + 1 }"))
    const started = Date.now()
    expect(
      failed(runHog(bytecode, { globals: {}, limits: { timeoutMs: 50, memoryBytes: LIMITS.memoryBytes } }))
    ).toMatch(/timed out/)
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it("growing data past the memory limit fails", async () => {
    const bytecode = await compiled(
      compileProgram("let a := []\nwhile (true) { a := arrayPushBack(a, 'xxxxxxxxxxxxxxxx') }")
    )
    expect(failed(runHog(bytecode, { globals: {}, limits: { timeoutMs: 5_000, memoryBytes: 20_000 } }))).toMatch(
      /Memory limit of 20000 bytes exceeded/
    )
  })

  it("a synchronous run refuses fetch with a clear message", async () => {
    expect(failed(await run("return fetch('https://example.com')"))).toMatch(
      /fetch\(\) cannot be called in a synchronous run/
    )
  })

  it("a failing fetch fails the run", async () => {
    const bytecode = await compiled(compileProgram("return fetch('https://example.com')"))
    const outcome = await runHogAsync(bytecode, {
      globals: {},
      limits: LIMITS,
      fetch: () => Promise.reject(new Error("connection refused"))
    })
    expect(failed(outcome)).toBe("connection refused")
  })
})

describe("hog compile errors", () => {
  it("syntax errors point at the offending text", async () => {
    const error = await compileFailure(compileProgram("let a := 1\nlet b := a +"))
    expect(error._tag).toBe("HogCompileError")
    expect(error).toMatchObject({ start: 23, line: 2, column: 12 })
  })

  it("assigning an undeclared variable points at it", async () => {
    const error = await compileFailure(compileProgram("let a := 1\n  b := 2"))
    expect(error).toMatchObject({ start: 13, end: 14, line: 2, column: 2 })
    expect(error.message).toMatch(/`b` is not declared/)
  })

  it("globals cannot be changed in place", async () => {
    const error = await compileFailure(compileProgram("event.properties.x := 1"))
    expect(error).toMatchObject({ start: 0, line: 1, column: 0 })
  })

  it("unsupported syntax is refused where it is", async () => {
    const source = "try {\n  print(1)\n} catch (e) {\n} finally {\n}"
    const error = await compileFailure(compileProgram(source))
    expect(error.message).toMatch(/finally/)
    expect(error).toMatchObject({ start: source.indexOf("{\n}", source.indexOf("finally")), line: 4, column: 10 })
    const loop = await compileFailure(compileProgram("let x := 1\nwhile (true) { break }"))
    expect(loop).toMatchObject({ start: 26, line: 2, column: 15 })
    const forIn = await compileFailure(compileProgram("for (v in [1]) { print(v) }"))
    expect(forIn.message).toMatch(/for \(let v in items\)/)
  })

  it("a variable declared twice in one scope is refused", async () => {
    const error = await compileFailure(compileProgram("let a := 1\nlet a := 2"))
    expect(error).toMatchObject({ start: 11, line: 2, column: 0 })
  })

  it("template errors are placed in the template text", async () => {
    const error = await compileFailure(compileTemplate("Hi {name +}"))
    expect(error).toMatchObject({ line: 1 })
    expect(error.start).toBe(10)
  })
})

describe("hog properties", () => {
  type Expr = { readonly text: string; readonly value: number }
  const operators: Record<string, (a: number, b: number) => number> = {
    "+": (a, b) => a + b,
    "-": (a, b) => a - b,
    "*": (a, b) => a * b,
    "/": (a, b) => a / b,
    "%": (a, b) => a % b
  }
  const leaf = fc.integer({ min: -1000, max: 1000 }).map((n): Expr => ({ text: `(${n})`, value: n }))
  const arithmetic: fc.Arbitrary<Expr> = fc.letrec<{ expr: Expr }>((tie) => ({
    expr: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      leaf,
      fc.tuple(tie("expr"), fc.constantFrom(...Object.keys(operators)), tie("expr")).map(([l, op, r]) => ({
        text: `(${l.text} ${op} ${r.text})`,
        value: operators[op]!(l.value, r.value)
      }))
    )
  })).expr

  it("arithmetic computes what JavaScript computes", async () => {
    await fc.assert(
      fc.asyncProperty(arithmetic, async (expr) => {
        const outcome = runHog(await compiled(compileExpression(expr.text)), { globals: {}, limits: LIMITS })
        expect(outcome).toEqual({ _tag: "Finished", result: expr.value })
      }),
      { numRuns: 200 }
    )
  })

  const comparisons: Record<string, (a: number, b: number) => boolean> = {
    "=": (a, b) => a === b,
    "!=": (a, b) => a !== b,
    "<": (a, b) => a < b,
    "<=": (a, b) => a <= b,
    ">": (a, b) => a > b,
    ">=": (a, b) => a >= b
  }

  it("comparisons and their combinations agree with JavaScript", async () => {
    const small = fc.integer({ min: -5, max: 5 })
    await fc.assert(
      fc.asyncProperty(
        small,
        fc.constantFrom(...Object.keys(comparisons)),
        small,
        fc.constantFrom("and", "or"),
        small,
        small,
        async (a, op, b, join, c, d) => {
          const source = `${a} ${op} ${b} ${join} not (${c} < ${d})`
          const left = comparisons[op]!(a, b)
          const expected = join === "and" ? left && !(c < d) : left || !(c < d)
          const outcome = runHog(await compiled(compileExpression(source)), { globals: {}, limits: LIMITS })
          expect(outcome).toEqual({ _tag: "Finished", result: expected })
        }
      ),
      { numRuns: 200 }
    )
  })

  // Template text is literal except for its braces and backslash escapes.
  const literal = fc.string({ maxLength: 20 }).filter((s) => !/[{}\\]/.test(s))

  it("templates render literal text and placeholder values exactly", async () => {
    await fc.assert(
      fc.asyncProperty(literal, fc.string(), literal, fc.string(), literal, async (pre, a, mid, b, post) => {
        const bytecode = await compiled(compileTemplate(`${pre}{event.a}${mid}{event.b}${post}`))
        const outcome = runHog(bytecode, { globals: { event: { a, b } }, limits: LIMITS })
        expect(outcome).toEqual({ _tag: "Finished", result: pre + a + mid + b + post })
      }),
      { numRuns: 200 }
    )
  })

  it("string values round-trip through programs and print unchanged", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), async (s) => {
        const { outcome, lines } = await runRecorded("print(event.s)\nreturn event.s || ''", { event: { s } })
        expect(outcome).toEqual({ _tag: "Finished", result: s })
        expect(lines).toEqual([s])
      }),
      { numRuns: 100 }
    )
  })

  it("arrays index from 1 and from the end with negatives", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .array(fc.integer(), { minLength: 1, maxLength: 10 })
          .chain((xs) => fc.tuple(fc.constant(xs), fc.integer({ min: 1, max: xs.length }))),
        async ([xs, i]) => {
          const outcome = await run(`return [arr[${i}], arr[-${i}]]`, { arr: xs })
          expect(outcome).toEqual({ _tag: "Finished", result: [xs[i - 1], xs[xs.length - i]] })
        }
      ),
      { numRuns: 100 }
    )
  })
})

describe("hog bytecode", () => {
  it("is versioned HogVM bytecode", async () => {
    const bytecode = await compiled(compileExpression("1"))
    expect(bytecode.slice(0, 2)).toEqual(["_H", 1])
  })

  it("compile failures are typed errors, not exceptions", async () => {
    const result = await Effect.runPromise(Effect.either(compileProgram("let := ")))
    expect(Either.isLeft(result)).toBe(true)
  })
})
