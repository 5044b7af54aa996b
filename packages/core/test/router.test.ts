import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { compile } from "../src/api/router.js"

const router = compile([
  { method: "GET", path: "/api/projects", value: "list" },
  { method: "POST", path: "/api/projects", value: "create" },
  { method: "GET", path: "/api/projects/:project_id", value: "retrieve" },
  { method: "GET", path: "/api/projects/:project_id/query/:id", value: "query-status" },
  { method: "POST", path: "/api/projects/:project_id/query/check_auth_for_async", value: "check" },
  { method: "GET", path: "/_health", value: "health" }
])

describe("router", () => {
  it("matches with and without the trailing slash", () => {
    expect(router.match("GET", "/api/projects")).toMatchObject({ _tag: "Found", value: "list" })
    expect(router.match("GET", "/api/projects/")).toMatchObject({ _tag: "Found", value: "list" })
    expect(router.match("GET", "/_health/")).toMatchObject({ _tag: "Found", value: "health" })
  })

  it("captures and decodes parameters", () => {
    expect(router.match("GET", "/api/projects/%40current/")).toEqual({
      _tag: "Found",
      value: "retrieve",
      params: { project_id: "@current" }
    })
  })

  it("prefers a literal segment; a literal path answers for itself, as DRF's URL patterns do", () => {
    expect(router.match("POST", "/api/projects/1/query/check_auth_for_async/")).toMatchObject({ value: "check" })
    expect(router.match("GET", "/api/projects/1/query/check_auth_for_async/")).toEqual({
      _tag: "MethodNotAllowed",
      allow: ["POST"]
    })
  })

  it("backtracks from a literal segment that leads nowhere to a parameter", () => {
    const nested = compile([
      { method: "GET", path: "/a/b/c", value: "literal" },
      { method: "GET", path: "/a/:x/d", value: "param" }
    ])
    expect(nested.match("GET", "/a/b/d")).toEqual({ _tag: "Found", value: "param", params: { x: "b" } })
    expect(nested.match("GET", "/a/b/c")).toEqual({ _tag: "Found", value: "literal", params: {} })
  })

  it("answers 405 with the allowed methods, HEAD falling back to GET", () => {
    expect(router.match("DELETE", "/api/projects/")).toEqual({ _tag: "MethodNotAllowed", allow: ["GET", "POST"] })
    expect(router.match("HEAD", "/api/projects/")).toMatchObject({ _tag: "Found", value: "list" })
  })

  it("does not match unknown, empty-segment or malformed paths", () => {
    for (const path of ["/nope", "/api/projects/1/extra", "/api//projects", "/api/projects/%E0%A4%A"]) {
      expect(router.match("GET", path)).toEqual({ _tag: "NotFound" })
    }
  })

  it("refuses two routes for the same method and path", () => {
    expect(() =>
      compile([
        { method: "GET", path: "/a/:x", value: 1 },
        { method: "GET", path: "/a/:y/", value: 2 }
      ])
    ).toThrow(/duplicate/)
  })

  it("round-trips any parameter value", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (projectId, id) => {
        const match = router.match(
          "GET",
          `/api/projects/${encodeURIComponent(projectId)}/query/${encodeURIComponent(id)}`
        )
        if (id === "check_auth_for_async") return
        expect(match).toEqual({ _tag: "Found", value: "query-status", params: { project_id: projectId, id } })
      })
    )
  })
})
