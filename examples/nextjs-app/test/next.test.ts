import { type ChildProcess, execFile, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { launchChromium, openSignIn, signIn } from "../../../packages/node/test/browser.js"

const app = fileURLToPath(new URL("..", import.meta.url))
const next = join(app, "node_modules", ".bin", "next")
const KEY = "phx_nextjs_example_key_000000001"
const PROJECT_KEY = "phc_nextjs_example_key_000000001"
const ADMIN = { email: "admin@next.test", password: "next example password" }
const dataDir = mkdtempSync(join(tmpdir(), "zed-next-"))
let server: ChildProcess
let base: string

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })

beforeAll(async () => {
  const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" }
  await promisify(execFile)(existsBin(), ["build"], { cwd: app, env, maxBuffer: 64 * 1024 * 1024 })
  const port = await freePort()
  base = `http://127.0.0.1:${port}`
  server = spawn(existsBin(), ["start", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: app,
    env: {
      ...env,
      ZED_DATA_DIR: join(dataDir, "pgdata"),
      ZED_PERSONAL_API_KEY: KEY,
      ZED_PROJECT_API_KEY: PROJECT_KEY,
      ZED_ADMIN_EMAIL: ADMIN.email,
      ZED_ADMIN_PASSWORD: ADMIN.password
    }
  })
  await new Promise<void>((resolve, reject) => {
    let output = ""
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (/Ready in/.test(output)) resolve()
    }
    server.stdout!.on("data", onData)
    server.stderr!.on("data", onData)
    server.once("exit", (code) => reject(new Error(`next start exited with ${code}: ${output}`)))
  })
})

afterAll(async () => {
  if (server && server.exitCode === null) {
    await new Promise((resolve) => {
      server.once("exit", resolve)
      server.kill("SIGTERM")
    })
  }
  rmSync(dataDir, { recursive: true, force: true })
})

// npm installs the example's binaries at the workspace root.
const existsBin = () => next.replace(join("examples", "nextjs-app", "node_modules"), "node_modules")

const call = (path: string, init: RequestInit = {}) =>
  fetch(base + path, { ...init, headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" } })

describe("Next.js example (next build && next start)", () => {
  it("serves the app's own page", async () => {
    expect(await (await fetch(base + "/")).text()).toContain("Zed inside a Next.js app")
  })

  it("serves Zed's API from app/api/[...zed]/route.ts with trailing slashes kept", async () => {
    const current = await call("/api/projects/@current/")
    expect(current.status).toBe(200)
    expect(await current.json()).toMatchObject({ id: 1, api_token: PROJECT_KEY })
    const created = await call("/api/projects/", { method: "POST", body: '{"name":"From Next"}' })
    expect(created.status).toBe(201)
    const page = await (await call("/api/environments/2")).json()
    expect(page.name).toBe("From Next")
    const list = await (await call("/api/projects/?limit=1")).json()
    expect(list.next).toMatch(/\/api\/projects\/\?limit=1&offset=1$/)
  })

  it("serves the SDKs under /ingest from the same Zed: capture, flags and posthog-js's extensions", async () => {
    const event = { event: "from next", distinct_id: "next-user", uuid: crypto.randomUUID() }
    const captured = await fetch(base + "/ingest/batch/", {
      method: "POST",
      body: JSON.stringify({ api_key: PROJECT_KEY, batch: [event] })
    })
    expect(await captured.json()).toEqual({ status: "Ok" })
    const flags = await fetch(base + "/ingest/flags/?v=2", {
      method: "POST",
      body: JSON.stringify({ token: PROJECT_KEY, distinct_id: "next-user" })
    })
    expect(await flags.json()).toMatchObject({ flags: {}, errorsWhileComputingFlags: false })
    const recorder = await fetch(base + "/ingest/static/recorder.js")
    expect(recorder.status).toBe(200)
    expect(recorder.headers.get("content-type")).toMatch(/javascript/)
    const events = await (await call(`/api/environments/1/events/?event=${encodeURIComponent(event.event)}`)).json()
    expect(events.results.map((e: { id: string }) => e.id)).toEqual([event.uuid])
  })

  it("answers errors with Zed's bodies, not Next's", async () => {
    const unauthorized = await fetch(base + "/api/projects/")
    expect(unauthorized.status).toBe(401)
    expect((await unauthorized.json()).code).toBe("not_authenticated")
    const missing = await call("/api/nothing/")
    expect(await missing.json()).toMatchObject({ code: "not_found" })
    expect((await (await fetch(base + "/api/schema/")).json()).openapi).toBe("3.1.0")
  })

  it("signs the app's users in to Zed through the app's own session cookie", async () => {
    const login = await fetch(base + "/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "reader@next.test" })
    })
    expect(login.status).toBe(204)
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!
    const me = await fetch(base + "/api/users/@me/", { headers: { cookie } })
    expect(me.status).toBe(200)
    expect(await me.json()).toMatchObject({ email: "reader@next.test", organization: { membership_level: 1 } })
    const forged = cookie.replace(/\.[^.]+$/, ".forged")
    expect((await fetch(base + "/api/users/@me/", { headers: { cookie: forged } })).status).toBe(401)
  })

  it("shows the web app under /ingest, where the catch-all mounts all of Zed", async () => {
    const index = await fetch(base + "/ingest/project/1/sql")
    expect(index.headers.get("cache-control")).toBe("no-cache")
    expect(await index.text()).toContain('<meta name="zed-api" content="/ingest" />')
    expect(await openSignIn(base + "/ingest/login", "/ingest/")).toEqual([])
  })

  it("signs in to the web app under /ingest and opens its pages with data", async () => {
    const browser = await launchChromium()
    try {
      const page = await browser.newPage()
      await signIn(page, `${base}/ingest/project/1/activity/explore`, ADMIN)
      expect(new URL(page.url()).pathname).toBe("/ingest/project/1/activity/explore")
      // The event the SDK test above sent through /ingest.
      await page.getByRole("list", { name: "Events" }).getByRole("button", { name: "from next" }).waitFor()
      await page.getByRole("link", { name: "Persons" }).click()
      await page.getByRole("heading", { name: "Persons" }).waitFor()
    } finally {
      await browser.close()
    }
  })
})
