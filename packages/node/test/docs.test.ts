import { readFileSync } from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { openApiDocument, VERSION } from "@zed/core"
import { routes } from "@zed/core/adapter"
import { renderMarkdown } from "../src/openapiMarkdown.js"

const docs = (file: string) => readFileSync(new URL(`../../../docs/${file}`, import.meta.url), "utf8")

describe("API reference in docs/", () => {
  it("is what the route schemas generate (run `npm run docs:api` after changing routes)", () => {
    const doc = openApiDocument(routes, VERSION)
    expect(JSON.parse(docs("openapi.json"))).toEqual(doc)
    expect(docs("api-reference.md")).toBe(renderMarkdown(doc) + "\n")
  })

  it("names every route with its scope", () => {
    const reference = docs("api-reference.md")
    for (const route of routes) {
      for (const path of route.paths) {
        const shown = path.replace(/:(\w+)/g, "{$1}") + (path.startsWith("/api/") ? "/" : "")
        expect(reference).toContain(`### \`${route.method} ${shown}\``)
      }
      if (route.access._tag === "PersonalKey") expect(reference).toContain(`Scope: \`${route.access.scope}\``)
    }
  })
})

describe("version", () => {
  it("reported by the API equals the package's", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../core/package.json", import.meta.url), "utf8"))
    expect(VERSION).toBe(pkg.version)
  })
})
