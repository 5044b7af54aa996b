import { describe, expect, it } from "@effect/vitest"
import { createZed, type HostAuthenticate, memoryStorage } from "../src/index.js"
import { ADMIN_KEY, call, PROJECT_KEY } from "./support.js"

// `createZed({ authenticate })`: an app that signs its users in itself hands Zed the user of each
// request; Zed finds or makes that user and treats the request as theirs.

const hostZed = (authenticate: HostAuthenticate, authenticatedLevel?: "member" | "admin") =>
  createZed({
    storage: memoryStorage(),
    bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY },
    authenticate,
    authenticatedLevel
  })

/** The host's sign-in of this test: a header naming the user, read through the headers it is given. */
const byHeader: HostAuthenticate = async ({ headers }) => {
  const email = headers.get("X-Host-User")
  return email === null ? undefined : { email, first_name: "Hosted" }
}

describe("host-provided authentication", () => {
  it("makes the host's user a member on first sight, and the same user after", async () => {
    const zed = await hostZed(byHeader)
    const as = (email: string, method = "GET", path = "/api/users/@me/", body?: unknown) =>
      call(zed, path, {
        method,
        key: null,
        headers: { "x-host-user": email },
        body: body === undefined ? undefined : JSON.stringify(body)
      })
    const first = await as("Host@App.test")
    expect(first.status).toBe(200)
    expect(first.json).toMatchObject({
      email: "host@app.test",
      first_name: "Hosted",
      organization: { membership_level: 1 },
      team: { id: 1 }
    })
    expect((await as("host@app.test")).json.id).toBe(first.json.id)
    // No Zed session, so no CSRF token: the host protects its own session.
    expect((await as("host@app.test", "PATCH", "/api/users/@me/", { last_name: "Changed" })).json.last_name).toBe(
      "Changed"
    )
    expect((await as("host@app.test", "PATCH", "/api/projects/1/reset_token/")).status).toBe(403)
    expect((await call(zed, "/api/users/@me/", { key: null })).status).toBe(401)
    // Keys keep working beside it, and speak for their own owner.
    expect((await call(zed, "/api/users/@me/", { headers: { "x-host-user": "host@app.test" } })).json.email).toBe(
      "admin@localhost"
    )
    await zed.close()
  })

  it("brings users in at the level configured, and not users removed from the organization", async () => {
    const zed = await hostZed(byHeader, "admin")
    const admin = await call(zed, "/api/users/@me/", { key: null, headers: { "x-host-user": "lead@app.test" } })
    expect(admin.json.organization.membership_level).toBe(8)
    const removed = await call(zed, `/api/organizations/@current/members/${admin.json.uuid}/`, { method: "DELETE" })
    expect(removed.status).toBe(204)
    expect(
      (await call(zed, "/api/users/@me/", { key: null, headers: { "x-host-user": "lead@app.test" } })).status
    ).toBe(401)
    await zed.close()
  })

  it("reads the host's cookies, and takes no answer (or no e-mail) as nobody", async () => {
    const zed = await hostZed(async ({ cookies }) =>
      cookies["app_session"] === "s3cret"
        ? { email: "cookie@app.test" }
        : cookies["app_session"] === "odd"
          ? ({} as never)
          : undefined
    )
    const me = (cookie: string) => call(zed, "/api/users/@me/", { key: null, headers: { cookie } })
    expect((await me("other=1; app_session=s3cret")).json.email).toBe("cookie@app.test")
    expect((await me("app_session=wrong")).status).toBe(401)
    expect((await me("app_session=odd")).status).toBe(401)
    await zed.close()
  })
})
