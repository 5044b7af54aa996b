import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { createServer, request, type Server } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { postgresStorage, temporaryDatabase } from "@zed/postgres"
import type { Browser } from "playwright-core"
import { TEST_SERVER_URL } from "../../postgres/test/server.js"
import { launchChromium, listen } from "./browser.js"

// posthog-js in Chromium against two Zed instances on one PostgreSQL database, behind a balancer
// that alternates between them: each instance keeps the absence of a person it was asked about
// (briefly, as the store is shared), yet an identify followed at once by the SDK's flag reload must
// see the new person's properties, and later reloads must see the stored person.

const PROJECT_KEY = "phc_sdk_flags_balanced_project_01"
const PERSONAL_KEY = "phx_sdk_flags_balanced_personal_01"
const BUNDLE = readFileSync(new URL("../../../node_modules/posthog-js/dist/array.full.js", import.meta.url))

let zeds: ReadonlyArray<Zed> = []
let servers: ReadonlyArray<Server> = []
let browser: Browser
let dropDatabase: () => Promise<void> = async () => {}
let balancerUrl: string
const answeredBy: Array<number> = []

const page = `<!doctype html><html><head><meta charset="utf-8"><title>flags</title><script src="/sdk-test/array.full.js"></script></head>
<body><script>
  posthog.init(${JSON.stringify(PROJECT_KEY)}, {
    api_host: location.origin,
    opt_out_useragent_filter: true,
    autocapture: false,
    capture_pageview: false,
    disable_session_recording: true,
    disable_surveys: true,
    disable_product_tours: true,
    disable_conversations: true
  })
  // Counts flag loads, so the test can wait for the next one.
  window.flagLoads = 0
  posthog.onFeatureFlags(() => window.flagLoads++)
</script></body></html>`

beforeAll(async () => {
  const db = await temporaryDatabase(TEST_SERVER_URL)
  dropDatabase = db.drop
  const first = await createZed({
    storage: postgresStorage({ url: db.url }),
    bootstrap: { projectApiKey: PROJECT_KEY, personalApiKey: PERSONAL_KEY }
  })
  const second = await createZed({ storage: postgresStorage({ url: db.url }), bootstrap: false })
  zeds = [first, second]
  const flag = {
    key: "pro-plan",
    filters: { groups: [{ properties: [{ key: "plan", type: "person", operator: "exact", value: "pro" }] }] }
  }
  const created = await first.handler(
    new Request("http://zed.test/api/projects/1/feature_flags/", {
      method: "POST",
      headers: { authorization: `Bearer ${PERSONAL_KEY}`, "content-type": "application/json" },
      body: JSON.stringify(flag)
    })
  )
  expect(created.status).toBe(201)
  const instances = zeds.map((zed) => createServer((req, res) => void zed.nodeHandler(req, res)))
  const urls = await Promise.all(instances.map(listen))
  let next = 0
  // The balancer serves the page itself and passes everything else to the instances in turn.
  const balancer = createServer((req, res) => {
    if (req.url === "/sdk-test/array.full.js")
      return void res.writeHead(200, { "content-type": "application/javascript" }).end(BUNDLE)
    if (req.url === "/sdk-test/page.html") return void res.writeHead(200, { "content-type": "text/html" }).end(page)
    const target = new URL(req.url ?? "/", urls[next]!)
    if (target.pathname.startsWith("/flags")) answeredBy.push(next)
    next = (next + 1) % urls.length
    req.pipe(
      request(target, { method: req.method, headers: req.headers }, (upstream) => {
        res.writeHead(upstream.statusCode ?? 502, upstream.headers)
        upstream.pipe(res)
      })
    )
  })
  balancerUrl = await listen(balancer)
  servers = [...instances, balancer]
  browser = await launchChromium()
})

afterAll(async () => {
  await browser?.close()
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))))
  for (const zed of zeds) await zed.close()
  await dropDatabase()
})

type Tab = import("playwright-core").Page

const proPlan = (tab: Tab) =>
  tab.evaluate(() => (window as any).posthog.isFeatureEnabled("pro-plan", { send_event: false }))

/** Runs `action` in the page and waits for the flag load it causes. */
const loadAfter = async (tab: Tab, action: (arg: string) => void, arg = "") => {
  const loads: number = await tab.evaluate(() => (window as any).flagLoads)
  await tab.evaluate(action, arg)
  await tab.waitForFunction((n) => (window as any).flagLoads > n, loads, { timeout: 10_000 })
}

const reload = (tab: Tab) => loadAfter(tab, () => (window as any).posthog.reloadFeatureFlags())

describe("posthog-js against two instances behind a balancer", () => {
  it("identify with properties turns a flag on at once, and the stored person keeps it on", async () => {
    const user = `balanced-${randomUUID().slice(0, 8)}`
    const context = await browser.newContext()
    const tab = await context.newPage()
    await tab.goto(`${balancerUrl}/sdk-test/page.html`)
    await tab.waitForFunction(() => (window as any).flagLoads > 0, undefined, { timeout: 10_000 })
    // The anonymous visitor's flags, asked of both instances, which both find no person.
    await reload(tab)
    await reload(tab)
    expect(await proPlan(tab)).toBe(false)

    // Identify sends $identify and reloads flags with the properties it set: the first answer,
    // from whichever instance, has the flag on.
    await loadAfter(tab, (id) => (window as any).posthog.identify(id, { plan: "pro" }), user)
    expect(await proPlan(tab)).toBe(true)
    await context.close()

    // A new visit of the same user, without the properties in the browser: both instances must
    // find the stored person, within the time an absence is trusted.
    const stored = Date.now()
    const again = await browser.newContext()
    const next = await again.newPage()
    await next.goto(`${balancerUrl}/sdk-test/page.html`)
    await next.waitForFunction(() => (window as any).flagLoads > 0, undefined, { timeout: 10_000 })
    await loadAfter(next, (id) => (window as any).posthog.identify(id), user)
    let inARow = (await proPlan(next)) ? 1 : 0
    while (inARow < 2) {
      expect(Date.now() - stored).toBeLessThan(5_000)
      await reload(next)
      inARow = (await proPlan(next)) ? inARow + 1 : 0
    }
    await again.close()
    expect(new Set(answeredBy)).toEqual(new Set([0, 1]))
  })
})
