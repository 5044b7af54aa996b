import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { ADMIN_KEY, call, PROJECT_KEY } from "../../core/test/support.js"
import { backends } from "./backends.js"

// Accounts through HTTP on every store, as the web app uses them: sign-in with the cookies it sets,
// the CSRF header that state-changing requests with the session cookie need, sign-out, throttled
// guessing, the signed-in user, roles, invitations, personal API keys and the project key reset.

const ADMIN_EMAIL = "owner@zed.test"
const ADMIN_PASSWORD = "correct horse battery"

/** A browser's cookie jar for one site: what `Set-Cookie` stores, sent back as `Cookie`. */
class Browser {
  readonly cookies = new Map<string, string>()
  constructor(readonly zed: Zed) {}

  async send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const res = await call(this.zed, path, {
      method,
      key: null,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: {
        ...(this.cookies.size === 0
          ? {}
          : { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ") }),
        ...headers
      }
    })
    for (const set of res.headers.getSetCookie()) {
      const [pair] = set.split(";")
      const [name, value] = pair!.split("=") as [string, string]
      if (/Max-Age=0/.test(set)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    return res
  }

  /** A request as the web app makes it: the CSRF cookie repeated in `X-CSRFToken`. */
  app(method: string, path: string, body?: unknown) {
    return this.send(method, path, body, { "x-csrftoken": this.cookies.get("zed_csrftoken") ?? "" })
  }

  login(email: string, password: string) {
    return this.send("POST", "/api/login", { email, password })
  }
}

describe.each(["memory", "pglite", "postgres"])("%s accounts", (name) => {
  let zed: Zed
  let cleanup: () => Promise<void>

  beforeAll(async () => {
    const backend = await backends(`accounts-${name}`)[name]!()
    cleanup = backend.cleanup
    zed = await createZed({
      storage: backend.storage,
      trustProxy: true,
      bootstrap: {
        personalApiKey: ADMIN_KEY,
        projectApiKey: PROJECT_KEY,
        adminEmail: ADMIN_EMAIL,
        adminPassword: ADMIN_PASSWORD
      }
    })
  })
  afterAll(async () => {
    await zed?.close()
    await cleanup?.()
  })

  const api = (method: string, path: string, body?: unknown, key = ADMIN_KEY) =>
    call(zed, path, { method, key, body: body === undefined ? undefined : JSON.stringify(body) })

  it("signs in with cookies the browser keeps to itself, and signs out", async () => {
    const browser = new Browser(zed)
    const res = await browser.login(ADMIN_EMAIL.toUpperCase(), ADMIN_PASSWORD)
    expect(res.status, res.text).toBe(200)
    expect(res.json).toMatchObject({
      email: ADMIN_EMAIL,
      is_staff: false,
      organization: { name: "Default organization", membership_level: 15 },
      team: { id: 1, api_token: PROJECT_KEY, timezone: "UTC" }
    })
    const [session, csrf] = res.headers.getSetCookie()
    expect(session).toMatch(/^zed_session=[\w-]{40,}; Max-Age=1209600; Path=\/; SameSite=Lax; HttpOnly$/)
    expect(csrf).toMatch(/^zed_csrftoken=[\w-]{40,}; Max-Age=1209600; Path=\/; SameSite=Lax$/)

    const me = await browser.send("GET", "/api/users/@me/")
    expect(me.status).toBe(200)
    expect(me.json.email).toBe(ADMIN_EMAIL)
    expect((await browser.send("GET", "/api/projects/1/feature_flags/")).status).toBe(200)

    const out = await browser.app("POST", "/api/logout")
    expect(out.status).toBe(204)
    expect(out.headers.getSetCookie().every((c) => c.includes("Max-Age=0"))).toBe(true)
    expect(browser.cookies.size).toBe(0)
    expect((await browser.send("GET", "/api/users/@me/")).status).toBe(401)
  })

  it("marks the cookies Secure when the request came over HTTPS through a proxy", async () => {
    const browser = new Browser(zed)
    const res = await browser.send(
      "POST",
      "/api/login",
      { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
      {
        "x-forwarded-proto": "https"
      }
    )
    expect(res.status).toBe(200)
    expect(res.headers.getSetCookie().every((c) => c.endsWith("; Secure"))).toBe(true)
  })

  it("keeps a stolen session useless: the old one ends when the user signs out", async () => {
    const browser = new Browser(zed)
    await browser.login(ADMIN_EMAIL, ADMIN_PASSWORD)
    const stolen = browser.cookies.get("zed_session")!
    await browser.app("POST", "/api/logout")
    const res = await call(zed, "/api/users/@me/", { key: null, headers: { cookie: `zed_session=${stolen}` } })
    expect(res.status).toBe(401)
  })

  it("refuses a wrong password as PostHog does, with nothing set", async () => {
    const res = await new Browser(zed).login(ADMIN_EMAIL, "not the password")
    expect(res.status).toBe(400)
    expect(res.json).toEqual({
      type: "validation_error",
      code: "invalid_credentials",
      detail: "Invalid email or password.",
      attr: null
    })
    expect(res.headers.getSetCookie()).toEqual([])
    const unknown = await new Browser(zed).login("nobody@zed.test", ADMIN_PASSWORD)
    expect(unknown.json.code).toBe("invalid_credentials")
  })

  it("throttles guessing per account and per address, the right password included", async () => {
    const guess = (email: string, password: string, ip: string) =>
      new Browser(zed).send("POST", "/api/login", { email, password }, { "x-forwarded-for": ip })
    // Five failures on one account from five addresses: the sixth try is refused, even when right.
    for (let i = 0; i < 5; i++) expect((await guess("victim@zed.test", "guess", `10.0.0.${i}`)).status).toBe(400)
    const locked = await guess("victim@zed.test", "guess", "10.0.0.99")
    expect(locked.status).toBe(429)
    expect(locked.json).toMatchObject({ code: "throttled", attr: null })
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0)
    // Five failures from one address on five accounts: that address is refused for the admin too.
    for (let i = 0; i < 5; i++) await guess(`spray${i}@zed.test`, "guess", "10.1.1.1")
    expect((await guess(ADMIN_EMAIL, ADMIN_PASSWORD, "10.1.1.1")).status).toBe(429)
    expect((await guess(ADMIN_EMAIL, ADMIN_PASSWORD, "10.1.1.2")).status).toBe(200)
  })

  it("refuses a state-changing request with the session cookie but no CSRF token, changing nothing", async () => {
    const browser = new Browser(zed)
    await browser.login(ADMIN_EMAIL, ADMIN_PASSWORD)
    const forged = { method: "POST", path: "/api/projects/1/feature_flags/", body: { key: "forged-flag" } }
    for (const token of [undefined, "wrong"]) {
      const res = await browser.send(
        forged.method,
        forged.path,
        forged.body,
        token === undefined ? {} : { "x-csrftoken": token }
      )
      expect(res.status).toBe(403)
      expect(res.json).toEqual({
        type: "authentication_error",
        code: "csrf_failed",
        detail: "CSRF token missing or incorrect.",
        attr: null
      })
    }
    const patched = await browser.send("PATCH", "/api/users/@me/", { first_name: "Mallory" })
    expect(patched.status).toBe(403)
    const flags = await api("GET", "/api/projects/1/feature_flags/?search=forged")
    expect(flags.json.results).toEqual([])
    expect((await api("GET", "/api/users/@me/")).json.first_name).toBe("Admin")
    // With the token the same request goes through; a key needs none.
    expect((await browser.app(forged.method, forged.path, forged.body)).status).toBe(201)
    expect((await api("PATCH", "/api/users/@me/", { last_name: "Keyholder" })).status).toBe(200)
  })

  it("updates the signed-in user: names, e-mail, current project, password", async () => {
    const browser = new Browser(zed)
    await browser.login(ADMIN_EMAIL, ADMIN_PASSWORD)
    const other = await api("POST", "/api/projects/", { name: "Second" })
    expect(other.status).toBe(201)
    const res = await browser.app("PATCH", "/api/users/@me/", {
      first_name: "Ada",
      last_name: "Lovelace",
      set_current_team: other.json.id
    })
    expect(res.status, res.text).toBe(200)
    expect(res.json).toMatchObject({
      first_name: "Ada",
      last_name: "Lovelace",
      team: { id: other.json.id, name: "Second" }
    })
    expect((await browser.app("PATCH", "/api/users/@me/", { set_current_team: 999 })).status).toBe(400)
    expect((await browser.app("PATCH", "/api/users/@me/", { email: "not-an-email" })).json.attr).toBe("email")

    const wrong = await browser.app("PATCH", "/api/users/@me/", {
      password: "new password 1",
      current_password: "nope"
    })
    expect(wrong.status).toBe(400)
    expect(wrong.json.attr).toBe("current_password")
    const short = await browser.app("PATCH", "/api/users/@me/", { password: "short", current_password: ADMIN_PASSWORD })
    expect(short.json.code).toBe("password_too_short")

    // Another browser's session ends with the change; this one gets a new session.
    const elsewhere = new Browser(zed)
    await elsewhere.login(ADMIN_EMAIL, ADMIN_PASSWORD)
    const changed = await browser.app("PATCH", "/api/users/@me/", {
      password: "new password 1",
      current_password: ADMIN_PASSWORD
    })
    expect(changed.status, changed.text).toBe(200)
    expect((await elsewhere.send("GET", "/api/users/@me/")).status).toBe(401)
    expect((await browser.send("GET", "/api/users/@me/")).status).toBe(200)
    expect((await new Browser(zed).login(ADMIN_EMAIL, ADMIN_PASSWORD)).status).toBe(400)
    expect((await new Browser(zed).login(ADMIN_EMAIL, "new password 1")).status).toBe(200)
    // Back as it was, for the tests after this one.
    await browser.app("PATCH", "/api/users/@me/", {
      password: ADMIN_PASSWORD,
      current_password: "new password 1",
      set_current_team: 1
    })
  })
})
