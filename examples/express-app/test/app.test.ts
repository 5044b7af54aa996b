import { mkdtempSync, rmSync } from "node:fs"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { pgliteStorage } from "@zed/postgres"
import { launchChromium, openSignIn } from "../../../packages/node/test/browser.js"
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

  it("signs the shop's users in to Zed through the shop's own session", async () => {
    const login = await fetch(`${base}/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "Clerk@Shop.test", name: "Cleo" })
    })
    expect(login.status).toBe(204)
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!
    const asClerk = (path: string, init: RequestInit = {}) =>
      fetch(base + path, { ...init, headers: { cookie, "content-type": "application/json" } })

    const me = await asClerk("/analytics/api/users/@me/")
    expect(me.status).toBe(200)
    expect(await me.json()).toMatchObject({
      email: "clerk@shop.test",
      first_name: "Cleo",
      organization: { membership_level: 1 },
      team: { id: 1 }
    })
    // The shop's session is the shop's to protect: no Zed CSRF token needed, but a member's rights only.
    expect(
      (await asClerk("/analytics/api/projects/1/feature_flags/", { method: "POST", body: '{"key":"from-shop"}' }))
        .status
    ).toBe(201)
    expect((await asClerk("/analytics/api/projects/1/reset_token/", { method: "PATCH" })).status).toBe(403)
    // Signed out of the shop (or never signed in): not signed in to Zed either.
    expect((await fetch(`${base}/analytics/api/users/@me/`)).status).toBe(401)
    expect(
      (await fetch(`${base}/analytics/api/users/@me/`, { headers: { cookie: "shop_session=forged" } })).status
    ).toBe(401)
    const members = await (await call("/analytics/api/organizations/@current/members/")).json()
    expect(members.results.filter((m: { user: { email: string } }) => m.user.email === "clerk@shop.test")).toHaveLength(
      1
    )
  })

  it("opens the web app for a shop user with no second sign-in", async () => {
    const login = await fetch(`${base}/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "owner@shop.test", name: "Olga" })
    })
    const [name, value] = login.headers.get("set-cookie")!.split(";")[0]!.split("=") as [string, string]
    const browser = await launchChromium()
    try {
      const context = await browser.newContext()
      await context.addCookies([{ name, value, url: base }])
      const page = await context.newPage()
      await page.goto(`${base}/analytics/project/1/persons`)
      await page.getByRole("heading", { name: "Persons" }).waitFor()
      expect(new URL(page.url()).pathname).toBe("/analytics/project/1/persons")
      await page.getByRole("button", { name: "owner@shop.test" }).waitFor()
    } finally {
      await browser.close()
    }
  })
})
