import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import type { Project } from "../src/domain/models.js"
import { makeFunctionHealth } from "../src/functions/health.js"
import { FunctionMetrics, makeMetricCounts } from "../src/functions/metrics.js"
import type { LogLine } from "../src/functions/logs.js"
import { makeMasker } from "../src/functions/masking.js"
import type { ActiveFunction, ProjectPipeline } from "../src/functions/registry.js"
import { transformEvents } from "../src/functions/transform.js"
import { compileProgram } from "../src/hog/compile.js"
import { incomingEvent, newFunction } from "./support.js"
import type { IncomingEvent } from "../src/ingest/normalize.js"

// The transformation chain on its own, without I/O: order, drops, failures that keep the event,
// the per-request time budget, filters and masking.

const project = {
  id: 1,
  name: "Test",
  test_account_filters: [{ key: "email", operator: "not_icontains", value: "@zed.test", type: "person" }]
} as unknown as Project

let ids = 0
const transformation = async (code: string, extra: Partial<ActiveFunction> = {}): Promise<ActiveFunction> => ({
  fn: {
    ...newFunction(`t${++ids}`, {
      code,
      bytecode: await Effect.runPromise(compileProgram(code)),
      execution_order: ids,
      created_by: null
    }),
    id: `00000000-0000-4000-8000-${String(ids).padStart(12, "0")}`,
    created_at: new Date(),
    updated_at: new Date()
  },
  filters: null,
  masking: null,
  ...extra
})

const event = (name: string, properties: Record<string, unknown>, distinctId = "u") =>
  incomingEvent(name, distinctId, properties)

const run = (transformations: ReadonlyArray<ActiveFunction>, events: ReadonlyArray<IncomingEvent>) => {
  const logs: Array<LogLine> = []
  const pipeline: ProjectPipeline = { plugins: [], transformations, destinations: [] }
  const out = transformEvents(
    {
      project,
      pipeline,
      deps: { geoip: () => ({}) },
      masker: makeMasker(),
      health: makeFunctionHealth(),
      metrics: FunctionMetrics.of({ record: makeMetricCounts().add, flush: Effect.void }),
      log: (l) => logs.push(l)
    },
    events
  )
  return { out, logs }
}

const SET_A = "let e := event\ne.properties.a := 1\nreturn e"
const COPY_A = "let e := event\ne.properties.b := (e.properties.a ?? 0) + 1\nreturn e"

describe("transformations", () => {
  it("chain in order, each seeing the previous one's output", async () => {
    const [setA, copyA] = [await transformation(SET_A), await transformation(COPY_A)]
    expect(run([setA, copyA], [event("x", {})]).out[0]!.properties).toEqual({ a: 1, b: 2 })
    expect(run([copyA, setA], [event("x", {})]).out[0]!.properties).toEqual({ a: 1, b: 1 })
  })

  it("drop events with null, and later transformations never see them", async () => {
    const drop = await transformation("if (event.event = 'bot') { return null }\nreturn event")
    const after = await transformation("print('saw', event.event)\nreturn event")
    const { logs, out } = run([drop, after], [event("bot", {}), event("human", {})])
    expect(out.map((e) => e.event)).toEqual(["human"])
    expect(logs.filter((l) => l.source === "CONSOLE").map((l) => l.message)).toEqual(["saw human"])
  })

  it("keep the event as it was when one fails or returns something else", async () => {
    for (const code of [
      "throw Error('no')",
      "return 42",
      "return {'properties': 'x'}",
      "let e := event\ne.event := ''\nreturn e"
    ]) {
      const broken = await transformation(code)
      const setA = await transformation(SET_A)
      const { logs, out } = run([broken, setA], [event("x", { keep: true })])
      expect(out[0]!.properties).toEqual({ keep: true, a: 1 })
      expect(logs.filter((l) => l.type === "ERROR" && l.owner.id === broken.fn.id)).toHaveLength(1)
    }
  })

  it("skip a function stuck at its time limit for the rest of the request", async () => {
    const stuck = await transformation("while (true) { }\nreturn event")
    const setA = await transformation(SET_A)
    const events = Array.from({ length: 40 }, () => event("x", {}))
    const started = performance.now()
    const { logs, out } = run([stuck, setA], events)
    // 100 ms or more per run until the 1 s budget is spent: about 10 runs, not 40.
    expect(performance.now() - started).toBeLessThan(2500)
    expect(out).toHaveLength(40)
    expect(out.every((e) => e.properties["a"] === 1)).toBe(true)
    const errors = logs.filter((l) => l.owner.id === stuck.fn.id && l.type === "ERROR").length
    expect(errors).toBeGreaterThanOrEqual(5)
    expect(errors).toBeLessThanOrEqual(11)
    expect(logs.filter((l) => l.type === "WARN" && l.message.startsWith("Skipped"))).toHaveLength(1)
  })

  it("run only on events their filters let through", async () => {
    const setA = await transformation(SET_A, {
      filters: {
        events: [{ id: "buy", properties: [{ key: "amount", operator: "gt", value: 10, type: "event" }] }],
        actions: [],
        properties: [],
        filter_test_accounts: true
      }
    })
    const { out } = run(
      [setA],
      [
        event("buy", { amount: 20 }),
        event("buy", { amount: 5 }),
        event("view", { amount: 20 }),
        event("buy", { amount: 20, $set: { email: "me@zed.test" } })
      ]
    )
    expect(out.map((e) => e.properties["a"] ?? null)).toEqual([1, null, null, null])
  })

  it("run once per masking hash within the ttl", async () => {
    const hash = await Effect.runPromise(compileProgram("return event.distinct_id"))
    const setA = await transformation(SET_A, {
      masking: { ttl: 60, threshold: null, hash: "{event.distinct_id}", bytecode: hash }
    })
    const { out } = run([setA], [event("x", {}, "p"), event("x", {}, "p"), event("x", {}, "q")])
    expect(out.map((e) => e.properties["a"] ?? null)).toEqual([1, null, 1])
  })

  it("given back the event unchanged, store exactly what was sent", async () => {
    const identity = await transformation("return event")
    // A key JavaScript would take for the prototype is a key like any other.
    const proto = JSON.parse('{" ": {"__proto__": 0}, "__proto__": {"a": 1}}') as Record<string, unknown>
    expect(run([identity], [event("x", proto)]).out[0]!.properties).toEqual(proto)
    const json = fc.jsonValue({ maxDepth: 3 }).filter((v) => v !== null)
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), json, { maxKeys: 6 }),
        async (properties) => {
          const sent = JSON.parse(JSON.stringify(properties)) as Record<string, unknown>
          expect(run([identity], [event("x", sent)]).out[0]!.properties).toEqual(sent)
        }
      ),
      { numRuns: 100 }
    )
  })
})
