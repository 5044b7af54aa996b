import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { Effect } from "effect"
import { grants, type Scope, scopeObjects } from "../src/domain/scopes.js"
import { type Zed } from "../src/index.js"
import { OrganizationStore, ProjectStore } from "../src/storage.js"
import { ADMIN_KEY, call, issueKey, memoryZed } from "./support.js"

let zed: Zed
beforeAll(async () => {
  zed = await memoryZed()
})
afterAll(() => zed.close())

const errorBody = (type: string, code: string, detail: string | RegExp, attr: string | null = null) => ({
  type,
  code,
  detail: typeof detail === "string" ? detail : expect.stringMatching(detail),
  attr
})

describe("authentication", () => {
  it("401 without a key, naming what is missing", async () => {
    const res = await call(zed, "/api/projects/", { key: null })
    expect(res.status).toBe(401)
    expect(res.json).toEqual(
      errorBody("authentication_error", "not_authenticated", "Authentication credentials were not provided.")
    )
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/)
  })

  it("401 for an unknown key, naming where it was found", async () => {
    expect((await call(zed, "/api/projects/", { key: "phx_nope" })).json).toEqual(
      errorBody(
        "authentication_error",
        "authentication_failed",
        "Personal API key found in request Authorization header is invalid."
      )
    )
    expect((await call(zed, "/api/projects/?personal_api_key=phx_nope", { key: null })).json.detail).toBe(
      "Personal API key found in request query string is invalid."
    )
  })

  it("accepts the key in the query string or the JSON body", async () => {
    expect((await call(zed, `/api/projects/?personal_api_key=${ADMIN_KEY}`, { key: null })).status).toBe(200)
    const res = await call(zed, "/api/projects/", {
      method: "POST",
      key: null,
      body: JSON.stringify({ personal_api_key: ADMIN_KEY, name: "Body key" })
    })
    expect(res.status).toBe(201)
  })
})

describe("scopes", () => {
  it("403 naming the missing scope; write implies read; * grants everything", async () => {
    const insightOnly = await issueKey(zed, ["insight:read"])
    const res = await call(zed, "/api/projects/", { key: insightOnly })
    expect(res.status).toBe(403)
    expect(res.json).toEqual(
      errorBody("authentication_error", "permission_denied", "API key missing required scope 'project:read'")
    )

    const reader = await issueKey(zed, ["project:read"])
    expect((await call(zed, "/api/projects/1/", { key: reader })).status).toBe(200)
    expect((await call(zed, "/api/projects/1/", { key: reader, method: "PATCH", body: "{}" })).json.detail).toBe(
      "API key missing required scope 'project:write'"
    )
    const writer = await issueKey(zed, ["project:write"])
    expect((await call(zed, "/api/projects/1/", { key: writer })).status).toBe(200)
    expect((await call(zed, "/api/projects/1/", { key: writer, method: "PATCH", body: "{}" })).status).toBe(200)
  })

  it("a key limited to some projects sees only those, without learning whether others exist", async () => {
    const other = await call(zed, "/api/projects/", { method: "POST", body: JSON.stringify({ name: "Other" }) })
    const scoped = await issueKey(zed, ["project:write"], [1])
    expect((await call(zed, "/api/projects/1/", { key: scoped })).status).toBe(200)
    const denied = await call(zed, `/api/projects/${other.json.id}/`, { key: scoped })
    const missing = await call(zed, "/api/projects/99999/", { key: scoped })
    expect(denied.status).toBe(403)
    expect(denied.json.detail).toBe(`API key does not have access to the requested project: ID ${other.json.id}.`)
    expect(missing.status).toBe(403)
    expect(missing.json.detail).toBe("API key does not have access to the requested project: ID 99999.")
    const list = await call(zed, "/api/projects/", { key: scoped })
    expect(list.json.results.map((p: { id: number }) => p.id)).toEqual([1])
    expect(list.json.count).toBe(1)
    expect((await call(zed, "/api/projects/", { key: scoped, method: "POST", body: "{}" })).json.detail).toBe(
      "API keys with scoped projects are only supported on project-based endpoints."
    )
  })

  it("a project of another organization looks exactly like one that does not exist", async () => {
    const foreign = await zed.run(
      Effect.gen(function* () {
        const org = yield* (yield* OrganizationStore).create({ name: "Someone else" })
        return yield* (yield* ProjectStore).create({
          organization: org.id,
          name: "Theirs",
          timezone: "UTC",
          api_token: "phc_someone_elses_project_000001"
        })
      })
    )
    const theirs = await call(zed, `/api/projects/${foreign.id}/`)
    const nobody = await call(zed, "/api/projects/987654/")
    expect(theirs.status).toBe(404)
    expect(theirs.json).toEqual(nobody.json)
    const names = (await call(zed, "/api/projects/?limit=1000")).json.results.map((p: { name: string }) => p.name)
    expect(names).not.toContain("Theirs")
  })

  it("grants access exactly when the key's scopes cover the route's", async () => {
    const routes: Array<[string, string, Scope, string | undefined]> = [
      ["GET", "/api/projects/", "project:read", undefined],
      ["GET", "/api/environments/1", "project:read", undefined],
      ["PATCH", "/api/projects/1/", "project:write", "{}"],
      ["POST", "/api/projects/", "project:write", "{}"]
    ]
    const scope = fc
      .tuple(fc.constantFrom("project", "insight", "query", "person"), fc.constantFrom("read", "write"))
      .map(([o, a]) => `${o}:${a}`)
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.oneof(scope, fc.constant("*")), { minLength: 1, maxLength: 3 }),
        fc.constantFrom(...routes),
        async (scopes, [method, path, required, body]) => {
          const key = await issueKey(zed, scopes)
          const res = await call(zed, path, { key, method, body })
          expect(res.status === 403).toBe(!grants(scopes, required))
          expect([200, 201, 403]).toContain(res.status)
        }
      ),
      { numRuns: 40 }
    )
  })

  it("knows every scope object PostHog keys carry, under our names", () => {
    expect(scopeObjects).toContain("zed_function")
    expect(scopeObjects).not.toContain("hog_function")
  })
})

describe("projects", () => {
  it("retrieves by id and @current under both prefixes, with and without the trailing slash", async () => {
    const bodies = await Promise.all(
      [
        "/api/projects/1/",
        "/api/projects/1",
        "/api/environments/1/",
        "/api/environments/1",
        "/api/projects/@current/"
      ].map(async (path) => (await call(zed, path)).json)
    )
    for (const body of bodies) expect(body).toEqual(bodies[0])
    expect(bodies[0]).toMatchObject({ id: 1, project_id: 1, name: "Default project", timezone: "UTC" })
    expect(bodies[0].api_token).toMatch(/^phc_/)
  })

  it("creates projects with their own project API key, and updates name and time zone", async () => {
    const created = await call(zed, "/api/projects/", {
      method: "POST",
      body: JSON.stringify({ name: "Shop", timezone: "Europe/Berlin" })
    })
    expect(created.status).toBe(201)
    expect(created.json).toMatchObject({ name: "Shop", timezone: "Europe/Berlin" })
    const first = (await call(zed, "/api/projects/1/")).json
    expect(created.json.api_token).not.toBe(first.api_token)
    const updated = await call(zed, `/api/environments/${created.json.id}/`, {
      method: "PATCH",
      body: JSON.stringify({ timezone: "Asia/Tokyo" })
    })
    expect(updated.json).toMatchObject({ id: created.json.id, name: "Shop", timezone: "Asia/Tokyo" })
    expect((await call(zed, `/api/projects/${created.json.id}`)).json.timezone).toBe("Asia/Tokyo")
  })

  it("pages through the list with absolute links", async () => {
    for (let i = 0; i < 4; i++)
      await call(zed, "/api/projects/", { method: "POST", body: JSON.stringify({ name: `P${i}` }) })
    const all = (await call(zed, "/api/projects/?limit=1000")).json
    const seen: Array<number> = []
    let next: string | null = "http://zed.test/api/projects/?limit=2"
    while (next !== null) {
      expect(next).toMatch(/^http:\/\/zed\.test\/api\/projects\/\?/)
      const page: { json: { count: number; next: string | null; results: Array<{ id: number }> } } = await call(
        zed,
        next.replace("http://zed.test", "")
      )
      expect(page.json.count).toBe(all.count)
      seen.push(...page.json.results.map((p) => p.id))
      next = page.json.next
    }
    expect(seen).toEqual(all.results.map((p: { id: number }) => p.id))
  })
})

describe("bad input", () => {
  it("400 with a parse_error for malformed JSON", async () => {
    const res = await call(zed, "/api/projects/", { method: "POST", body: "{nope" })
    expect(res.status).toBe(400)
    expect(res.json).toEqual(errorBody("invalid_request", "parse_error", /^JSON parse error - /))
  })

  it("400 naming the field for wrong types, blanks and unknown time zones", async () => {
    expect((await call(zed, "/api/projects/", { method: "POST", body: '{"name": 5}' })).json).toEqual(
      errorBody("validation_error", "invalid_input", "Expected a string, got 5.", "name")
    )
    expect((await call(zed, "/api/projects/1/", { method: "PATCH", body: '{"name": "  "}' })).json).toEqual(
      errorBody("validation_error", "blank", "This field may not be blank.", "name")
    )
    expect(
      (await call(zed, "/api/projects/1/", { method: "PATCH", body: '{"timezone": "Mars/Olympus"}' })).json
    ).toEqual(errorBody("validation_error", "invalid_choice", '"Mars/Olympus" is not a valid choice.', "timezone"))
    expect((await call(zed, "/api/projects/?limit=many")).json).toMatchObject({ code: "invalid_input", attr: "limit" })
  })

  it("415 for a body that is not JSON, 413 for one past the limit", async () => {
    const form = await call(zed, "/api/projects/", {
      method: "POST",
      body: "name=x",
      headers: { "content-type": "application/x-www-form-urlencoded" }
    })
    expect(form.status).toBe(415)
    expect(form.json.code).toBe("unsupported_media_type")
    const huge = await call(zed, "/api/projects/", {
      method: "POST",
      body: JSON.stringify({ name: "x".repeat(21 * 1024 * 1024) })
    })
    expect(huge.status).toBe(413)
    expect(huge.json).toMatchObject({ type: "invalid_request", code: "payload_too_large" })
  })

  it("404 for unknown routes and projects, 405 with Allow for wrong methods", async () => {
    expect((await call(zed, "/api/nothing-here/")).json).toEqual(
      errorBody("invalid_request", "not_found", "Not found.")
    )
    expect((await call(zed, "/api/projects/abc/")).json).toEqual(
      errorBody("invalid_request", "not_found", "Project not found.")
    )
    const res = await call(zed, "/api/projects/1/", { method: "DELETE" })
    expect(res.status).toBe(405)
    expect(res.json).toEqual(errorBody("invalid_request", "method_not_allowed", 'Method "DELETE" not allowed.'))
    expect(res.headers.get("allow")).toBe("GET, PATCH")
  })

  it("never answers 500 to any JSON body, and a rejected write changes nothing", async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.json(), fc.string()), async (body) => {
        const before = (await call(zed, "/api/projects/1/")).json
        const res = await call(zed, "/api/projects/1/", { method: "PATCH", body })
        expect([200, 400]).toContain(res.status)
        if (res.status === 400) {
          expect(Object.keys(res.json).sort()).toEqual(["attr", "code", "detail", "type"])
          expect((await call(zed, "/api/projects/1/")).json).toEqual(before)
        }
      }),
      { numRuns: 150 }
    )
  })
})

describe("meta", () => {
  it("answers the health check without credentials", async () => {
    expect(await call(zed, "/_health", { key: null })).toMatchObject({ status: 200, json: { status: "ok" } })
    expect(await call(zed, "/_livez", { key: null })).toMatchObject({ status: 200, json: { status: "ok" } })
    expect(await call(zed, "/_readyz", { key: null })).toMatchObject({ status: 200, json: { status: "ready" } })
  })

  it("serves the OpenAPI document for every route under both prefixes", async () => {
    const doc = (await call(zed, "/api/schema/", { key: null })).json
    expect(doc.openapi).toBe("3.1.0")
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/_health",
        "/_livez",
        "/_readyz",
        "/api/projects/",
        "/api/projects/{project_id}/",
        "/api/environments/{project_id}/"
      ])
    )
    const patch = doc.paths["/api/environments/{project_id}/"].patch
    expect(patch["x-required-scope"]).toBe("project:write")
    expect(patch.requestBody.content["application/json"].schema.$ref).toBe("#/components/schemas/ProjectUpdate")
    expect(doc.components.schemas.Project.required).toContain("api_token")
  })
})
