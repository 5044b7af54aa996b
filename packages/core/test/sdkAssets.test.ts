import { readdirSync, readFileSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { gunzipSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { Zed } from "../src/index.js"
import { call, memoryZed } from "./support.js"

// posthog-js's scripts from Zed's asset paths. The names posthog-js asks for are read from its own
// code (the compiled sources it ships in lib/), so that a newer posthog-js asking for a new
// extension fails here until Zed serves it.

const manifest = createRequire(import.meta.url).resolve("posthog-js/package.json")
const root = dirname(manifest)
const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version: string }

const sources = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sources(path) : name.endsWith(".js") ? [readFileSync(path, "utf8")] : []
  })

const all = (text: string, pattern: RegExp) => [...text.matchAll(pattern)].map((m) => m[1]!)

/** Every name posthog-js passes to its script loader, literally or through its tables of names. */
const requested = () => {
  const code = sources(join(root, "lib", "src")).join("\n")
  return new Set([
    // loadExternalDependency(instance, 'surveys', …) and its optional-call form.
    ...all(code, /loadExternalDependency\)?[^;]{0,200}?,\s*'([a-z0-9-]+)'/g),
    // Web vitals choose their bundle by flavor.
    ...all(code, /'(web-vitals(?:-[a-z-]+)?)'/g),
    // Chat integrations map to their bundles.
    ...all(code, /:\s*'([a-z-]+-integration)'/g),
    // The recorder's bundle unless remote config names another.
    ...all(code, /\|\|\s*'([a-z-]*recorder)'/g)
  ])
}

/** Asked for through other paths: remote config from `/array/<token>/config.js`; the toolbar is PostHog's app, not posthog-js. */
const ELSEWHERE = new Set(["remote-config", "toolbar"])

let zed: Zed
beforeAll(async () => {
  zed = await memoryZed()
})
afterAll(() => zed.close())

describe("posthog-js assets", () => {
  it("serves every script posthog-js loads at run time", async () => {
    const names = requested()
    for (const known of [
      "lazy-recorder",
      "surveys",
      "exception-autocapture",
      "dead-clicks-autocapture",
      "web-vitals-with-attribution-soft-navs",
      "intercom-integration",
      "remote-config",
      "toolbar"
    ]) {
      expect(names, known).toContain(known)
    }
    const missing: Array<string> = []
    for (const name of [...names].filter((n) => !ELSEWHERE.has(n))) {
      const res = await call(zed, `/static/${name}.js?v=${version}`, { key: null })
      if (res.status !== 200) missing.push(`${name} (${res.status})`)
    }
    expect(missing).toEqual([])
  })

  it("answers the package's bytes with a script type, CORS, ETag and a year's cache when versioned", async () => {
    const file = readFileSync(join(root, "dist", "lazy-recorder.js"))
    for (const path of [`/static/lazy-recorder.js?v=${version}`, `/static/${version}/lazy-recorder.js`]) {
      const res = await call(zed, path, { key: null, headers: { origin: "https://shop.example" } })
      expect(res.status, path).toBe(200)
      expect(res.text).toBe(file.toString("utf8"))
      expect(res.headers.get("content-type")).toBe("application/javascript; charset=utf-8")
      expect(res.headers.get("access-control-allow-origin")).toBe("*")
      expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
      expect(res.headers.get("etag")).toMatch(/^"[0-9a-f]{40}"$/)
    }
  })

  it("serves the snippet's array.js unversioned for a day, gzipped when asked, and 304 for a known ETag", async () => {
    const file = readFileSync(join(root, "dist", "array.js"))
    const res = await call(zed, "/static/array.js", { key: null })
    expect(res.status).toBe(200)
    expect(res.headers.get("cache-control")).toBe("public, max-age=86400")
    expect(res.text).toBe(file.toString("utf8"))
    const etag = res.headers.get("etag")!

    const response = await zed.handler(
      new Request("http://zed.test/static/array.js", { headers: { "accept-encoding": "gzip, br" } })
    )
    expect(response.headers.get("content-encoding")).toBe("gzip")
    expect(response.headers.get("vary")).toBe("Accept-Encoding")
    expect(gunzipSync(Buffer.from(await response.arrayBuffer()))).toEqual(file)

    const again = await call(zed, "/static/array.js", { key: null, headers: { "if-none-match": etag } })
    expect(again.status).toBe(304)
    expect(again.text).toBe("")
    expect(again.headers.get("etag")).toBe(etag)
  })

  it("claims only posthog-js's files under /static/, so an app mounting Zed at its root keeps its own", () => {
    expect(zed.serves("/static/lazy-recorder.js")).toBe(true)
    expect(zed.serves(`/static/${version}/surveys.js`)).toBe(true)
    expect(zed.serves("/static/site.css")).toBe(false)
    expect(zed.serves("/static/0.0.1/surveys.js")).toBe(false)
    expect(zed.serves("/batch/")).toBe(true)
  })

  it("answers 404 for names posthog-js does not ship, paths outside dist/ and versions other than the one served", async () => {
    for (const path of [
      "/static/nope.js",
      "/static/..%2Fpackage.json",
      "/static/%2E%2E%2Flib%2Fsrc%2Fconstants.js",
      "/static/LICENSE",
      "/static/0.0.1/lazy-recorder.js",
      `/static/${version}/nope.js`
    ]) {
      const res = await call(zed, path, { key: null })
      expect(res.status, path).toBe(404)
      expect(res.json).toMatchObject({ type: "invalid_request", code: "not_found" })
    }
  })
})
