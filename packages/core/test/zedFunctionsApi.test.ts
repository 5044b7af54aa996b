import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import type { Zed } from "../src/index.js"
import { ADMIN_KEY, call, issueKey, memoryZed, PROJECT_KEY } from "./support.js"

// The zed_functions, plugin_configs and function log APIs over HTTP on in-memory storage: what
// each write accepts and refuses (status and `{type, code, detail, attr}`), what reads show (never a
// secret), and what enabled functions and plugins do to captured events, read back with ZedQL.

const PROJECT = "/api/environments/1"
const IDENTITY = "return event"

let zed: Zed
beforeEach(async () => {
  zed = await memoryZed()
})
afterEach(async () => {
  await zed.close()
})

const send = (method: string, path: string, body?: unknown, key: string = ADMIN_KEY) =>
  call(zed, `${PROJECT}${path}`, { method, key, body: body === undefined ? undefined : JSON.stringify(body) })

interface CreatedFunction {
  readonly id: string
  readonly execution_order: number | null
  readonly [key: string]: unknown
}

const createFunction = async (body: Record<string, unknown>): Promise<CreatedFunction> => {
  const res = await send("POST", "/zed_functions/", body)
  expect(res.status, res.text).toBe(201)
  return res.json
}

const transformation = (fields: Record<string, unknown> = {}) =>
  createFunction({ type: "transformation", name: "T", code: IDENTITY, ...fields })

/** Captures through `/batch/` as an SDK does, so plugins, transformations and destinations run. */
const capture = async (batch: ReadonlyArray<Record<string, unknown>>) => {
  const res = await call(zed, "/batch/", {
    method: "POST",
    key: null,
    body: JSON.stringify({ api_key: PROJECT_KEY, batch })
  })
  expect(res.status, res.text).toBe(200)
}

interface StoredEvent {
  readonly distinct_id: string
  readonly properties: Record<string, unknown>
  readonly person: { readonly properties: Record<string, unknown> } | null
}

/** The stored events named `event`, through the events API (in-memory storage runs no ZedQL). */
const stored = async (event: string): Promise<Array<StoredEvent>> => {
  const res = await send("GET", `/events/?event=${encodeURIComponent(event)}&limit=1000`)
  expect(res.status, res.text).toBe(200)
  return res.json.results
}

const expectError = (
  res: { status: number; json: unknown; text: string },
  status: number,
  expected: Record<string, unknown>
) => {
  expect(res.status, res.text).toBe(status)
  expect(Object.keys(res.json as object).sort()).toEqual(["attr", "code", "detail", "type"])
  expect(res.json).toMatchObject(expected)
}

const invalid = (attr: string, detail?: string | RegExp) => ({
  type: "validation_error",
  attr,
  ...(detail === undefined ? {} : { detail: typeof detail === "string" ? detail : expect.stringMatching(detail) })
})

interface LogEntry {
  readonly id: string
  readonly timestamp: string
  readonly type: string
  readonly source: string
  readonly message: string
  readonly [key: string]: unknown
}

const logs = async (path: string): Promise<Array<LogEntry>> => {
  const res = await send("GET", path)
  expect(res.status, res.text).toBe(200)
  return res.json.results
}

const pluginConfig = async (name: string) => {
  const res = await send("GET", "/plugin_configs/")
  expect(res.status, res.text).toBe(200)
  return res.json.results.find((c: { name: string }) => c.name === name) as {
    id: number
    plugin: number
    enabled: boolean
  }
}

describe("creating a zed function", () => {
  it("requires type, name and code, each named in attr", async () => {
    const full = { type: "transformation", name: "N", code: IDENTITY }
    for (const field of ["type", "name", "code"] as const) {
      const { [field]: _, ...rest } = full
      expectError(await send("POST", "/zed_functions/", rest), 400, {
        type: "validation_error",
        code: "required",
        detail: "This field is required.",
        attr: field
      })
    }
  })

  it("refuses an unknown type", async () => {
    expectError(
      await send("POST", "/zed_functions/", { type: "webhook", name: "N", code: IDENTITY }),
      400,
      invalid("type")
    )
  })

  it("refuses code that does not compile, naming the line and (0-based) column of the error", async () => {
    const errorsOnLineThree: ReadonlyArray<readonly [string, number]> = [
      ["let 3 := 1", 4],
      ["let c := )", 9],
      ["let c := 'abc", 9]
    ]
    for (const [line, column] of errorsOnLineThree) {
      const res = await send("POST", "/zed_functions/", {
        type: "transformation",
        name: "N",
        code: `let a := 1\nlet b := 2\n${line}\nreturn event`
      })
      expectError(res, 400, invalid("code", /^Hog code has errors: /))
      expect(res.json.detail).toMatch(new RegExp(`\\(line 3, column ${column}\\)$`))
    }
    expect((await send("GET", "/zed_functions/?type=transformation")).json.count).toBe(0)
  })

  it("answers the stored function: compiled bytecode, creator, unknown status, empty description", async () => {
    const res = await send("POST", "/zed_functions/", {
      type: "transformation",
      name: "Fresh",
      code: IDENTITY,
      enabled: true
    })
    expect(res.status, res.text).toBe(201)
    expect(res.json.bytecode[0]).toBe("_H")
    expect(res.json.created_by).toMatchObject({ id: expect.any(Number), email: expect.any(String) })
    expect(res.json.status).toEqual({ state: 0, tokens: 0, rating: 0 })
    expect(res.json.description).toBe("")
    expect(res.json.execution_order).toBe(1)
    expect(res.json).not.toHaveProperty("deleted")
    const fetched = await send("GET", `/zed_functions/${res.json.id}/`)
    expect(fetched.json).toEqual(res.json)
  })

  it("gives each new transformation the next execution order, and a destination none", async () => {
    const orders = [(await transformation()).execution_order, (await transformation()).execution_order]
    const destination = await createFunction({ type: "destination", name: "D", code: "print(1)" })
    expect(orders).toEqual([1, 2])
    expect(destination.execution_order).toBeNull()
  })

  it("reports health once a transformation has run", async () => {
    const fn = await transformation({ enabled: true })
    await capture([{ event: "e", distinct_id: "a", properties: {} }])
    expect((await send("GET", `/zed_functions/${fn.id}/`)).json.status).toEqual({ state: 1, tokens: 1, rating: 1 })
  })
})

describe("inputs", () => {
  const withInputs = (inputs_schema: unknown, inputs: unknown) =>
    send("POST", "/zed_functions/", { type: "transformation", name: "I", code: IDENTITY, inputs_schema, inputs })

  it("requires a required input", async () => {
    expectError(
      await withInputs([{ type: "string", key: "url", required: true }], {}),
      400,
      invalid("inputs__url", "This field is required.")
    )
    expectError(
      await withInputs([{ type: "string", key: "url", required: true }], { url: { value: "" } }),
      400,
      invalid("inputs__url", "This field is required.")
    )
  })

  const wrongValues: Record<string, { readonly detail: string; readonly value: fc.Arbitrary<unknown> }> = {
    string: {
      detail: "Value must be a string.",
      value: fc.oneof(fc.integer(), fc.boolean(), fc.array(fc.string(), { minLength: 1 }))
    },
    number: {
      detail: "Value must be a number.",
      value: fc.oneof(fc.string({ minLength: 1 }), fc.boolean(), fc.dictionary(fc.string(), fc.integer()))
    },
    boolean: {
      detail: "Value must be a boolean.",
      value: fc.oneof(fc.string({ minLength: 1 }), fc.integer(), fc.dictionary(fc.string(), fc.integer()))
    },
    dictionary: {
      detail: "Value must be a dictionary.",
      value: fc.oneof(fc.string({ minLength: 1 }), fc.integer(), fc.boolean(), fc.array(fc.integer()))
    },
    choice: {
      detail: "Value must be one of the choices.",
      value: fc.string({ minLength: 1 }).filter((s) => s !== "eu" && s !== "us")
    }
  }

  it("checks each value against its schema type", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .constantFrom(...Object.keys(wrongValues))
          .chain((type) => fc.tuple(fc.constant(type), wrongValues[type]!.value)),
        async ([type, value]) => {
          const choices =
            type === "choice"
              ? {
                  choices: [
                    { label: "EU", value: "eu" },
                    { label: "US", value: "us" }
                  ]
                }
              : {}
          const res = await withInputs([{ type, key: "field", ...choices }], { field: { value } })
          expectError(res, 400, invalid("inputs__field", wrongValues[type]!.detail))
        }
      ),
      { numRuns: 40 }
    )
  })

  it("accepts values of the right types", async () => {
    const res = await withInputs(
      [
        { type: "string", key: "s" },
        { type: "number", key: "n" },
        { type: "boolean", key: "b" },
        { type: "dictionary", key: "d" },
        { type: "choice", key: "c", choices: [{ label: "EU", value: "eu" }] }
      ],
      { s: { value: "x" }, n: { value: 1.5 }, b: { value: false }, d: { value: { k: "v" } }, c: { value: "eu" } }
    )
    expect(res.status, res.text).toBe(201)
    expect(Object.keys(res.json.inputs).sort()).toEqual(["b", "c", "d", "n", "s"])
  })

  it("refuses an input the schema does not declare", async () => {
    expectError(
      await withInputs([{ type: "string", key: "a" }], { stray: { value: "x" } }),
      400,
      invalid("inputs__stray")
    )
  })

  it("refuses a schema declaring a key twice", async () => {
    expectError(
      await withInputs(
        [
          { type: "string", key: "a" },
          { type: "number", key: "a" }
        ],
        {}
      ),
      400,
      invalid("inputs_schema", "Input keys must be unique.")
    )
  })

  const SECRET = "s3cr3t-Value-7f9a"
  const COPY_SECRET =
    "let e := event\ne.properties.copied := inputs.secret\ne.properties.label := inputs.label\nreturn e"

  it("masks secret inputs in every response and keeps them when the mask is sent back", async () => {
    const created = await send("POST", "/zed_functions/", {
      type: "transformation",
      name: "Secretive",
      code: COPY_SECRET,
      enabled: true,
      inputs_schema: [
        { type: "string", key: "secret", secret: true, required: true },
        { type: "string", key: "label" }
      ],
      inputs: { secret: { value: SECRET }, label: { value: "first" } }
    })
    expect(created.status, created.text).toBe(201)
    expect(created.json.inputs.secret).toEqual({ secret: true })
    expect(created.text).not.toContain(SECRET)
    const id = created.json.id

    const fetched = await send("GET", `/zed_functions/${id}/`)
    expect(fetched.json.inputs.secret).toEqual({ secret: true })
    expect(fetched.text).not.toContain(SECRET)
    const listed = await send("GET", "/zed_functions/?type=transformation")
    expect(listed.json.results.map((f: { id: string }) => f.id)).toEqual([id])
    expect(listed.text).not.toContain(SECRET)

    const patched = await send("PATCH", `/zed_functions/${id}/`, {
      inputs: { secret: { secret: true }, label: { value: "second" } }
    })
    expect(patched.status, patched.text).toBe(200)
    expect(patched.json.inputs.secret).toEqual({ secret: true })
    expect(patched.json.inputs.label.value).toBe("second")
    expect(patched.text).not.toContain(SECRET)

    await capture([{ event: "secret_run", distinct_id: "a", properties: {} }])
    const [event] = await stored("secret_run")
    expect(event!.properties).toMatchObject({ copied: SECRET, label: "second" })
    const logText = (await send("GET", `/zed_functions/${id}/logs/`)).text
    expect(logText).not.toContain(SECRET)
  })

  it("renders a whole-placeholder template as the value itself and a mixed one as a string", async () => {
    await transformation({
      enabled: true,
      code: "let e := event\ne.properties.whole_json := jsonStringify(inputs.whole)\ne.properties.obj_json := jsonStringify(inputs.obj)\ne.properties.mixed := inputs.mixed\nreturn e",
      inputs_schema: [
        { type: "json", key: "whole" },
        { type: "json", key: "obj" },
        { type: "string", key: "mixed" }
      ],
      inputs: {
        whole: { value: "{event.properties.n}" },
        obj: { value: "{event.properties.nested}" },
        mixed: { value: "a {event.event} b" }
      }
    })
    await capture([{ event: "templated", distinct_id: "a", properties: { n: 42, nested: { list: [1, 2] } } }])
    const [event] = await stored("templated")
    expect(event!.properties).toMatchObject({ whole_json: "42", obj_json: '{"list":[1,2]}', mixed: "a templated b" })
  })
})

describe("updating and deleting", () => {
  it("refuses to change the type", async () => {
    const fn = await transformation()
    expectError(
      await send("PATCH", `/zed_functions/${fn.id}/`, { type: "destination" }),
      400,
      invalid("type", "Cannot modify the type of an existing function")
    )
    expect((await send("GET", `/zed_functions/${fn.id}/`)).json.type).toBe("transformation")
  })

  it("deletes softly with deleted: true and restores with deleted: false", async () => {
    const fn = await createFunction({ type: "destination", name: "D", code: "print(1)" })
    const deleted = await send("PATCH", `/zed_functions/${fn.id}/`, { deleted: true })
    expect(deleted.status, deleted.text).toBe(200)
    expect(deleted.json).not.toHaveProperty("deleted")
    expectError(await send("GET", `/zed_functions/${fn.id}/`), 404, { type: "invalid_request", code: "not_found" })
    expect((await send("GET", "/zed_functions/")).json.results).toEqual([])
    expectError(await send("PATCH", `/zed_functions/${fn.id}/`, { name: "ghost" }), 404, { code: "not_found" })

    const restored = await send("PATCH", `/zed_functions/${fn.id}/`, { deleted: false })
    expect(restored.status, restored.text).toBe(200)
    expect((await send("GET", `/zed_functions/${fn.id}/`)).status).toBe(200)
    expect((await send("GET", "/zed_functions/")).json.results.map((f: { id: string }) => f.id)).toEqual([fn.id])
  })

  it("answers DELETE with 405 and no body, deleting nothing", async () => {
    const fn = await transformation()
    const res = await send("DELETE", `/zed_functions/${fn.id}/`)
    expect(res.status).toBe(405)
    expect(res.text).toBe("")
    expect((await send("GET", `/zed_functions/${fn.id}/`)).status).toBe(200)
  })
})

describe("listing", () => {
  it("shows destinations unless types are asked for", async () => {
    const t = await transformation()
    const d = await createFunction({ type: "destination", name: "D", code: "print(1)" })
    const ids = async (query: string) =>
      (await send("GET", `/zed_functions/${query}`)).json.results.map((f: { id: string }) => f.id)
    expect(await ids("")).toEqual([d.id])
    expect(await ids("?type=transformation")).toEqual([t.id])
    expect((await ids("?types=transformation,destination")).sort()).toEqual([t.id, d.id].sort())
    expectError(await send("GET", "/zed_functions/?types=transformation,webhook"), 400, invalid("types"))
  })

  it("filters by enabled and by filters containment", async () => {
    const on = await transformation({ enabled: true, filters: { events: [{ id: "signup", type: "events" }] } })
    const off = await transformation({
      enabled: false,
      filters: {
        events: [{ id: "login", type: "events" }],
        properties: [{ key: "plan", value: "pro", operator: "exact" }]
      }
    })
    const ids = async (query: string) =>
      (await send("GET", `/zed_functions/?type=transformation&${query}`)).json.results.map((f: { id: string }) => f.id)
    expect(await ids("enabled=true")).toEqual([on.id])
    expect(await ids("enabled=false")).toEqual([off.id])
    const contains = (filters: unknown) => ids(`filters=${encodeURIComponent(JSON.stringify(filters))}`)
    expect(await contains({ events: [{ id: "signup" }] })).toEqual([on.id])
    expect(await contains({ properties: [{ key: "plan" }] })).toEqual([off.id])
    expect(await contains({ events: [{ id: "purchase" }] })).toEqual([])
    expect(await contains({})).toEqual([on.id, off.id])
    expectError(
      await send("GET", `/zed_functions/?type=transformation&filters=${encodeURIComponent("{not json")}`),
      400,
      invalid("filter")
    )
  })

  it("orders by execution order and pages with the usual envelope", async () => {
    const [a, b, c] = [
      await transformation({ name: "a" }),
      await transformation({ name: "b" }),
      await transformation({ name: "c" })
    ]
    const rearranged = await send("PATCH", "/zed_functions/rearrange/", { orders: { [a.id]: 3, [c.id]: 1, [b.id]: 2 } })
    expect(rearranged.status, rearranged.text).toBe(200)
    const first = await send("GET", "/zed_functions/?type=transformation&limit=2")
    expect(first.json.count).toBe(3)
    expect(first.json.results.map((f: { name: string }) => f.name)).toEqual(["c", "b"])
    expect(first.json.previous).toBeNull()
    expect(first.json.next).toEqual(expect.stringContaining("offset=2"))
    const second = await call(zed, new URL(first.json.next).pathname + new URL(first.json.next).search)
    expect(second.json.results.map((f: { name: string }) => f.name)).toEqual(["a"])
    expect(second.json.next).toBeNull()
    expect(second.json.previous).not.toBeNull()
  })
})

describe("rearranging transformations", () => {
  const orderOf = async (id: string) => (await send("GET", `/zed_functions/${id}/`)).json.execution_order

  it("refuses empty orders", async () => {
    expectError(
      await send("PATCH", "/zed_functions/rearrange/", { orders: {} }),
      400,
      invalid("orders", "No orders provided")
    )
  })

  it("refuses an unknown id without changing the ids before it", async () => {
    const t = await transformation()
    const unknown = crypto.randomUUID()
    const res = await send("PATCH", "/zed_functions/rearrange/", { orders: { [t.id]: 7, [unknown]: 8 } })
    expectError(res, 400, invalid("orders", `ZedFunction with id ${unknown} does not exist`))
    expect(await orderOf(t.id)).toBe(1)
  })

  it("refuses one order given twice, changing nothing", async () => {
    const [a, b] = [await transformation(), await transformation()]
    expectError(
      await send("PATCH", "/zed_functions/rearrange/", { orders: { [a.id]: 5, [b.id]: 5 } }),
      400,
      invalid("orders")
    )
    expect([await orderOf(a.id), await orderOf(b.id)]).toEqual([1, 2])
  })

  it("refuses a destination", async () => {
    const t = await transformation()
    const d = await createFunction({ type: "destination", name: "D", code: "print(1)" })
    expectError(
      await send("PATCH", "/zed_functions/rearrange/", { orders: { [t.id]: 4, [d.id]: 5 } }),
      400,
      invalid("orders")
    )
    expect(await orderOf(t.id)).toBe(1)
    expect(await orderOf(d.id)).toBeNull()
  })

  it("answers every transformation in the new order", async () => {
    const [a, b, c] = [await transformation(), await transformation(), await transformation()]
    await createFunction({ type: "destination", name: "D", code: "print(1)" })
    const res = await send("PATCH", "/zed_functions/rearrange/", { orders: { [c.id]: 1, [a.id]: 3 } })
    expect(res.status, res.text).toBe(200)
    expect(res.json.map((f: { id: string; execution_order: number }) => [f.id, f.execution_order])).toEqual([
      [c.id, 1],
      [b.id, 2],
      [a.id, 3]
    ])
    expect(res.json[0].bytecode[0]).toBe("_H")
  })
})

describe("icons", () => {
  it("finds icons by keyword, and none for an empty query", async () => {
    const res = await send("GET", "/zed_functions/icons/?query=GEOIP")
    expect(res.status, res.text).toBe(200)
    expect(res.json).toHaveLength(1)
    expect(Object.keys(res.json[0]).sort()).toEqual(["id", "name", "url"])
    expect(res.json[0]).toMatchObject({ id: "globe", name: "Globe" })
    expect((await send("GET", "/zed_functions/icons/?query=")).json).toEqual([])
    expect((await send("GET", "/zed_functions/icons/")).json).toEqual([])
    expect((await send("GET", "/zed_functions/icons/?query=zzzz-nothing")).json).toEqual([])
  })

  it("serves the icon at its url without authentication", async () => {
    const [found] = (await send("GET", "/zed_functions/icons/?query=webhook")).json
    const res = await call(zed, found.url, { key: null })
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toContain("image/svg+xml")
    expect(res.text).toMatch(/^<svg[\s\S]*<\/svg>$/)
  })

  it("refuses a missing id and answers 404 for an unknown one", async () => {
    expectError(await call(zed, `${PROJECT}/zed_functions/icon/`, { key: null }), 400, invalid("id", "id is required"))
    expectError(await call(zed, `${PROJECT}/zed_functions/icon/?id=nope.example`, { key: null }), 404, {
      code: "not_found"
    })
  })
})

const TAG = "let e := event\ne.properties.tagged := true\nreturn e"

/** The distinct ids whose events of `event` were tagged by a transformation. */
const tagged = async (event: string) =>
  (await stored(event))
    .filter((e) => e.properties["tagged"] === true)
    .map((e) => e.distinct_id)
    .sort()

describe("transformation filters and masking", () => {
  it("transforms only the events the event filter names", async () => {
    await transformation({ enabled: true, code: TAG, filters: { events: [{ id: "signup", type: "events" }] } })
    await capture([
      { event: "signup", distinct_id: "a", properties: {} },
      { event: "pageview", distinct_id: "b", properties: {} }
    ])
    expect(await tagged("signup")).toEqual(["a"])
    expect(await tagged("pageview")).toEqual([])
    expect(await stored("pageview")).toHaveLength(1)
  })

  it("transforms only the events a property filter matches", async () => {
    await transformation({
      enabled: true,
      code: TAG,
      filters: { properties: [{ key: "plan", value: "pro", operator: "exact", type: "event" }] }
    })
    await capture([
      { event: "buy", distinct_id: "pro", properties: { plan: "pro" } },
      { event: "buy", distinct_id: "free", properties: { plan: "free" } },
      { event: "buy", distinct_id: "none", properties: {} }
    ])
    expect(await tagged("buy")).toEqual(["pro"])
  })

  it("refuses actions", async () => {
    const res = await send("POST", "/zed_functions/", {
      type: "transformation",
      name: "A",
      code: IDENTITY,
      filters: { actions: [{ id: "1", type: "actions" }] }
    })
    expectError(res, 400, invalid("filters__actions", "Zed has no actions: filter by events and properties instead."))
  })

  it("refuses a masking ttl outside 60..86400", async () => {
    for (const ttl of [59, 86_401, 0]) {
      const res = await send("POST", "/zed_functions/", {
        type: "transformation",
        name: "M",
        code: IDENTITY,
        masking: { ttl, hash: "{event.distinct_id}" }
      })
      expectError(res, 400, invalid("masking__ttl"))
    }
  })

  it("runs once per hash within the ttl", async () => {
    await transformation({ enabled: true, code: TAG, masking: { ttl: 60, hash: "{event.distinct_id}" } })
    await capture(
      ["a", "a", "b", "a", "b", "c"].map((distinct_id) => ({ event: "masked", distinct_id, properties: {} }))
    )
    expect(await stored("masked")).toHaveLength(6)
    expect(await tagged("masked")).toEqual(["a", "b", "c"])
  })
})

describe("limits on transformations", () => {
  // Why each run is stopped: the time limit, or the memory limit (the array grows by copying, so
  // either may come first).
  const runaway: Record<string, readonly [string, RegExp]> = {
    "an infinite loop": ["let e := event\ne.properties.plan := 'changed'\nwhile (true) { }\nreturn e", /timed out/i],
    "a huge string": ["let s := 'xxxxxxxxxxxxxxxx'\nwhile (true) { s := s || s }\nreturn event", /memory limit/i],
    "a huge array": [
      "let a := []\nwhile (true) { a := arrayPushBack(a, 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx') }\nreturn event",
      /timed out|memory limit/i
    ]
  }

  for (const [what, [code, reason]] of Object.entries(runaway)) {
    it(`keeps the event unchanged and logs an error for ${what}`, async () => {
      const fn = await transformation({ enabled: true, code })
      await capture([{ event: "limited", distinct_id: "a", properties: { plan: "free" } }])
      expect((await stored("limited")).map((e) => e.properties["plan"])).toEqual(["free"])
      const errors = await logs(`/zed_functions/${fn.id}/logs/?type_filter=ERROR`)
      expect(errors).toHaveLength(1)
      expect(errors[0]!.message).toContain("The event was kept as it was")
      expect(errors[0]!.message).toMatch(reason)
    })
  }
})

describe("function logs", () => {
  const LOGGING =
    "print('Hello MiXed case', event.event)\nif (event.event = 'bad') { throw Error('boom') }\nreturn event"

  const loggingFunction = async () => {
    const fn = await transformation({ enabled: true, code: LOGGING })
    await capture([{ event: "good", distinct_id: "a", properties: {} }])
    await capture([{ event: "bad", distinct_id: "a", properties: {} }])
    return fn
  }

  it("answers entries of the documented shape, newest first", async () => {
    const fn = await loggingFunction()
    const entries = await logs(`/zed_functions/${fn.id}/logs/`)
    expect(entries).toHaveLength(3)
    for (const entry of entries) {
      expect(Object.keys(entry).sort()).toEqual([
        "id",
        "instance_id",
        "message",
        "source",
        "team_id",
        "timestamp",
        "type",
        "zed_function_id"
      ])
      expect(entry).toMatchObject({
        team_id: 1,
        zed_function_id: fn.id,
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        instance_id: expect.stringMatching(/^[0-9a-f-]{36}$/)
      })
      expect(Number.isNaN(Date.parse(entry.timestamp))).toBe(false)
    }
    const times = entries.map((e) => Date.parse(e.timestamp))
    expect(times).toEqual([...times].sort((x, y) => y - x))
    expect(
      entries
        .filter((e) => e.source === "CONSOLE" && e.type === "LOG")
        .map((e) => e.message)
        .sort()
    ).toEqual(["Hello MiXed case bad", "Hello MiXed case good"])
    expect(entries.filter((e) => e.type === "ERROR")).toHaveLength(1)
  })

  it("filters by type, repeated or comma-separated, and refuses unknown types", async () => {
    const fn = await loggingFunction()
    const types = async (query: string) =>
      (await logs(`/zed_functions/${fn.id}/logs/?${query}`)).map((e) => e.type).sort()
    expect(await types("type_filter=ERROR")).toEqual(["ERROR"])
    expect(await types("type_filter=LOG")).toEqual(["LOG", "LOG"])
    expect(await types("type_filter=LOG&type_filter=ERROR")).toEqual(["ERROR", "LOG", "LOG"])
    expect(await types("type_filter=LOG,ERROR")).toEqual(["ERROR", "LOG", "LOG"])
    expect(await types("type_filter=WARN")).toEqual([])
    expectError(
      await send("GET", `/zed_functions/${fn.id}/logs/?type_filter=LOG&type_filter=NOPE`),
      400,
      invalid("type_filter")
    )
  })

  it("searches messages ignoring case", async () => {
    const fn = await loggingFunction()
    const found = await logs(`/zed_functions/${fn.id}/logs/?search=${encodeURIComponent("hello mixed CASE")}`)
    expect(found.map((e) => e.message).sort()).toEqual(["Hello MiXed case bad", "Hello MiXed case good"])
    expect(await logs(`/zed_functions/${fn.id}/logs/?search=BOOM`)).toHaveLength(1)
    expect(await logs(`/zed_functions/${fn.id}/logs/?search=absent-text`)).toEqual([])
  })

  it("bounds by time, exclusively, and refuses an invalid date", async () => {
    const fn = await loggingFunction()
    const path = `/zed_functions/${fn.id}/logs/`
    const all = await logs(path)
    const newest = all[0]!.timestamp
    const oldest = all.at(-1)!.timestamp
    const ms = (iso: string, delta: number) => new Date(Date.parse(iso) + delta).toISOString()
    const ids = async (query: string) => (await logs(`${path}?${query}`)).map((e) => e.id).sort()
    expect(await ids(`after=${encodeURIComponent(newest)}`)).toEqual([])
    expect(await ids(`before=${encodeURIComponent(oldest)}`)).toEqual([])
    expect(await ids(`after=${encodeURIComponent(ms(oldest, -1))}`)).toEqual(all.map((e) => e.id).sort())
    expect(await ids(`before=${encodeURIComponent(ms(newest, 1))}`)).toEqual(all.map((e) => e.id).sort())
    expect(
      await ids(`after=${encodeURIComponent(ms(oldest, -1))}&before=${encodeURIComponent(ms(newest, 1))}`)
    ).toHaveLength(all.length)
    expect(await ids(`before=${encodeURIComponent(newest)}`)).toEqual(
      all
        .filter((e) => e.timestamp < newest)
        .map((e) => e.id)
        .sort()
    )
    expectError(await send("GET", `${path}?after=yesterday-ish`), 400, invalid("after"))
    expectError(await send("GET", `${path}?before=2024-13-45T99:00:00Z`), 400, invalid("before"))
  })

  it("refuses a limit that is not an integer", async () => {
    const fn = await loggingFunction()
    const res = await send("GET", `/zed_functions/${fn.id}/logs/?limit=abc`)
    expect(res.status, res.text).toBe(400)
    expect(res.json).toMatchObject({ type: "validation_error", attr: "limit" })
    const page = await send("GET", `/zed_functions/${fn.id}/logs/?limit=1`)
    expect(page.json.count).toBe(3)
    expect(page.json.results).toHaveLength(1)
  })

  it("answers 404 for the logs of an unknown function", async () => {
    expectError(await send("GET", `/zed_functions/${crypto.randomUUID()}/logs/`), 404, { code: "not_found" })
  })
})

describe("plugin configs", () => {
  const CHROME_MAC =
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/121.0.0.0 Safari/537.36"

  it("lists the three built-ins, GeoIP alone enabled", async () => {
    const res = await send("GET", "/plugin_configs/")
    expect(res.status, res.text).toBe(200)
    expect(res.json.count).toBe(3)
    expect(res.json.results.map((c: { name: string; enabled: boolean }) => [c.name, c.enabled])).toEqual([
      ["GeoIP", true],
      ["User Agent Populator", false],
      ["Property Filter", false]
    ])
    for (const config of res.json.results) {
      const one = await send("GET", `/plugin_configs/${config.id}/`)
      expect(one.status, one.text).toBe(200)
      expect(one.json).toEqual(config)
      expect(one.json).toMatchObject({ team_id: 1, plugin_info: { id: config.plugin } })
    }
  })

  it("refuses unknown config keys and values of the wrong type", async () => {
    const ua = await pluginConfig("User Agent Populator")
    expectError(await send("PATCH", `/plugin_configs/${ua.id}/`, { config: { nope: true } }), 400, {
      type: "validation_error",
      attr: expect.stringMatching(/^config__/)
    })
    expectError(
      await send("PATCH", `/plugin_configs/${ua.id}/`, { config: { overrideUserAgentDetails: "yes" } }),
      400,
      invalid("config__overrideUserAgentDetails")
    )
    expect((await send("GET", `/plugin_configs/${ua.id}/`)).json.config).toEqual({})
    const ok = await send("PATCH", `/plugin_configs/${ua.id}/`, { config: { overrideUserAgentDetails: true } })
    expect(ok.status, ok.text).toBe(200)
    expect(ok.json.config).toEqual({ overrideUserAgentDetails: true })
  })

  it("parses user agents once the User Agent plugin is enabled, and logs the change", async () => {
    const ua = await pluginConfig("User Agent Populator")
    const parsed = async (event: string) => {
      const [{ properties }] = (await stored(event)) as [StoredEvent]
      return [properties["$browser"], properties["$os"], properties["$device_type"]]
    }
    await capture([{ event: "before", distinct_id: "a", properties: { $raw_user_agent: CHROME_MAC } }])
    expect(await parsed("before")).toEqual([undefined, undefined, undefined])

    const patched = await send("PATCH", `/plugin_configs/${ua.id}/`, { enabled: true })
    expect(patched.status, patched.text).toBe(200)
    expect(patched.json.enabled).toBe(true)
    await capture([{ event: "after", distinct_id: "a", properties: { $raw_user_agent: CHROME_MAC } }])
    expect(await parsed("after")).toEqual(["Chrome", "Mac OS X", "Desktop"])

    const entries = await logs(`/plugin_configs/${ua.id}/logs/`)
    expect(entries).toHaveLength(1)
    expect(Object.keys(entries[0]!).sort()).toEqual([
      "id",
      "instance_id",
      "message",
      "plugin_config_id",
      "plugin_id",
      "source",
      "team_id",
      "timestamp",
      "type"
    ])
    expect(entries[0]).toMatchObject({
      plugin_id: ua.plugin,
      plugin_config_id: ua.id,
      team_id: 1,
      source: "SYSTEM",
      type: "INFO",
      message: expect.stringContaining("enabled")
    })
  })

  it("answers 404 for an unknown plugin config", async () => {
    for (const [method, path] of [
      ["GET", "/plugin_configs/9999/"],
      ["PATCH", "/plugin_configs/9999/"],
      ["GET", "/plugin_configs/9999/logs/"]
    ] as const) {
      expectError(await send(method, path, method === "PATCH" ? { enabled: true } : undefined), 404, {
        code: "not_found"
      })
    }
  })
})

describe("scopes", () => {
  it("lets a zed_function:read key read but not write", async () => {
    const key = await issueKey(zed, ["zed_function:read"])
    expect((await send("GET", "/zed_functions/", undefined, key)).status).toBe(200)
    expectError(
      await send("POST", "/zed_functions/", { type: "transformation", name: "N", code: IDENTITY }, key),
      403,
      { code: "permission_denied" }
    )
    const fn = await transformation()
    expect((await send("PATCH", `/zed_functions/${fn.id}/`, { name: "x" }, key)).status).toBe(403)
    expect((await send("GET", `/zed_functions/${fn.id}/logs/`, undefined, key)).status).toBe(200)
  })

  it("lets a plugin:read key read but not write", async () => {
    const key = await issueKey(zed, ["plugin:read"])
    const configs = await send("GET", "/plugin_configs/", undefined, key)
    expect(configs.status).toBe(200)
    const id = configs.json.results[0].id
    expectError(await send("PATCH", `/plugin_configs/${id}/`, { enabled: false }, key), 403, {
      code: "permission_denied"
    })
    expect((await send("GET", `/plugin_configs/${id}/`)).json.enabled).toBe(true)
    expect((await send("GET", "/zed_functions/", undefined, key)).status).toBe(403)
  })
})
