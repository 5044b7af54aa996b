import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { EventStore } from "@zed/core/storage"
import { Effect } from "effect"
import { pgliteStorage } from "../src/index.js"

// Text the in-memory store takes in its stride but PostgreSQL refuses (NUL, lone surrogates, half an
// emoji) must be made storable before it reaches the database: otherwise the request fails with 503
// on every retry, forever.

const TOKEN = "phc_capture_on_pglite_token_00001"
let zed: Zed
beforeAll(async () => {
  zed = await createZed({ storage: pgliteStorage(), bootstrap: { projectApiKey: TOKEN } })
})
afterAll(() => zed.close())

const send = (body: string) => zed.handler(new Request("http://zed.test/e/", { method: "POST", body }))

describe("capture into PostgreSQL (PGlite)", () => {
  it("stores NUL, lone surrogates and names cut inside an emoji as well-formed text", async () => {
    const long = "a".repeat(199) + "\u{1F600}"
    const bodies = [
      `{"api_key":"${TOKEN}","event":"unset","distinct_id":"d","$unset":["a\\u0000b","\\ud800"]}`,
      JSON.stringify({ api_key: TOKEN, event: long, distinct_id: long }),
      `{"api_key":"${TOKEN}","event":"proto","distinct_id":"d","properties":{"__proto__":{"a":1},"b":"x\\u0000y\\udc00"}}`
    ]
    for (const body of bodies) expect((await send(body)).status).toBe(200)
    const stored = await zed.run(Effect.flatMap(EventStore, (s) => s.list(1, { limit: 10, offset: 0 })))
    expect(stored.map((e) => e.event).sort()).toEqual(["a".repeat(199) + "\uFFFD", "proto", "unset"])
    const proto = stored.find((e) => e.event === "proto")!
    expect(Object.hasOwn(proto.properties, "__proto__")).toBe(true)
    expect(proto.properties["b"]).toBe("x\uFFFDy\uFFFD")
    expect(stored.find((e) => e.event === "unset")!.properties["$unset"]).toEqual(["a\uFFFDb", "\uFFFD"])
  })
})
