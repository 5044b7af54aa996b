import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { uuidv7 } from "@zed/core/storage"
import {
  ADMIN_KEY,
  call,
  importEvents,
  issueKey,
  PROJECT_KEY,
  postQuery,
  zedqlRequest
} from "../../core/test/support.js"
import { backends } from "./backends.js"

// Actions through the API: steps kept as sent with PostHog's defaults filled in, unique names, lists
// by name, soft deletion, and bad input (a regular expression that does not compile) refused. On SQL
// stores, `matchesAction` in ZedQL and an ActionsNode trends series count what the test counts
// itself and what the same filter written by hand in ZedQL counts.

const EMPTY_STEP = {
  event: null,
  url: null,
  url_matching: null,
  text: null,
  text_matching: null,
  href: null,
  href_matching: null,
  selector: null,
  tag_name: null,
  properties: null
}

describe.each(["memory", "pglite", "postgres"])("%s actions", (name) => {
  let zed: Zed
  let cleanup: () => Promise<void>

  beforeAll(async () => {
    const backend = await backends("actions-api")[name]!()
    cleanup = backend.cleanup
    zed = await createZed({
      storage: backend.storage,
      bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY, adminPassword: null }
    })
  })
  afterAll(async () => {
    await zed?.close()
    await cleanup?.()
  })

  const send = (method: string, path: string, body?: unknown, key = ADMIN_KEY, project = 1) =>
    call(zed, `/api/environments/${project}${path}`, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
      key
    })
  const names = async (query = "") =>
    (await send("GET", `/actions/?limit=100${query}`)).json.results.map((a: { name: string }) => a.name)

  const made: Array<string> = []
  const make = async (body: Record<string, unknown>) => {
    const res = await send("POST", "/actions/", body)
    expect(res.status, res.text).toBe(201)
    made.unshift(body["name"] as string)
    return res.json
  }

  it("keeps steps as sent, with every field and URLs matched by contains unless said", async () => {
    const steps = [
      { event: "$pageview", url: "/pricing" },
      { event: "$autocapture", text: "Sign up", href: "^/signup", href_matching: "regex", selector: "button.cta" },
      { event: "purchase", properties: [{ key: "plan", value: "pro", operator: "exact", type: "event" }] },
      { url: "https://shop.test/checkout", url_matching: "exact", tag_name: "a" }
    ]
    const action = await make({ name: "Signed up or bought", description: "Conversion", tags: ["growth"], steps })
    expect(action).toMatchObject({
      name: "Signed up or bought",
      description: "Conversion",
      tags: ["growth"],
      post_to_slack: false,
      deleted: false,
      is_action: true,
      created_by: { email: expect.any(String) }
    })
    expect(action.steps).toEqual(
      steps.map((step) => ({
        ...EMPTY_STEP,
        ...step,
        url_matching: "url_matching" in step ? step.url_matching : "url" in step ? "contains" : null
      }))
    )
    expect((await send("GET", `/actions/${action.id}/`)).json).toEqual(action)
    expect((await call(zed, `/api/projects/1/actions/${action.id}/`)).json).toEqual(action)
  })

  it("lists live actions newest first, by name, and pages", async () => {
    await make({ name: "Visited docs", steps: [{ event: "$pageview", url: "/docs" }] })
    await make({ name: "Clicked buy", steps: [{ event: "$autocapture", text: "Buy" }] })
    expect(await names()).toEqual(made)
    expect(await names("&search=VISITED")).toEqual(made.filter((n) => n.toLowerCase().includes("visited")))
    const page = await send("GET", "/actions/?limit=1&offset=1")
    expect(page.json.count).toBe(made.length)
    expect(page.json.results.map((a: { name: string }) => a.name)).toEqual(made.slice(1, 2))
  })

  it("refuses a regular expression that does not compile, and a name taken", async () => {
    for (const step of [
      { url: "/(unclosed", url_matching: "regex" },
      { text: "[a-", text_matching: "regex" },
      { href: "*start", href_matching: "regex" }
    ]) {
      const res = await send("POST", "/actions/", { name: `Bad ${JSON.stringify(step)}`, steps: [{}, step] })
      expect(res.status, JSON.stringify(step)).toBe(400)
      expect(res.json).toMatchObject({ type: "validation_error", attr: "steps" })
      expect(res.json.detail).toContain("Step 2")
    }
    // The same text matched exactly is no pattern.
    await make({ name: "Literal parenthesis", steps: [{ url: "/(unclosed", url_matching: "exact" }] })
    const taken = await send("POST", "/actions/", { name: "Visited docs" })
    expect(taken.status).toBe(400)
    expect(taken.json.attr).toBe("name")
    expect((await send("POST", "/actions/", { name: " " })).json.attr).toBe("name")
    expect((await send("POST", "/actions/", { name: "x", steps: [{ url_matching: "glob" }] })).status).toBe(400)
    expect(await names()).toEqual(made)
  })

  it("replaces steps, renames, and deletes softly", async () => {
    const [docs] = (await send("GET", "/actions/?search=docs")).json.results
    const changed = await send("PATCH", `/actions/${docs.id}/`, {
      name: "Read docs",
      steps: [{ event: "$pageview", url: "docs", url_matching: "contains" }]
    })
    expect(changed.status, changed.text).toBe(200)
    expect(changed.json.steps).toEqual([{ ...EMPTY_STEP, event: "$pageview", url: "docs", url_matching: "contains" }])
    expect(changed.json.name).toBe("Read docs")
    // Its own name is not taken from itself; another's is.
    expect((await send("PATCH", `/actions/${docs.id}/`, { name: "Read docs" })).status).toBe(200)
    expect((await send("PATCH", `/actions/${docs.id}/`, { name: "Clicked buy" })).json.attr).toBe("name")
    const bad = await send("PATCH", `/actions/${docs.id}/`, { steps: [{ url: "(", url_matching: "regex" }] })
    expect(bad.json.attr).toBe("steps")
    expect((await send("DELETE", `/actions/${docs.id}/`)).status).toBe(405)
    expect((await send("PATCH", `/actions/${docs.id}/`, { deleted: true })).json.deleted).toBe(true)
    expect((await send("GET", `/actions/${docs.id}/`)).status).toBe(404)
    expect(await names()).not.toContain("Read docs")
    // A deleted action's name is free again.
    await make({ name: "Read docs" })
    expect((await send("GET", "/actions/999999/")).status).toBe(404)
  })

  it("needs the action scopes", async () => {
    const reader = await issueKey(zed, ["action:read"])
    expect((await send("GET", "/actions/", undefined, reader)).status).toBe(200)
    expect((await send("POST", "/actions/", { name: "No" }, reader)).status).toBe(403)
    expect((await send("GET", "/actions/", undefined, await issueKey(zed, ["insight:read"]))).status).toBe(403)
  })

  describe.skipIf(name === "memory")("matching events", () => {
    const DAY = 86_400_000
    const now = Date.now()
    const sent = [
      { event: "$pageview", url: "https://shop.test/pricing", daysAgo: 1 },
      { event: "$pageview", url: "https://shop.test/pricing?plan=pro", daysAgo: 2 },
      { event: "$pageview", url: "https://shop.test/docs/start", daysAgo: 2 },
      { event: "$pageview", url: "https://shop.test/docs/Start", daysAgo: 3 },
      { event: "$pageview", url: "https://shop.test/about", daysAgo: 3 },
      { event: "$pageleave", url: "https://shop.test/pricing", daysAgo: 1 },
      { event: "purchase", plan: "pro", daysAgo: 1 },
      { event: "purchase", plan: "free", daysAgo: 4 },
      { event: "purchase", plan: "pro", daysAgo: 40 }
    ]
    // The action, and the same conditions as the test reads them and as ZedQL written by hand.
    const steps = [
      { event: "$pageview", url: "/pricing" },
      { event: "purchase", properties: [{ key: "plan", value: "pro", operator: "exact", type: "event" }] },
      { url: "^https://shop[.]test/docs/[a-z]+$", url_matching: "regex" }
    ]
    const matches = (e: (typeof sent)[number]) =>
      (e.event === "$pageview" && (e.url ?? "").includes("/pricing")) ||
      (e.event === "purchase" && e.plan === "pro") ||
      /^https:\/\/shop[.]test\/docs\/[a-z]+$/.test(e.url ?? "")
    const BY_HAND =
      "(event = '$pageview' AND properties.$current_url LIKE '%/pricing%') OR (event = 'purchase' AND properties.plan = 'pro') OR match(properties.$current_url, '^https://shop[.]test/docs/[a-z]+$')"
    let id: number

    const count = async (where: string) => {
      const res = await postQuery(
        zed,
        1,
        zedqlRequest(`SELECT count() FROM events WHERE ${where}`, { refresh: "force_blocking" })
      )
      expect(res.status, res.text).toBe(200)
      return res.json.results[0][0]
    }

    beforeAll(async () => {
      await importEvents(
        zed,
        PROJECT_KEY,
        sent.map((e, i) => ({
          event: e.event,
          distinct_id: `user-${i}`,
          uuid: uuidv7(),
          timestamp: new Date(now - e.daysAgo * DAY).toISOString(),
          properties: { ...(e.url === undefined ? {} : { $current_url: e.url }), ...(e.plan ? { plan: e.plan } : {}) }
        }))
      )
      id = (await make({ name: "Interested", steps })).id
    })

    it("matchesAction counts the events the steps match, as the same filter written by hand", async () => {
      const expected = sent.filter(matches).length
      expect(expected).toBeGreaterThan(0)
      expect(await count(`matchesAction(${id})`)).toBe(expected)
      expect(await count(BY_HAND)).toBe(expected)
      expect(await count(`NOT matchesAction(${id})`)).toBe(sent.length - expected)
    })

    it("counts an ActionsNode series in trends as ZedQL counts the filter by hand", async () => {
      const insight = await send("POST", "/insights/", {
        name: "Interest",
        query: {
          kind: "InsightVizNode",
          source: {
            kind: "TrendsQuery",
            series: [{ kind: "ActionsNode", id, name: "Interested" }],
            dateRange: { date_from: "-7d" }
          }
        }
      })
      expect(insight.status, insight.text).toBe(201)
      const res = await send("GET", `/insights/${insight.json.id}/?refresh=blocking`)
      expect(res.status, res.text).toBe(200)
      const [series] = res.json.result
      const since = now - 7 * DAY
      const inRange = sent.filter((e) => matches(e) && now - e.daysAgo * DAY >= since).length
      expect(series.count).toBe(inRange)
      expect(series.data.reduce((a: number, b: number) => a + b, 0)).toBe(inRange)
      expect(await count(`(${BY_HAND}) AND timestamp >= now() - INTERVAL 7 DAY`)).toBe(inRange)
      expect(series.action).toMatchObject({ id, type: "actions" })
      expect(series.label).toBe("Interested")
    })

    it("follows a change of steps at once, and refuses what it cannot read", async () => {
      await send("PATCH", `/actions/${id}/`, { steps: [{ event: "purchase" }] })
      expect(await count(`matchesAction(${id})`)).toBe(sent.filter((e) => e.event === "purchase").length)
      const clicked = (
        await make({
          name: "Clicked buy text",
          steps: [{ event: "$autocapture", text: "Bu+y", text_matching: "regex" }]
        })
      ).id
      const refused = await postQuery(
        zed,
        1,
        zedqlRequest(`SELECT count() FROM events WHERE matchesAction(${clicked})`)
      )
      expect(refused.status).toBe(400)
      expect(refused.json.detail).toContain("regular expression on the element's text")
      const unknown = await postQuery(zed, 1, zedqlRequest("SELECT count() FROM events WHERE matchesAction(999999)"))
      expect(unknown.status).toBe(400)
      expect(unknown.json.detail).toContain("no action 999999")
    })

    it("reads the autocaptured element's text, link and tag from the elements chain", async () => {
      const chains = [
        'button.cta:attr__class="cta"nth-child="1"nth-of-type="1"text="Sign up";div.container:nth-child="2"',
        'a.nav:attr__class="nav"attr__href="/signup?ref=nav"href="/signup?ref=nav"nth-child="1"text="Join";nav:nth-child="1"',
        'a:href="/pricing"nth-child="1"text="Sign up now";div:nth-child="1"',
        'span:nth-child="1"text="Say \\"hi\\"";button.x:nth-child="1"',
        'buttonish:nth-child="1"text="x"'
      ]
      await importEvents(
        zed,
        PROJECT_KEY,
        chains.map((chain, i) => ({
          event: "$autocapture",
          distinct_id: `clicker-${i}`,
          uuid: uuidv7(),
          timestamp: new Date(now - DAY).toISOString(),
          properties: { $elements_chain: chain }
        }))
      )
      // The chain as the test reads it: each element's tag and its text and href, unescaped.
      const elements = (chain: string) =>
        chain.split(";").map((element) => ({
          tag: /^[^.:]*/.exec(element)![0],
          attributes: Object.fromEntries(
            [...element.matchAll(/(?:^|[:"])(text|href)="((?:[^"\\]|\\.)*)"/g)].map((m) => [
              m[1],
              m[2]!.replaceAll('\\"', '"')
            ])
          ) as { text?: string; href?: string }
        }))
      const cases: Array<[Record<string, unknown>, (e: ReturnType<typeof elements>[number]) => boolean]> = [
        [{ text: "Sign up" }, (e) => e.attributes.text === "Sign up"],
        [{ text: "Sign up", text_matching: "contains" }, (e) => e.attributes.text?.includes("Sign up") === true],
        [{ href: "/signup", href_matching: "contains" }, (e) => e.attributes.href?.includes("/signup") === true],
        [{ href: "/pricing" }, (e) => e.attributes.href === "/pricing"],
        [{ tag_name: "button" }, (e) => e.tag === "button"],
        [{ text: 'Say "hi"' }, (e) => e.attributes.text === 'Say "hi"']
      ]
      for (const [i, [step, holds]] of cases.entries()) {
        const action = (await make({ name: `Element ${i}`, steps: [{ event: "$autocapture", ...step }] })).id
        const expected = chains.filter((chain) => elements(chain).some(holds)).length
        expect(expected, JSON.stringify(step)).toBeGreaterThan(0)
        expect(await count(`matchesAction(${action})`), JSON.stringify(step)).toBe(expected)
      }
    })
  })
})
