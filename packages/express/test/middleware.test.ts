import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, memoryStorage, type Zed } from "@zed/core"
import express from "express"
import type { Server } from "node:http"
import { zedMiddleware } from "../src/index.js"

const KEY = "phx_express_adapter_test_key_000001"
let zed: Zed
let server: Server
let base: string

const get = async (path: string, init: RequestInit = {}) => {
  const response = await fetch(base + path, {
    ...init,
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", ...init.headers }
  })
  const text = await response.text()
  return {
    status: response.status,
    text,
    json: (() => {
      try {
        return JSON.parse(text)
      } catch {
        return undefined
      }
    })()
  }
}

beforeAll(async () => {
  zed = await createZed({ storage: memoryStorage(), bootstrap: { personalApiKey: KEY } })
  const app = express()
  app.get("/hello", (_req, res) => void res.send("app route"))
  app.use("/analytics", zedMiddleware(zed))
  const parsed = express.Router()
  parsed.use(express.json())
  parsed.use(zedMiddleware(Promise.resolve(zed)))
  app.use("/parsed", parsed)
  app.use(zedMiddleware(zed))
  app.get("/after", (_req, res) => void res.send("after zed"))
  app.get("/static/site.css", (_req, res) => void res.send("the app's stylesheet"))
  server = app.listen(0)
  await new Promise((resolve) => server.once("listening", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
  await zed.close()
})

describe("Express middleware", () => {
  it("serves Zed under a mount path, with links that keep the mount path", async () => {
    await get("/analytics/api/projects/", { method: "POST", body: '{"name":"Two"}' })
    const page = await get("/analytics/api/projects/?limit=1")
    expect(page.status).toBe(200)
    expect(page.json.next).toBe(`${base}/analytics/api/projects/?limit=1&offset=1`)
  })

  it("leaves the app's own routes alone and passes unknown paths on at the root", async () => {
    expect((await get("/hello")).text).toBe("app route")
    expect((await get("/after")).text).toBe("after zed")
    expect((await get("/api/projects/@current/")).json.id).toBe(1)
  })

  it("shares /static/ with the app: posthog-js's scripts are Zed's, the app's files stay the app's", async () => {
    const css = await get("/static/site.css")
    expect([css.status, css.text]).toEqual([200, "the app's stylesheet"])
    const script = await get("/static/array.js")
    expect(script.status).toBe(200)
    expect(script.text).toContain("posthog")
  })

  it("answers unknown paths under its own mount with its JSON 404", async () => {
    const res = await get("/analytics/nope")
    expect(res.status).toBe(404)
    expect(res.json).toEqual({ type: "invalid_request", code: "not_found", detail: "Not found.", attr: null })
  })

  it("reads bodies that a JSON body parser already consumed", async () => {
    const res = await get("/parsed/api/projects/", {
      method: "POST",
      body: '{"name":"Through express.json","timezone":"Europe/Rome"}'
    })
    expect(res.status).toBe(201)
    expect(res.json).toMatchObject({ name: "Through express.json", timezone: "Europe/Rome" })
    const bad = await get("/parsed/api/projects/", { method: "POST", body: '{"name": 1}' })
    expect(bad.json).toMatchObject({ code: "invalid_input", attr: "name" })
  })
})
