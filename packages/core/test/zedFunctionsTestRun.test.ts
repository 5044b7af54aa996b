import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import type { Zed } from "../src/index.js"
import { ADMIN_KEY, call, issueKey, memoryZed } from "./support.js"

// Trying a function before saving it: `POST …/zed_functions/compile/` (the editor's inline errors)
// and test runs on a sample event (`POST …/zed_functions/invocations/`, `…/:id/invocations/`), over
// HTTP on in-memory storage. A test run stores nothing and sends nothing.

const PROJECT = "/api/environments/1"

let zed: Zed
beforeEach(async () => {
  zed = await memoryZed()
})
afterEach(async () => {
  await zed.close()
})

const send = (method: string, path: string, body?: unknown, key: string = ADMIN_KEY) =>
  call(zed, `${PROJECT}${path}`, { method, key, body: body === undefined ? undefined : JSON.stringify(body) })

const ADD_PROPERTY = "let e := event\ne.properties[inputs.key] := inputs.value\nprint(f'set {inputs.key}')\nreturn e"

const addProperty = (key: string, value: string) => ({
  type: "transformation",
  name: "Add",
  code: ADD_PROPERTY,
  inputs_schema: [
    { key: "key", type: "string", required: true },
    { key: "value", type: "string", required: true }
  ],
  inputs: { key: { value: key }, value: { value: value } }
})

const test = (configuration: unknown, event: unknown, path = "/zed_functions/invocations/") =>
  send("POST", path, { configuration, globals: { event } })

const expectInvalid = (res: { status: number; json: any; text: string }, attr: string) => {
  expect(res.status, res.text).toBe(400)
  expect(Object.keys(res.json).sort()).toEqual(["attr", "code", "detail", "type"])
  expect(res.json).toMatchObject({ type: "validation_error", attr })
}

describe("compiling Hog", () => {
  it("answers the bytecode of a program", async () => {
    const res = await send("POST", "/zed_functions/compile/", { code: "return 1 + 2" })
    expect(res.status, res.text).toBe(200)
    expect(res.json.bytecode[0]).toBe("_H")
  })

  it("points at the line of a syntax error, wherever it is", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 6 }), async (before, indent) => {
        const lines = [
          ...Array.from({ length: before }, (_, i) => `let v${i} := ${i}`),
          `${" ".repeat(indent)}let := 1`
        ]
        const res = await send("POST", "/zed_functions/compile/", { code: lines.join("\n") })
        expectInvalid(res, "code")
        const [, line, column] = /\(line (\d+), column (\d+)\)/.exec(res.json.detail) ?? []
        expect(Number(line)).toBe(before + 1)
        expect(Number(column)).toBeGreaterThanOrEqual(indent)
      }),
      { numRuns: 15 }
    )
  })

  it("refuses a body without code, naming it", async () => {
    expectInvalid(await send("POST", "/zed_functions/compile/", {}), "code")
  })
})

describe("test runs", () => {
  it("answers the transformed event for any property set from an input template, storing nothing", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[a-z][a-z_]{0,11}$/),
        fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !/[{}\\']/.test(s)),
        async (key, plan) => {
          const res = await test(addProperty(key, "tier-{event.properties.plan}"), {
            event: "signed up",
            distinct_id: "ada",
            properties: { plan }
          })
          expect(res.status, res.text).toBe(200)
          expect(res.json.status).toBe("success")
          expect(res.json.result).toMatchObject({
            event: "signed up",
            distinct_id: "ada",
            properties: { ...(key === "plan" ? {} : { plan }), [key]: `tier-${plan}` }
          })
          expect(res.json.logs.map((l: { level: string; message: string }) => [l.level, l.message])).toEqual([
            ["LOG", `set ${key}`]
          ])
        }
      ),
      { numRuns: 20 }
    )
    const events = await send("GET", "/events/?event=signed%20up")
    expect(events.json.results).toEqual([])
  })

  it("says when the event would be dropped, when filters leave it out, and when the code fails", async () => {
    const dropped = await test({ type: "transformation", name: "Drop", code: "return null" }, { event: "x" })
    expect(dropped.json).toMatchObject({ status: "success", result: null })
    expect(dropped.json.logs.at(-1).message).toMatch(/dropped/)

    const filtered = await test(
      {
        type: "transformation",
        name: "Only y",
        code: "return null",
        filters: { events: [{ id: "y", type: "events" }] }
      },
      { event: "x" }
    )
    expect(filtered.json).toMatchObject({ status: "skipped", result: null })

    const failing = await test({ type: "transformation", name: "Bad", code: "throw Error('nope')" }, { event: "x" })
    expect(failing.json.status).toBe("error")
    expect(failing.json.logs.at(-1)).toMatchObject({ level: "ERROR", message: expect.stringContaining("nope") })
  })

  it("runs a destination with fetch answered in place, sending nothing", async () => {
    const res = await test(
      {
        type: "destination",
        name: "Hook",
        code: "let r := fetch(inputs.url, {'method': 'POST', 'body': event.properties})\nreturn r.status",
        inputs_schema: [{ key: "url", type: "string", required: true }],
        inputs: { url: { value: "http://127.0.0.1:9/never" } }
      },
      { event: "order", properties: { amount: 3 } }
    )
    expect(res.status, res.text).toBe(200)
    expect(res.json).toMatchObject({ status: "success", result: 200 })
    expect(res.json.logs[0].message).toContain("http://127.0.0.1:9/never")
    expect(res.json.logs[0].message).toContain('"amount":3')
  })

  it("tests a saved function with its stored code and inputs unless the configuration changes them", async () => {
    const created = await send("POST", "/zed_functions/", addProperty("source", "saved"))
    expect(created.status, created.text).toBe(201)
    const path = `/zed_functions/${created.json.id}/invocations/`
    const stored = await test({}, { event: "e" }, path)
    expect(stored.json.result.properties).toEqual({ source: "saved" })
    const changed = await test(
      { inputs: { key: { value: "source" }, value: { value: "draft" } } },
      { event: "e" },
      path
    )
    expect(changed.json.result.properties).toEqual({ source: "draft" })
    const missing = await test({}, { event: "e" }, "/zed_functions/00000000-0000-4000-8000-000000000000/invocations/")
    expect(missing.status).toBe(404)
  })

  it("refuses bad input with 400 naming the field", async () => {
    expectInvalid(
      await test({ type: "transformation", name: "x", code: "let := 1" }, { event: "x" }),
      "configuration__code"
    )
    expectInvalid(
      await test({ type: "sideways", name: "x", code: "return event" }, { event: "x" }),
      "configuration__type"
    )
    expectInvalid(await test({ type: "transformation", name: "x" }, { event: "x" }), "configuration__code")
    expectInvalid(
      await test(addProperty("a", "b").inputs_schema && { ...addProperty("a", "b"), inputs: {} }, { event: "x" }),
      "configuration__inputs__key"
    )
    expectInvalid(await test({ type: "transformation", name: "x", code: "return event" }, {}), "globals__event__event")
  })

  it("needs the write scope", async () => {
    const reader = await issueKey(zed, ["zed_function:read"])
    const res = await send(
      "POST",
      "/zed_functions/invocations/",
      {
        configuration: { type: "transformation", name: "x", code: "return event" },
        globals: { event: { event: "x" } }
      },
      reader
    )
    expect(res.status).toBe(403)
  })
})
