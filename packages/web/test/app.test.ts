import { readFile } from "node:fs/promises"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { BrowserContext, Page } from "playwright-core"
import { signIn } from "../../node/test/browser.js"
import {
  ADMIN,
  axeViolations,
  captureData,
  fetchedBy,
  type Harness,
  PROJECT_KEY,
  SESSIONS,
  screenshot,
  startHarness
} from "./harness.js"

// The app in Chromium against a real Zed: what a person does with it, page by page. Sign-in uses
// the accounts API (POST /api/login, session cookie, CSRF token).

let h: Harness
let context: BrowserContext
let page: Page

/** The member the invitation test signs up. */
const MEMBER = { email: "bea@zed.test", password: "a long enough password" }

const RUNAWAY =
  "SELECT count() FROM (SELECT arrayJoin(range(1000000)) AS a) AS x CROSS JOIN (SELECT arrayJoin(range(1000000)) AS b) AS y"

beforeAll(async () => {
  h = await startHarness()
  await captureData(h.root)
  context = await h.browser.newContext({ viewport: { width: 1280, height: 800 } })
  page = await context.newPage()
})
afterAll(async () => {
  await context?.close()
  await h?.close()
})

/** 250 rows, more than one page of Zed's (100 when a query has no LIMIT). */
const DOUBLES = "SELECT a AS number, a * 2 AS double FROM (SELECT arrayJoin(range(250)) AS a) ORDER BY number"

const path = (url: string) => new URL(url).pathname

describe("the web app's sign-in page", () => {
  it("shows /login with at most 250 KB of compressed JavaScript, and no other page's code", async () => {
    const fresh = await h.browser.newContext()
    const visitor = await fresh.newPage()
    const scripts: Array<Promise<{ url: string; bytes: number }>> = []
    visitor.on("requestfinished", (request) => {
      if (request.resourceType() === "script") {
        scripts.push(request.sizes().then((sizes) => ({ url: request.url(), bytes: sizes.responseBodySize })))
      }
    })
    await visitor.goto(`${h.root}/login`)
    await visitor.getByRole("button", { name: "Sign in" }).waitFor()
    const loaded = await Promise.all(scripts)
    const total = loaded.reduce((sum, script) => sum + script.bytes, 0)
    expect(total).toBeGreaterThan(10_000)
    expect(total).toBeLessThanOrEqual(250 * 1024)
    // Route-level splitting: the SQL editor (CodeMirror), charts and other pages are not fetched.
    expect(
      loaded
        .map((script) => path(script.url))
        .filter((url) => /\/(Sql|Chart|Settings|Events|Persons|Insights?|SeriesChart|WorldMapDrawing)-/.test(url))
    ).toEqual([])
    expect(await axeViolations(visitor)).toEqual([])
    await screenshot(visitor, "login")
    await fresh.close()
  })

  it("sends a signed-out visitor to /login, and once signed in to the page they were going to", async () => {
    const fresh = await h.browser.newContext()
    const visitor = await fresh.newPage()
    await visitor.goto(`${h.root}/project/1/persons`)
    await visitor.waitForURL(/\/login/)
    expect(new URL(visitor.url()).searchParams.get("next")).toBe("/project/1/persons")
    // Signed in, the page has its data: the list asked for early while signed out (refused) is asked again.
    await visitor.getByLabel("E-mail").fill(ADMIN.email)
    await visitor.getByLabel("Password").fill(ADMIN.password)
    await visitor.getByRole("button", { name: "Sign in" }).click()
    await visitor.waitForURL(/\/project\/1\/persons$/)
    await visitor.getByRole("link", { name: "grace@example.com" }).waitFor()
    await fresh.close()
  })

  it("refuses a wrong password with the API's message", async () => {
    const fresh = await h.browser.newContext()
    const visitor = await fresh.newPage()
    await visitor.goto(`${h.root}/login`)
    await visitor.getByLabel("E-mail").fill("admin@zed.test")
    await visitor.getByLabel("Password").fill("not the password")
    await visitor.getByRole("button", { name: "Sign in" }).click()
    await expect(visitor.getByRole("alert").textContent()).resolves.toContain("Invalid email or password.")
    await fresh.close()
  })
})

describe("signed in", () => {
  it("signs in and lands on the page asked for", async () => {
    await signIn(page, `${h.root}/project/1/sql`, ADMIN)
    expect(path(page.url())).toBe("/project/1/sql")
    await page.getByRole("navigation", { name: "Main" }).waitFor()
  })

  it("SQL editor: runs a query with Ctrl+Enter and shows typed, virtualized results and a chart", async () => {
    await page.goto(`${h.root}/project/1/sql`)
    const editor = page.locator(".cm-content")
    await editor.click()
    await page.keyboard.press("ControlOrMeta+a")
    await page.keyboard.type("SELECT event, count() AS total FROM events GROUP BY event ORDER BY total DESC, event")
    await page.keyboard.press("Control+Enter")
    const table = page.getByRole("table", { name: "Query results" })
    await table.getByRole("row").nth(2).waitFor()
    const rows = await table.getByRole("row").allInnerTexts()
    expect(rows[0]).toMatch(/event\s+String/)
    expect(rows.slice(1).map((row) => row.replace(/\s+/g, " ").trim())).toEqual([
      "$pageview 3",
      "$identify 2",
      "signed up 1"
    ])
    await expect(page.getByRole("status").filter({ hasText: "rows" }).textContent()).resolves.toContain("3 rows")
    await screenshot(page, "sql")
    await page.getByRole("tab", { name: "Chart" }).click()
    await page.getByRole("img", { name: /bar chart of total/ }).waitFor()
    expect(await axeViolations(page)).toEqual([])
    // The query is in the history, kept across reloads.
    await page.reload()
    await expect(page.getByRole("complementary", { name: "Query history" }).textContent()).resolves.toContain(
      "GROUP BY event"
    )
  })

  it("SQL editor: completes property names, loads long results page by page, downloads CSV, saves an insight", async () => {
    await page.goto(`${h.root}/project/1/sql`)
    await page.locator(".cm-content").click()
    await page.keyboard.press("ControlOrMeta+a")
    await page.keyboard.type("SELECT properties.$pa")
    await page.keyboard.press("Control+Space")
    await page.locator(".cm-tooltip-autocomplete").getByText("$pathname").waitFor()
    await page.keyboard.press("Escape")
    // Person properties too, from the project's property definitions: `plan` was only ever `$set`.
    await page.keyboard.type(", properties.pl")
    await page.keyboard.press("Control+Space")
    await page.locator(".cm-tooltip-autocomplete").getByText("plan", { exact: true }).waitFor()
    await page.keyboard.press("Escape")
    await page.keyboard.press("ControlOrMeta+a")
    await page.keyboard.insertText(DOUBLES)
    await page.keyboard.press("Control+Enter")
    // No LIMIT: Zed answers 100 rows at a time; scrolling to the end fetches the next, "Load more" the one after.
    const status = page.getByRole("status").filter({ hasText: "rows" })
    await expect(status.textContent()).resolves.toBe("100 rows, more as you scroll")
    const table = page.getByRole("table", { name: "Query results" })
    await table.evaluate((element) => element.scrollTo(0, element.scrollHeight))
    await expect.poll(() => status.textContent()).toBe("200 rows, more as you scroll")
    await page.getByRole("button", { name: "Load more" }).click()
    await expect.poll(() => status.textContent()).toBe("250 rows")
    expect(await page.getByRole("button", { name: "Load more" }).count()).toBe(0)
    await table.evaluate((element) => element.scrollTo(0, element.scrollHeight))
    const lastRow = table.getByRole("row").last()
    await expect.poll(() => lastRow.getAttribute("aria-rowindex")).toBe("251")
    expect((await lastRow.innerText()).split(/\s+/)).toEqual(["249", "498"])
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download CSV" }).click()
    ])
    const csv = await readFile((await download.path())!, "utf8")
    // Every row loaded, in order.
    expect(csv).toBe(["number,double", ...Array.from({ length: 250 }, (_, a) => `${a},${a * 2}`), ""].join("\r\n"))
    page.once("dialog", (dialog) => void dialog.accept("Doubles"))
    await page.getByRole("button", { name: "Save as insight" }).click()
    await page.getByText(/Saved as insight/).waitFor()
    const insights = await h.json("/api/projects/1/insights/?limit=100")
    expect(insights.results.find((insight: { name: string }) => insight.name === "Doubles")?.query).toMatchObject({
      kind: "DataVisualizationNode",
      source: { query: DOUBLES }
    })
  })

  it("SQL editor: an error points at its line and column", async () => {
    await page.goto(`${h.root}/project/1/sql`)
    await page.locator(".cm-content").click()
    await page.keyboard.press("ControlOrMeta+a")
    await page.keyboard.type("SELECT event\nFROM events\nWHERE nope = 1")
    await page.getByRole("button", { name: /^Run/ }).click()
    const alert = page.getByRole("alert")
    await alert.waitFor()
    expect(await alert.textContent()).toMatch(/nope.*\(line 3, column 7\)/)
  })

  it("SQL editor: cancels a running query", async () => {
    await page.goto(`${h.root}/project/1/sql`)
    await page.locator(".cm-content").click()
    await page.keyboard.press("ControlOrMeta+a")
    await page.keyboard.insertText(RUNAWAY)
    await page.keyboard.press("Control+Enter")
    await page.getByRole("button", { name: "Cancel" }).click()
    await expect(page.getByRole("alert").textContent()).resolves.toBe("Query cancelled.")
  })

  it("events explorer: the latest events, filtered by name and property, expandable, linked to person and session", async () => {
    await page.goto(`${h.root}/project/1/activity/explore`)
    const events = page.getByRole("list", { name: "Events" })
    await events.getByText("signed up", { exact: true }).waitFor()
    await page.getByLabel("Event", { exact: true }).fill("$pageview")
    await expect
      .poll(() => events.locator(".event-name").allTextContents())
      .toEqual(["$pageview", "$pageview", "$pageview"])
    await page.getByLabel("Property", { exact: true }).fill("$pathname=/docs")
    await expect.poll(() => events.locator("li").count()).toBe(1)
    await events.getByRole("button", { name: "$pageview" }).click()
    expect(await events.locator("pre").textContent()).toContain('"$pathname": "/docs"')
    // The session: a short reference to read, the whole id on hover (and as the link's description), linked to
    // its recording in the player.
    const session = events.getByRole("link", { name: `Session ${SESSIONS.ada.slice(0, 4)}…${SESSIONS.ada.slice(-6)}` })
    expect(await session.getAttribute("title")).toBe(`Recording of session ${SESSIONS.ada}`)
    expect(new URL((await session.getAttribute("href"))!, page.url()).pathname).toBe(
      `/project/1/replay/${SESSIONS.ada}`
    )
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, "events")
    await events.getByRole("link", { name: "ada" }).click()
    await page.waitForURL(/\/project\/1\/person\/ada$/)
  })

  it("events explorer: new events appear without a reload", async () => {
    await page.goto(`${h.root}/project/1/activity/explore`)
    await page.getByLabel("Event", { exact: true }).fill("live one")
    await page.getByText("No events.").waitFor()
    await fetch(`${h.root}/i/v0/e/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ api_key: PROJECT_KEY, event: "live one", distinct_id: "grace", properties: {} })
    })
    await page
      .getByRole("list", { name: "Events" })
      .getByRole("button", { name: "live one" })
      .waitFor({ timeout: 10_000 })
  })

  it("persons: searches, opens a person with properties, distinct ids and events", async () => {
    await page.goto(`${h.root}/project/1/persons`)
    await page.getByRole("link", { name: "grace@example.com" }).waitFor()
    // The list was asked for before the app's code loaded (main.ts's preload, not the page's fetch),
    // and only once: the page took that answer.
    expect(await fetchedBy(page, "/api/projects/1/persons/")).toEqual(["link"])
    await page.getByLabel("Search").fill("ada")
    await expect.poll(() => page.locator("tbody tr").count()).toBe(1)
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, "persons")
    await page.getByRole("link", { name: "ada@example.com" }).click()
    await page.getByRole("heading", { name: "ada@example.com" }).waitFor()
    expect(await page.getByRole("row", { name: /plan/ }).textContent()).toContain("pro")
    await page.getByRole("list", { name: "Events" }).getByText("signed up", { exact: true }).waitFor()
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, "person")
  })

  it("settings: switching recordings on reaches the SDKs' remote config", async () => {
    const decide = async () =>
      (
        await (
          await fetch(`${h.root}/decide/?v=3`, {
            method: "POST",
            body: JSON.stringify({ token: PROJECT_KEY, distinct_id: "x" })
          })
        ).json()
      ).sessionRecording
    expect(await decide()).toBe(false)
    await page.goto(`${h.root}/project/1/settings`)
    const toggle = page.getByLabel("Record sessions")
    await toggle.check()
    await expect.poll(decide).toMatchObject({ endpoint: "/s/" })
    expect(await page.locator("pre.snippet").textContent()).toContain(`api_host: "${h.root}"`)
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, "settings")
  })

  it("settings: personal API keys are created (shown once), rolled and revoked", async () => {
    await page.goto(`${h.root}/project/1/settings`)
    const keys = page.getByRole("region", { name: "Personal API keys" })
    await keys.getByLabel("Label").fill("CI")
    await keys.getByRole("button", { name: "Create key" }).click()
    const secret = (await keys.getByRole("status").locator("code").textContent())!
    expect(secret).toMatch(/^phx_/)
    const created = keys.getByRole("listitem").filter({ hasText: "CI" })
    await created.waitFor()
    expect(await created.textContent()).not.toContain(secret)
    expect((await fetch(`${h.root}/api/projects/`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(
      200
    )
    await created.getByRole("button", { name: "Roll" }).click()
    await expect.poll(async () => keys.getByRole("status").locator("code").textContent()).not.toBe(secret)
    expect((await fetch(`${h.root}/api/projects/`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(
      401
    )
    await created.getByRole("button", { name: "Revoke" }).click()
    await expect.poll(() => created.count()).toBe(0)
  })

  it("settings: an invitation link signs a new member up", async () => {
    await page.goto(`${h.root}/project/1/settings`)
    const members = page.getByRole("region", { name: "Members" })
    await members.getByLabel("E-mail").fill(MEMBER.email)
    await members.getByRole("button", { name: "Invite" }).click()
    const link = (await members.getByRole("listitem").filter({ hasText: MEMBER.email }).locator("code").textContent())!
    expect(link).toMatch(new RegExp(`^${h.root}/signup/`))
    const fresh = await h.browser.newContext()
    const invitee = await fresh.newPage()
    await invitee.goto(link)
    await invitee.getByText(`Signing up as ${MEMBER.email}`).waitFor()
    expect(await axeViolations(invitee)).toEqual([])
    await invitee.getByLabel("First name").fill("Bea")
    await invitee.getByLabel("Password").fill(MEMBER.password)
    await invitee.getByRole("button", { name: "Create account" }).click()
    await invitee.waitForURL(/\/project\/1\/sql$/)
    await invitee.getByRole("button", { name: MEMBER.email }).waitFor()
    await fresh.close()
    await page.reload()
    await members.getByRole("cell", { name: MEMBER.email, exact: true }).waitFor()
  })

  it("a request with the session cookie but without the CSRF token changes nothing", async () => {
    await page.goto(`${h.root}/project/1/settings`)
    await page.locator("pre.snippet").waitFor()
    const before = await h.json("/api/projects/1/")
    // What a forged request can do: send the cookie, but not read it to repeat the token in a header.
    const rename = (withToken: boolean) =>
      page.evaluate(async (withToken) => {
        const token = decodeURIComponent(/zed_csrftoken=([^;]*)/.exec(document.cookie)![1]!)
        const response = await fetch("/api/projects/1/", {
          method: "PATCH",
          credentials: "same-origin",
          headers: { "content-type": "application/json", ...(withToken ? { "x-csrftoken": token } : {}) },
          body: JSON.stringify({ name: "Forged", anonymize_ips: true })
        })
        return response.status
      }, withToken)
    expect(await rename(false)).toBe(403)
    expect(await h.json("/api/projects/1/")).toEqual(before)
    // The same request with the token passes: the cookie is a valid session, only the token was missing.
    expect(await rename(true)).toBe(200)
    expect(await h.json("/api/projects/1/")).toMatchObject({ name: "Forged", anonymize_ips: true })
    await h.json("/api/projects/1/", {
      method: "PATCH",
      body: JSON.stringify({ name: before.name, anonymize_ips: before.anonymize_ips })
    })
  })

  it("a member without rights gets 403: the settings page says so and nothing changes", async () => {
    const fresh = await h.browser.newContext()
    const member = await fresh.newPage()
    await signIn(member, `${h.root}/project/1/settings`, MEMBER)
    const before = await h.json("/api/projects/1/")
    const invitesBefore = await h.json("/api/organizations/@current/invites/")
    const key = member.getByRole("region", { name: "Project API key" })
    await expect(key.getByTestId("api-token").textContent()).resolves.toBe(before.api_token)
    member.once("dialog", (dialog) => void dialog.accept())
    await key.getByRole("button", { name: "Reset key" }).click()
    await expect(key.getByRole("alert").textContent()).resolves.toBe(
      "You must be an organization admin or owner to do this."
    )
    const members = member.getByRole("region", { name: "Members" })
    await members.getByLabel("E-mail").fill("eve@zed.test")
    await members.getByRole("button", { name: "Invite" }).click()
    await expect(members.getByRole("alert").textContent()).resolves.toBe(
      "You must be an organization admin or owner to do this."
    )
    expect(await axeViolations(member)).toEqual([])
    expect((await h.json("/api/projects/1/")).api_token).toBe(before.api_token)
    expect(await h.json("/api/organizations/@current/invites/")).toEqual(invitesBefore)
    expect(await key.getByTestId("api-token").textContent()).toBe(before.api_token)
    await fresh.close()
  })

  it("persons: deletes a person with their events", async () => {
    await page.goto(`${h.root}/project/1/person/grace`)
    await page.getByLabel("Also delete their events").check()
    page.once("dialog", (dialog) => void dialog.accept())
    await page.getByRole("button", { name: "Delete person" }).click()
    await page.waitForURL(/\/project\/1\/persons$/)
    await expect.poll(async () => (await h.json("/api/projects/1/persons/?distinct_id=grace")).results.length).toBe(0)
  })

  it("switches to dark theme and stays usable on a phone", async () => {
    await page.getByRole("button", { name: "admin@zed.test" }).click()
    await page.getByRole("menuitem", { name: "Dark theme" }).click()
    expect(await page.evaluate(() => document.documentElement.dataset["theme"])).toBe("dark")
    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto(`${h.root}/project/1/sql`)
    const width = await page.evaluate(() => document.documentElement.scrollWidth)
    expect(width).toBeLessThanOrEqual(390)
    await screenshot(page, "sql-phone-dark")
    await page.setViewportSize({ width: 1280, height: 800 })
    await page.getByRole("button", { name: "admin@zed.test" }).click()
    await page.getByRole("menuitem", { name: "Light theme" }).click()
  })

  it("switches project from the top bar, and the API remembers it", async () => {
    const second = await h.json("/api/projects/", { method: "POST", body: JSON.stringify({ name: "Second shop" }) })
    await page.goto(`${h.root}/project/1/persons`)
    await page.getByRole("option", { name: "Second shop" }).waitFor({ state: "attached" })
    await page.getByLabel("Project").selectOption({ label: "Second shop" })
    await page.waitForURL(`${h.root}/project/${second.id}/sql`)
    const me = await page.evaluate(async () => (await fetch("/api/users/@me/")).json())
    expect(me.team).toMatchObject({ id: second.id, name: "Second shop" })
    await page.getByLabel("Project").selectOption({ label: "Default project" })
    await page.waitForURL(/\/project\/1\/sql$/)
  })

  it("keyboard: g then p opens persons", async () => {
    await page.goto(`${h.root}/project/1/sql`)
    await page.locator("h1").click()
    await page.keyboard.press("g")
    await page.keyboard.press("p")
    await page.waitForURL(/\/project\/1\/persons$/)
  })

  it("signs out: the session is gone and pages send to /login", async () => {
    await page.getByRole("button", { name: "admin@zed.test" }).click()
    await page.getByRole("menuitem", { name: "Sign out" }).click()
    await page.waitForURL(/\/login/)
    await page.goto(`${h.root}/project/1/sql`)
    await page.waitForURL(/\/login/)
  })
})

describe("under a base path (Express, Zed mounted at /analytics)", () => {
  it("signs in and runs a query, every URL under /analytics", async () => {
    const fresh = await h.browser.newContext()
    const visitor = await fresh.newPage()
    const outside: Array<string> = []
    visitor.on("request", (request) => {
      if (!path(request.url()).startsWith("/analytics/")) outside.push(request.url())
    })
    await signIn(visitor, `${h.mounted}/analytics/project/1/sql`, ADMIN)
    expect(path(visitor.url())).toBe("/analytics/project/1/sql")
    await visitor.getByRole("button", { name: /^Run/ }).click()
    await visitor.getByRole("table", { name: "Query results" }).getByRole("row").nth(1).waitFor()
    await visitor.getByRole("link", { name: "Persons" }).click()
    await visitor.waitForURL(/\/analytics\/project\/1\/persons$/)
    await visitor.getByRole("link", { name: "ada@example.com" }).waitFor()
    expect(outside).toEqual([])
    await fresh.close()
  })
})
