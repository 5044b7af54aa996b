import { createServer, get } from "node:http"
import { brotliDecompressSync, gunzipSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, memoryStorage, type Zed } from "@zed/core"
import { zedMiddleware } from "@zed/express"
import express from "express"
import { listen } from "../../node/test/browser.js"

// The built app as the handler serves it: through node:http at Zed's root, through the Fetch
// handler under a base path (as @zed/next mounts it), under the `web.basePath` option, and
// through Express under its mount path. Needs `npm run build` (the app's build is what is served).

let zed: Zed
let underApp: Zed
let root: string
let mounted: string
const servers: Array<{ close: () => void }> = []

beforeAll(async () => {
  zed = await createZed({ storage: memoryStorage() })
  underApp = await createZed({ storage: memoryStorage(), web: { basePath: "/app" } })
  const plain = createServer((req, res) => void zed.nodeHandler(req, res))
  root = await listen(plain)
  const host = express()
  host.get("/", (_req, res) => void res.json({ app: "host" }))
  host.use("/analytics", zedMiddleware(zed))
  const hosted = createServer(host)
  mounted = await listen(hosted)
  servers.push(plain, hosted)
})
afterAll(async () => {
  for (const server of servers) server.close()
  await zed.close()
  await underApp.close()
})

const metas = (html: string) => ({
  base: /<base href="([^"]*)"/.exec(html)?.[1],
  api: /<meta name="zed-api" content="([^"]*)"/.exec(html)?.[1],
  app: /<meta name="zed-app" content="([^"]*)"/.exec(html)?.[1]
})
const scriptOf = (html: string) => /src="\.\/(assets\/index-[^"]+\.js)"/.exec(html)![1]!

describe("the web app served by Zed's handler", () => {
  it("answers its pages with index.html, never cached, written for Zed's root", async () => {
    for (const path of ["/", "/login", "/signup/abc", "/project/1/sql", "/project/1/person/some%20one"]) {
      const response = await fetch(root + path)
      expect(response.status, path).toBe(200)
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8")
      expect(response.headers.get("cache-control")).toBe("no-cache")
      expect(metas(await response.text())).toEqual({ base: "/", api: "", app: "" })
    }
  })

  it("serves hashed assets pre-compressed by Accept-Encoding, cached for a year", async () => {
    const script = scriptOf(await (await fetch(`${root}/login`)).text())
    const plain = await fetch(`${root}/${script}`, { headers: { "accept-encoding": "identity" } })
    const text = await plain.text()
    expect(plain.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
    expect(plain.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
    expect(plain.headers.get("content-encoding")).toBeNull()
    const raw = (encoding: string) => encoded(new URL(`${root}/${script}`), encoding)
    const br = await raw("gzip, deflate, br")
    expect(br.encoding).toBe("br")
    expect(brotliDecompressSync(br.body).toString()).toBe(text)
    const gzip = await raw("gzip")
    expect(gzip.encoding).toBe("gzip")
    expect(gunzipSync(gzip.body).toString()).toBe(text)
    expect(br.body.length).toBeLessThan(gzip.body.length)
  })

  it("leaves the API's and the SDKs' paths to the API", async () => {
    const missing = await fetch(`${root}/api/nope/`)
    expect(missing.status).toBe(404)
    expect(await missing.json()).toMatchObject({ type: "invalid_request", code: "not_found" })
    expect((await fetch(`${root}/_livez`)).status).toBe(200)
    expect((await fetch(`${root}/static/nope.js`)).status).toBe(404)
    expect((await fetch(`${root}/decide/?v=3`, { method: "POST", body: "{}" })).headers.get("content-type")).toMatch(
      /json/
    )
    expect((await fetch(`${root}/assets/missing.js`)).status).toBe(404)
    expect((await fetch(`${root}/login`, { method: "POST" })).status).not.toBe(200)
    // At Zed's root the app claims only its own pages, so a host app sharing the origin keeps the rest.
    expect((await fetch(`${root}/pricing`)).status).toBe(404)
    expect(zed.serves("/login")).toBe(true)
    expect(zed.serves("/pricing")).toBe(false)
  })

  it("under a base path (the Fetch handler, as @zed/next mounts Zed) points the app and its API there", async () => {
    const response = await zed.handler(new Request("http://x/ingest/project/2/settings"), { basePath: "/ingest" })
    expect(metas(await response.text())).toEqual({ base: "/ingest/", api: "/ingest", app: "/ingest" })
  })

  it("under the web.basePath option claims every path below it", async () => {
    const page = await underApp.handle(request("/app/anything/at/all"))
    expect(page.status).toBe(200)
    expect(metas(String(page.body))).toEqual({ base: "/app/", api: "", app: "/app" })
    expect((await underApp.handle(request("/login"))).status).toBe(404)
  })

  it("through Express under its mount path, beside the host app's routes", async () => {
    expect(await (await fetch(`${mounted}/`)).json()).toEqual({ app: "host" })
    const html = await (await fetch(`${mounted}/analytics/project/1/sql`)).text()
    expect(metas(html)).toEqual({ base: "/analytics/", api: "/analytics", app: "/analytics" })
    expect((await fetch(`${mounted}/analytics/${scriptOf(html)}`)).status).toBe(200)
  })

  it("is left out with web: false", async () => {
    const bare = await createZed({ storage: memoryStorage(), web: false })
    expect((await bare.handle(request("/login"))).status).toBe(404)
    await bare.close()
  })
})

const request = (path: string) => {
  const url = new URL(`http://x${path}`)
  return {
    method: "GET",
    url,
    path,
    header: () => undefined,
    body: async () => new Uint8Array(),
    remoteAddress: undefined
  }
}

/** The bytes as sent, with their encoding: fetch() would decode them. */
const encoded = (url: URL, encoding: string) =>
  new Promise<{ encoding: string | undefined; body: Buffer }>((resolve, reject) => {
    get(url, { headers: { "accept-encoding": encoding } }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () => resolve({ encoding: res.headers["content-encoding"], body: Buffer.concat(chunks) }))
    }).on("error", reject)
  })
