import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { Destinations } from "../../core/src/functions/destinations.js"
import { Effect } from "effect"
import { ADMIN_KEY, call, PROJECT_KEY, postQuery, zedqlRequest } from "../../core/test/support.js"
import { backends } from "./backends.js"

// Zed functions end to end on real stores: transformations change what capture stores, in the
// order rearrange gives them; a destination delivers stored events to a local webhook server,
// retrying after a 500; plugins and functions leave logs readable through the API.

interface Delivery {
  readonly method: string
  readonly headers: IncomingMessage["headers"]
  readonly body: unknown
}

/** A webhook receiver that answers 500 to the first `failFirst` requests, then 200. */
const webhookServer = async (failFirst: number) => {
  const received: Array<Delivery> = []
  let attempts = 0
  const server: Server = createServer((req, res) => {
    let text = ""
    req.on("data", (chunk) => (text += chunk))
    req.on("end", () => {
      attempts++
      if (attempts <= failFirst) {
        res.writeHead(500).end("try again")
        return
      }
      received.push({ method: req.method!, headers: req.headers, body: JSON.parse(text) })
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    attempts: () => attempts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

const REWRITE = `
let returnEvent := event
returnEvent.properties.plan := upper(event.properties.plan ?? 'none')
returnEvent.properties.tagged_by := inputs.tag
return returnEvent
`

/** Drops an event whose plan is (already) `FREE`: it runs after the rewrite, or it sees `free`. */
const DROP = `
if (event.properties.plan = 'FREE') {
  print('dropping', event.uuid)
  return null
}
return event
`

const DESTINATION = `
let res := fetch(inputs.url, {
  'method': 'POST',
  'headers': {'content-type': 'application/json', 'x-secret': inputs.secret},
  'body': {'event': event.event, 'plan': event.properties.plan, 'person': person.properties.email}
})
print('delivered with status', res.status)
`

describe.each(["pglite", "postgres"])("%s zed functions", (name) => {
  let zed: Zed
  let cleanup: () => Promise<void>

  beforeAll(async () => {
    const backend = await backends("functions-api")[name]!()
    cleanup = backend.cleanup
    zed = await createZed({
      storage: backend.storage,
      bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY },
      destinationRetries: { retries: 3, retryDelayMs: 20 }
    })
  })
  afterAll(async () => {
    await zed.close()
    await cleanup()
  })

  const send = (method: string, path: string, body?: unknown) =>
    call(zed, `/api/environments/1${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) })
  const capture = async (events: ReadonlyArray<Record<string, unknown>>) => {
    const res = await call(zed, "/batch/", {
      method: "POST",
      key: null,
      body: JSON.stringify({ api_key: PROJECT_KEY, batch: events })
    })
    expect(res.status, res.text).toBe(200)
  }
  const stored = async (event: string) => {
    const res = await postQuery(
      zed,
      1,
      zedqlRequest(
        `SELECT distinct_id, properties.plan, properties.tagged_by FROM events WHERE event = '${event}' ORDER BY distinct_id`
      )
    )
    expect(res.status, res.text).toBe(200)
    return res.json.results as Array<[string, string | null, string | null]>
  }
  const createFunction = async (body: Record<string, unknown>) => {
    const res = await send("POST", "/zed_functions/", body)
    expect(res.status, res.text).toBe(201)
    return res.json as { id: string; execution_order: number | null }
  }
  const logsOf = async (path: string) => {
    const res = await send("GET", path)
    expect(res.status, res.text).toBe(200)
    return res.json.results as Array<{ type: string; source: string; message: string }>
  }

  it("runs transformations in their rearranged order before storage", async () => {
    const drop = await createFunction({ type: "transformation", name: "Drop free", code: DROP, enabled: true })
    const rewrite = await createFunction({
      type: "transformation",
      name: "Upper-case plan",
      code: REWRITE,
      enabled: true,
      inputs_schema: [{ type: "string", key: "tag", required: true }],
      inputs: { tag: { value: "zed-{event.event}" } }
    })
    expect([drop.execution_order, rewrite.execution_order]).toEqual([1, 2])

    // Drop first: it sees lower-case plans and drops nothing; then the rewrite upper-cases them.
    await capture([
      { event: "signup", distinct_id: "a", properties: { plan: "free" } },
      { event: "signup", distinct_id: "b", properties: { plan: "pro" } }
    ])
    expect(await stored("signup")).toEqual([
      ["a", "FREE", "zed-signup"],
      ["b", "PRO", "zed-signup"]
    ])

    const rearranged = await send("PATCH", "/zed_functions/rearrange/", { orders: { [rewrite.id]: 1, [drop.id]: 2 } })
    expect(rearranged.status, rearranged.text).toBe(200)
    expect(rearranged.json.map((f: { id: string; execution_order: number }) => [f.id, f.execution_order])).toEqual([
      [rewrite.id, 1],
      [drop.id, 2]
    ])

    // Rewrite first: the drop now sees FREE.
    await capture([
      { event: "upgrade", distinct_id: "c", properties: { plan: "free" } },
      { event: "upgrade", distinct_id: "d", properties: { plan: "pro" } }
    ])
    expect(await stored("upgrade")).toEqual([["d", "PRO", "zed-upgrade"]])

    const dropLogs = await logsOf(`/zed_functions/${drop.id}/logs/`)
    expect(dropLogs.some((l) => l.source === "CONSOLE" && l.message.startsWith("dropping "))).toBe(true)
    expect(dropLogs.some((l) => l.type === "INFO" && l.message.includes("dropped"))).toBe(true)
    const consoleOnly = await logsOf(`/zed_functions/${drop.id}/logs/?type_filter=LOG`)
    expect(consoleOnly.length).toBeGreaterThan(0)
    expect(consoleOnly.every((l) => l.type === "LOG")).toBe(true)

    // Switched off, they change nothing.
    for (const fn of [drop, rewrite])
      expect((await send("PATCH", `/zed_functions/${fn.id}/`, { enabled: false })).status).toBe(200)
    await capture([{ event: "later", distinct_id: "e", properties: { plan: "free" } }])
    expect(await stored("later")).toEqual([["e", "free", null]])
  })

  it("keeps the event when a transformation fails, and logs the failure", async () => {
    const failing = await createFunction({
      type: "transformation",
      name: "Broken",
      code: "throw Error('boom')",
      enabled: true
    })
    await capture([{ event: "kept", distinct_id: "f", properties: { plan: "team" } }])
    expect(await stored("kept")).toEqual([["f", "team", null]])
    const errors = await logsOf(`/zed_functions/${failing.id}/logs/?type_filter=ERROR`)
    expect(errors.length).toBe(1)
    expect(errors[0]!.message).toContain("boom")
    await send("PATCH", `/zed_functions/${failing.id}/`, { deleted: true })
  })

  it("delivers stored events to a webhook, retrying after a 500", async () => {
    const hook = await webhookServer(1)
    try {
      const fn = await createFunction({
        type: "destination",
        name: "Webhook",
        code: DESTINATION,
        enabled: true,
        inputs_schema: [
          { type: "string", key: "url", required: true },
          { type: "string", key: "secret", secret: true }
        ],
        inputs: { url: { value: hook.url }, secret: { value: "s3cret" } },
        filters: { events: [{ id: "purchase", type: "events" }] }
      })
      const shown = await send("GET", `/zed_functions/${fn.id}/`)
      expect(shown.json.inputs.secret).toEqual({ secret: true })
      expect(shown.text).not.toContain("s3cret")

      const batch = [
        { event: "$identify", distinct_id: "g", properties: { $set: { email: "g@example.com" } } },
        { uuid: crypto.randomUUID(), event: "purchase", distinct_id: "g", properties: { plan: "pro" } },
        { event: "pageview", distinct_id: "g", properties: {} }
      ]
      await capture(batch)
      // An SDK's retry of the same request: its events are stored, and delivered, once.
      await capture(batch.slice(1, 2))
      await zed.run(Effect.flatMap(Destinations, (d) => d.idle))
      expect(hook.attempts()).toBe(2)
      expect(hook.received).toHaveLength(1)
      expect(hook.received[0]!.method).toBe("POST")
      expect(hook.received[0]!.headers["x-secret"]).toBe("s3cret")
      expect(hook.received[0]!.body).toEqual({ event: "purchase", plan: "pro", person: "g@example.com" })

      const logs = await logsOf(`/zed_functions/${fn.id}/logs/`)
      expect(logs.some((l) => l.type === "WARN" && l.message.includes("500"))).toBe(true)
      expect(logs.some((l) => l.source === "CONSOLE" && l.message === "delivered with status 200")).toBe(true)
    } finally {
      await hook.close()
    }
  })

  it("runs built-in plugins configured through plugin configs", async () => {
    const configs = await send("GET", "/plugin_configs/")
    expect(configs.status, configs.text).toBe(200)
    const filter = configs.json.results.find((c: { name: string }) => c.name === "Property Filter")
    const patched = await send("PATCH", `/plugin_configs/${filter.id}/`, {
      enabled: true,
      config: { properties: "secret_token,$set.email" }
    })
    expect(patched.status, patched.text).toBe(200)
    await capture([
      {
        event: "filtered",
        distinct_id: "h",
        properties: { plan: "x", secret_token: "abc", $set: { email: "h@example.com", name: "H" } }
      }
    ])
    const res = await postQuery(
      zed,
      1,
      zedqlRequest(
        "SELECT properties.secret_token, properties.plan, person.properties.email, person.properties.name FROM events WHERE event = 'filtered'"
      )
    )
    expect(res.json.results).toEqual([[null, "x", null, "H"]])
    const logs = await logsOf(`/plugin_configs/${filter.id}/logs/`)
    expect(logs[0]!.message).toContain("enabled")
  })
})
