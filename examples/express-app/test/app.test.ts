import { mkdtempSync, rmSync } from "node:fs"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { pgliteStorage } from "@zed/postgres"
import { openSignIn } from "../../../packages/node/test/browser.js"
// @ts-expect-error the example is plain JavaScript
import { createApp } from "../app.js"

const KEY = "phx_express_example_key_00000001"
const dir = mkdtempSync(join(tmpdir(), "zed-express-example-"))
let server: Server
let zed: Promise<{ close: () => Promise<void> }>
let base: string

beforeAll(async () => {
  const made = createApp({
    storage: pgliteStorage({ dataDir: join(dir, "pgdata") }),
    bootstrap: { personalApiKey: KEY }
  })
  zed = made.zed
  await zed
  server = made.app.listen(0)
  await new Promise((resolve) => server.once("listening", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
  await (await zed).close()
  rmSync(dir, { recursive: true, force: true })
})

const call = (path: string, init: RequestInit = {}) =>
  fetch(base + path, { ...init, headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" } })

describe("Express example", () => {
  it("keeps the app's own routes", async () => {
    expect(await (await fetch(`${base}/`)).json()).toEqual({ app: "my shop", analytics: "/analytics/api/" })
  })

  it("serves Zed under /analytics on the embedded store, behind the app's JSON body parser", async () => {
    const created = await call("/analytics/api/projects/", {
      method: "POST",
      body: '{"name":"Shop EU","timezone":"Europe/Madrid"}'
    })
    expect(created.status).toBe(201)
    const page = await (await call("/analytics/api/projects/?limit=1")).json()
    expect(page.count).toBe(2)
    expect(page.next).toBe(`${base}/analytics/api/projects/?limit=1&offset=1`)
    const second = await (await call(page.next.slice(base.length))).json()
    expect(second.results[0]).toMatchObject({ name: "Shop EU", timezone: "Europe/Madrid" })
    expect((await call("/analytics/api/projects/", { method: "POST", body: '{"timezone":"Nowhere"}' })).status).toBe(
      400
    )
  })

  it("shows the web app under /analytics, its files and API calls there too", async () => {
    expect(await openSignIn(`${base}/analytics/login`, "/analytics/")).toEqual([])
  })
})
