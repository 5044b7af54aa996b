import { afterAll, beforeAll, describe, expect, it, vi } from "@effect/vitest"
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
  /** A member signed in through an invitation the admin made, at `level`. */
  const invited = async (email: string, level = 1) => {
    const invite = await api("POST", "/api/organizations/@current/invites/", { target_email: email, level })
    expect(invite.status, invite.text).toBe(201)
    const browser = new Browser(zed)
    const joined = await browser.send("POST", `/api/signup/${invite.json.id}/`, {
      first_name: "Mem",
      password: "member password"
    })
    expect(joined.status, joined.text).toBe(201)
    return { browser, me: joined.json }
  }

  it("invites by link: the invitee sets a password, is signed in, and the link is used up", async () => {
    const admin = new Browser(zed)
    await admin.login(ADMIN_EMAIL, ADMIN_PASSWORD)
    const invite = await admin.app("POST", "/api/organizations/@current/invites/", {
      target_email: "New.Member@zed.test",
      level: 1,
      first_name: "Nia"
    })
    expect(invite.status, invite.text).toBe(201)
    expect(invite.json).toMatchObject({ target_email: "new.member@zed.test", level: 1, is_expired: false })
    expect(invite.json.invite_url).toBe(`/signup/${invite.json.id}`)
    const listed = await admin.send("GET", "/api/organizations/@current/invites/")
    expect(listed.json.results.map((i: { id: string }) => i.id)).toContain(invite.json.id)

    const invitee = new Browser(zed)
    const info = await invitee.send("GET", `/api/signup/${invite.json.id}/`)
    expect(info.json).toEqual({ target_email: "new.member@zed.test", organization_name: "Default organization" })
    const weak = await invitee.send("POST", `/api/signup/${invite.json.id}/`, { first_name: "Nia", password: "short" })
    expect(weak.json.code).toBe("password_too_short")
    const joined = await invitee.send("POST", `/api/signup/${invite.json.id}/`, {
      first_name: "Nia",
      password: "nia's password"
    })
    expect(joined.status, joined.text).toBe(201)
    expect(joined.json).toMatchObject({
      email: "new.member@zed.test",
      organization: { membership_level: 1 },
      team: { id: 1 }
    })
    expect(invitee.cookies.has("zed_session")).toBe(true)
    expect((await invitee.send("GET", "/api/users/@me/")).json.first_name).toBe("Nia")

    expect((await invitee.send("GET", `/api/signup/${invite.json.id}/`)).status).toBe(400)
    expect(
      (
        await new Browser(zed).send("POST", `/api/signup/${invite.json.id}/`, {
          first_name: "X",
          password: "xxxxxxxxxx"
        })
      ).status
    ).toBe(400)
    const members = await admin.send("GET", "/api/organizations/@current/members/")
    expect(members.json.results).toContainEqual(
      expect.objectContaining({
        level: 1,
        user: expect.objectContaining({ email: "new.member@zed.test", first_name: "Nia" })
      })
    )
    const again = await admin.app("POST", "/api/organizations/@current/invites/", {
      target_email: "new.member@zed.test"
    })
    expect(again.json.attr).toBe("target_email")
    const cancelled = await admin.app("POST", "/api/organizations/@current/invites/", {
      target_email: "later@zed.test"
    })
    expect((await admin.app("DELETE", `/api/organizations/@current/invites/${cancelled.json.id}/`)).status).toBe(204)
    expect((await new Browser(zed).send("GET", `/api/signup/${cancelled.json.id}/`)).status).toBe(400)
  })

  it.runIf(name === "memory")("ends a session 14 days after sign-in", async () => {
    const browser = new Browser(zed)
    await browser.login(ADMIN_EMAIL, ADMIN_PASSWORD)
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 14 * 24 * 3600_000 + 60_000 })
    try {
      expect((await browser.send("GET", "/api/users/@me/")).status).toBe(401)
    } finally {
      vi.useRealTimers()
    }
  })

  it.runIf(name === "memory")("expires invitations after 3 days", async () => {
    const invite = await api("POST", "/api/organizations/@current/invites/", { target_email: "slow@zed.test" })
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 3 * 24 * 3600_000 + 60_000 })
    try {
      const res = await new Browser(zed).send("GET", `/api/signup/${invite.json.id}/`)
      expect(res.json).toMatchObject({ code: "expired" })
      const listed = await api("GET", "/api/organizations/@current/invites/")
      expect(listed.json.results.find((i: { id: string }) => i.id === invite.json.id).is_expired).toBe(true)
    } finally {
      vi.useRealTimers()
    }
  })

  it("lets a member work but not manage: 403 on members, invites, organization and project key", async () => {
    const { browser: member, me } = await invited("plain.member@zed.test")
    const admin = (await api("GET", "/api/users/@me/")).json
    expect((await member.send("GET", "/api/projects/1/feature_flags/")).status).toBe(200)
    expect((await member.app("POST", "/api/projects/1/feature_flags/", { key: "member-flag" })).status).toBe(201)
    expect((await member.send("GET", "/api/organizations/@current/members/")).status).toBe(200)
    const refused = [
      await member.app("POST", "/api/organizations/@current/invites/", { target_email: "friend@zed.test" }),
      await member.app("PATCH", `/api/organizations/@current/members/${admin.uuid}/`, { level: 1 }),
      await member.app("DELETE", `/api/organizations/@current/members/${admin.uuid}/`),
      await member.app("PATCH", "/api/organizations/@current/", { name: "Mine now" }),
      await member.app("PATCH", "/api/projects/1/reset_token/"),
      await member.app("POST", "/api/projects/", { name: "Member's" })
    ]
    for (const res of refused) {
      expect(res.status, res.text).toBe(403)
      expect(res.json).toMatchObject({ type: "authentication_error", code: "permission_denied" })
    }
    expect((await api("GET", "/api/organizations/@current/")).json.name).toBe("Default organization")
    // Nor through a key of their own: a key acts with its owner's role.
    const key = await member.app("POST", "/api/personal_api_keys/", { label: "mine", scopes: ["*"] })
    expect(key.status).toBe(201)
    expect(
      (await api("PATCH", `/api/organizations/@current/members/${me.uuid}/`, { level: 8 }, key.json.value)).status
    ).toBe(403)
  })

  it("lets admins change levels up to their own and remove members, whose sessions and keys stop", async () => {
    const { browser: member, me } = await invited("promoted@zed.test")
    const key = (await member.app("POST", "/api/personal_api_keys/", { label: "k", scopes: ["project:read"] })).json
      .value
    const promoted = await api("PATCH", `/api/organizations/@current/members/${me.uuid}/`, { level: 8 })
    expect(promoted.status, promoted.text).toBe(200)
    expect(promoted.json).toMatchObject({ level: 8, user: { email: "promoted@zed.test" } })
    // Now an admin, but not an owner: cannot make owners, nor touch the owner.
    const owner = (await api("GET", "/api/users/@me/")).json
    expect(
      (await member.app("POST", "/api/organizations/@current/invites/", { target_email: "o@zed.test", level: 15 }))
        .status
    ).toBe(403)
    expect((await member.app("PATCH", `/api/organizations/@current/members/${owner.uuid}/`, { level: 1 })).status).toBe(
      403
    )
    expect((await member.app("PATCH", `/api/organizations/@current/members/${me.uuid}/`, { level: 15 })).status).toBe(
      403
    )
    expect((await member.app("PATCH", `/api/organizations/@current/members/${me.uuid}/`, { level: 3 })).status).toBe(
      400
    )
    expect(
      (await member.app("POST", "/api/organizations/@current/invites/", { target_email: "a@zed.test", level: 8 }))
        .status
    ).toBe(201)

    expect((await api("DELETE", `/api/organizations/@current/members/${me.uuid}/`)).status).toBe(204)
    const keys = await api("GET", "/api/personal_api_keys/", undefined, key)
    expect(keys.status).toBe(401)
    expect((await member.send("GET", "/api/users/@me/")).status).toBe(401)
    expect((await api("GET", "/api/projects/1/", undefined, key)).status).toBe(401)
    expect((await new Browser(zed).login("promoted@zed.test", "member password")).status).toBe(400)
    const members = (await api("GET", "/api/organizations/@current/members/")).json.results
    expect(members.map((m: { user: { email: string } }) => m.user.email)).not.toContain("promoted@zed.test")
    expect((await api("DELETE", `/api/organizations/@current/members/${owner.uuid}/`)).status).toBe(403)
    // Invited again, the same address comes back as a member, with none of the old keys.
    const back = await invited("promoted@zed.test")
    expect(back.me).toMatchObject({ id: me.id, organization: { membership_level: 1 } })
    expect((await api("GET", "/api/projects/1/", undefined, key)).status).toBe(401)
  })

  it("manages personal API keys: secret shown once, roll and revoke take effect at once", async () => {
    const browser = new Browser(zed)
    await browser.login(ADMIN_EMAIL, ADMIN_PASSWORD)
    const created = await browser.app("POST", "/api/personal_api_keys/", {
      label: "dashboards",
      scopes: ["insight:read", "project:read"],
      scoped_teams: [1]
    })
    expect(created.status, created.text).toBe(201)
    const { id, value } = created.json
    expect(value).toMatch(/^phx_\w{40,}$/)
    expect(created.json).toMatchObject({
      label: "dashboards",
      scoped_teams: [1],
      mask_value: `phx_...${value.slice(-4)}`
    })
    const listed = await browser.send("GET", "/api/personal_api_keys/")
    expect(listed.status).toBe(200)
    const shown = listed.json.find((k: { id: string }) => k.id === id)
    expect(shown).toMatchObject({
      label: "dashboards",
      scopes: ["insight:read", "project:read"],
      mask_value: `phx_...${value.slice(-4)}`
    })
    expect(listed.text).not.toContain(value)
    expect(shown.value).toBeUndefined()

    expect((await api("GET", "/api/projects/1/insights/", undefined, value)).status).toBe(200)
    expect((await api("POST", "/api/projects/1/feature_flags/", { key: "k" }, value)).status).toBe(403)
    // A limited key may not mint a broader one, nor one for other projects.
    const own = await api("POST", "/api/personal_api_keys/", {
      label: "x",
      scopes: ["user:write", "insight:read"],
      scoped_teams: [1]
    })
    expect(
      (await api("POST", "/api/personal_api_keys/", { label: "wider", scopes: ["*"] }, own.json.value)).status
    ).toBe(403)
    expect(
      (await api("POST", "/api/personal_api_keys/", { label: "all", scopes: ["insight:read"] }, own.json.value)).status
    ).toBe(403)
    expect(
      (await browser.app("POST", "/api/personal_api_keys/", { label: "bad", scopes: ["insight:fly"] })).json
    ).toMatchObject({
      code: "invalid_input",
      attr: "scopes"
    })
    expect(
      (await browser.app("POST", "/api/personal_api_keys/", { label: "bad", scopes: ["*"], scoped_teams: [999] })).json
        .attr
    ).toBe("scoped_teams")

    const patched = await browser.app("PATCH", `/api/personal_api_keys/${id}/`, {
      label: "renamed",
      scopes: ["project:read"]
    })
    expect(patched.json).toMatchObject({ label: "renamed", scopes: ["project:read"], scoped_teams: [1] })
    expect((await api("GET", "/api/projects/1/insights/", undefined, value)).status).toBe(403)

    const rolled = await browser.app("POST", `/api/personal_api_keys/${id}/roll/`)
    expect(rolled.status, rolled.text).toBe(200)
    expect(rolled.json.value).not.toBe(value)
    expect(rolled.json.last_rolled_at).not.toBeNull()
    expect((await api("GET", "/api/projects/1/", undefined, value)).status).toBe(401)
    expect((await api("GET", "/api/projects/1/", undefined, rolled.json.value)).status).toBe(200)

    expect((await browser.app("DELETE", `/api/personal_api_keys/${id}/`)).status).toBe(204)
    expect((await api("GET", "/api/projects/1/", undefined, rolled.json.value)).status).toBe(401)
    expect((await browser.app("DELETE", `/api/personal_api_keys/${id}/`)).status).toBe(404)
    expect((await browser.send("GET", "/api/personal_api_keys/not-a-key/")).status).toBe(404)
  })

  // Last: it changes the project API key the suite started with.
  it("resets the project API key: the old one stops capturing, the new one captures", async () => {
    const capture = (token: string) =>
      call(zed, "/i/v0/e/", {
        method: "POST",
        key: null,
        body: JSON.stringify({ api_key: token, event: "e", distinct_id: "d" })
      })
    expect((await capture(PROJECT_KEY)).status).toBe(200)
    const admin = new Browser(zed)
    await admin.login(ADMIN_EMAIL, ADMIN_PASSWORD)
    const reset = await admin.app("PATCH", "/api/environments/1/reset_token/")
    expect(reset.status, reset.text).toBe(200)
    const token = reset.json.api_token
    expect(token).toMatch(/^phc_/)
    expect(token).not.toBe(PROJECT_KEY)
    expect((await capture(PROJECT_KEY)).status).toBe(401)
    expect((await capture(token)).status).toBe(200)
    expect((await admin.send("GET", "/api/users/@me/")).json.team.api_token).toBe(token)
  })
})
