import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { gunzipSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { EventStore, GroupStore, PersonStore, type StoredEvent } from "@zed/core/storage"
import { pgliteStorage } from "@zed/postgres"
import { Effect, Option } from "effect"
import type { Browser, Page, Request } from "playwright-core"
import { launchChromium, listen } from "./browser.js"

// posthog-js, the published browser bundle, in headless Chromium against a real Zed: remote config,
// gzip, batching and identify as a real page does them, from another origin and from Zed's own.

const PROJECT_KEY = "phc_sdk_browser_compat_project_01"
const PERSONAL_KEY = "phx_sdk_browser_compat_personal_01"
const modules = new URL("../../../node_modules/", import.meta.url)
const BUNDLE = readFileSync(new URL("posthog-js/dist/array.full.js", modules))
const SDK_VERSION: string = JSON.parse(readFileSync(new URL("posthog-js/package.json", modules), "utf8")).version

let zed: Zed
let zedServer: Server
let pageServer: Server
let browser: Browser
let zedUrl: string
let pageUrl: string

// The test page: loads the bundle with a script tag and initializes it against the api_host in the query.
const page = (title: string) => `<!doctype html>
<html><head><meta charset="utf-8"><title>${title}</title><script src="/sdk-test/array.full.js"></script></head>
<body><h1>${title}</h1><script>
  posthog.init(${JSON.stringify(PROJECT_KEY)}, {
    api_host: new URLSearchParams(location.search).get("api_host"),
    // Headless Chromium says HeadlessChrome and navigator.webdriver: posthog-js would drop every event as a bot's.
    opt_out_useragent_filter: true,
    // Only what the test triggers: no clicks, no recordings, surveys, tours or chat to fetch.
    autocapture: false,
    disable_session_recording: true,
    disable_surveys: true,
    disable_product_tours: true,
    disable_conversations: true,
    request_batching: true,
    request_queue_config: { flush_interval_ms: 250 }
  })
</script></body></html>`

/** Serves the test page and the posthog-js bundle under /sdk-test/; anything else is not handled. */
const servePage = (req: IncomingMessage, res: ServerResponse): boolean => {
  const path = new URL(req.url ?? "/", "http://x").pathname
  if (path === "/sdk-test/array.full.js") {
    res.writeHead(200, { "content-type": "application/javascript", "content-length": BUNDLE.length }).end(BUNDLE)
  } else if (path === "/sdk-test/page.html") {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page("Zed SDK test"))
  } else if (path === "/favicon.ico") {
    res.writeHead(204).end()
  } else {
    return false
  }
  return true
}

beforeAll(async () => {
  zed = await createZed({
    storage: pgliteStorage(),
    bootstrap: { projectApiKey: PROJECT_KEY, personalApiKey: PERSONAL_KEY }
  })
  // Zed's server also serves the page, for the same-origin case.
  zedServer = createServer((req, res) => servePage(req, res) || void zed.nodeHandler(req, res))
  pageServer = createServer((req, res) => servePage(req, res) || res.writeHead(404).end())
  zedUrl = await listen(zedServer)
  pageUrl = await listen(pageServer)
  browser = await launchChromium()
})

afterAll(async () => {
  await browser?.close()
  await Promise.all(
    [zedServer, pageServer].map(
      (server) => new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)))
    )
  )
  await zed?.close()
})

const storedEvents = (): Promise<ReadonlyArray<StoredEvent>> =>
  zed.run(Effect.flatMap(EventStore, (s) => s.list(1, { limit: 1000, offset: 0 })))

/** Polls storage until `done` holds for the events of these distinct ids (oldest first). */
const waitForEvents = async (
  distinctIds: ReadonlyArray<string>,
  done: (events: ReadonlyArray<StoredEvent>) => boolean
) => {
  const deadline = Date.now() + 20_000
  for (;;) {
    const events = (await storedEvents())
      .filter((e) => distinctIds.includes(e.distinct_id))
      .sort((a, b) => a.timestamp.getTime() - b.timestamp.getTime())
    if (done(events)) return events
    if (Date.now() > deadline)
      throw new Error(`events not stored in time; have: ${events.map((e) => `${e.event}@${e.distinct_id}`).join(", ")}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const names = (events: ReadonlyArray<StoredEvent>) => events.map((e) => e.event)

interface Exchange {
  readonly request: Request
  readonly status: number
  readonly headers: Record<string, string>
}

/** Opens the page in a fresh context (fresh storage), recording every request it makes to Zed. */
const openPage = async (origin: string) => {
  const context = await browser.newContext()
  const tab: Page = await context.newPage()
  const exchanges: Array<Exchange> = []
  const failures: Array<string> = []
  const errors: Array<string> = []
  // Feature flags are not implemented yet, but identify() and group() POST /flags/ whatever the remote
  // config's hasFeatureFlags says; Zed answers 404, without CORS headers. Left out here.
  const isFlags = (url: string) => new URL(url).pathname === "/flags/"
  tab.on("response", (response) => {
    if (response.url().startsWith(zedUrl) && !response.url().includes("/sdk-test/") && !isFlags(response.url())) {
      exchanges.push({ request: response.request(), status: response.status(), headers: response.headers() })
    }
  })
  tab.on("requestfailed", (request) => {
    if (!isFlags(request.url())) failures.push(`${request.url()}: ${request.failure()?.errorText}`)
  })
  tab.on("console", (message) => {
    if (
      message.type() === "error" &&
      !isFlags(message.location().url || "http://x/") &&
      !message.text().includes("/flags/")
    ) {
      errors.push(`${message.text()} (${message.location().url})`)
    }
  })
  tab.on("pageerror", (error) => errors.push(String(error)))
  const url = `${origin}/sdk-test/page.html?api_host=${encodeURIComponent(zedUrl)}`
  await tab.goto(url)
  // Remote config arrived (as a script, so CORS allowed it) and was applied before the test captures anything.
  await tab.waitForFunction(
    (token) =>
      (window as any)._POSTHOG_REMOTE_CONFIG?.[token] !== undefined &&
      (window as any).posthog.analyticsDefaultEndpoint === "/i/v0/e/",
    PROJECT_KEY,
    { timeout: 10_000 }
  )
  return { context, tab, url, exchanges, failures, errors }
}

const captureBodies = (exchanges: ReadonlyArray<Exchange>) =>
  exchanges
    .filter((x) => x.request.method() === "POST")
    .map((x) => {
      const body = x.request.postDataBuffer() ?? Buffer.alloc(0)
      return {
        path: new URL(x.request.url()).pathname,
        contentType: x.request.headers()["content-type"],
        gzip: body[0] === 0x1f && body[1] === 0x8b,
        body
      }
    })

const personOf = async (distinctId: string) => {
  const { results } = await zed.run(
    Effect.flatMap(PersonStore, (s) => s.list(1, { distinct_id: distinctId, properties: [], limit: 10, offset: 0 }))
  )
  expect(results).toHaveLength(1)
  return results[0]!
}

const scenario = async (origin: string, user: string) => {
  const started = Date.now()
  const { context, tab, url, exchanges, failures, errors } = await openPage(origin)
  try {
    const anon: string = await tab.evaluate(() => (window as any).posthog.get_distinct_id())
    expect(anon).toMatch(/^[0-9a-f-]{36}$/)
    await tab.evaluate(() =>
      (window as any).posthog.capture("custom event", { plan: "pro", seats: 3, nested: { tags: ["a", "b"] } })
    )
    const anonymous = await waitForEvents(
      [anon],
      (events) => names(events).includes("$pageview") && names(events).includes("custom event")
    )
    expect(names(anonymous).sort()).toEqual(["$pageview", "custom event"])

    for (const event of anonymous) {
      expect(event.distinct_id).toBe(anon)
      expect(event.properties).toMatchObject({
        $current_url: url,
        $lib: "web",
        $lib_version: SDK_VERSION,
        token: PROJECT_KEY
      })
      expect(event.timestamp.getTime()).toBeGreaterThanOrEqual(started - 1_000)
      expect(event.timestamp.getTime()).toBeLessThanOrEqual(Date.now())
    }
    const custom = anonymous.find((e) => e.event === "custom event")!
    expect(custom.properties).toMatchObject({ plan: "pro", seats: 3, nested: { tags: ["a", "b"] } })
    // Before identify, posthog-js sends anonymous events without person processing (person_profiles: identified_only).
    expect(custom.properties["$process_person_profile"]).toBe(false)
    expect(
      await zed.run(
        Effect.flatMap(PersonStore, (s) => s.list(1, { distinct_id: anon, properties: [], limit: 10, offset: 0 }))
      )
    ).toMatchObject({ count: 0 })

    const email = `${user}@example.com`
    const company = `${user}-co`
    await tab.evaluate(([id, mail]) => (window as any).posthog.identify(id, { email: mail }), [user, email])
    await tab.evaluate((key) => (window as any).posthog.group("company", key, { name: "Acme", seats: 12 }), company)
    await tab.evaluate(() => (window as any).posthog.capture("after identify", { step: 2 }))
    const all = await waitForEvents([anon, user], (events) =>
      ["$identify", "$groupidentify", "after identify"].every((name) => names(events).includes(name))
    )
    expect(await tab.evaluate(() => (window as any).posthog.get_distinct_id())).toBe(user)

    const identify = all.find((e) => e.event === "$identify")!
    expect(identify.distinct_id).toBe(user)
    expect(identify.properties).toMatchObject({ $anon_distinct_id: anon, $set: { email } })
    const after = all.find((e) => e.event === "after identify")!
    expect(after).toMatchObject({ distinct_id: user, properties: { step: 2, $current_url: url, $groups: { company } } })
    // The group: created with its properties, and named on the events that follow.
    expect(all.find((e) => e.event === "$groupidentify")!.properties).toMatchObject({
      $group_type: "company",
      $group_key: company,
      $group_set: { name: "Acme", seats: 12 }
    })
    const index = (await zed.run(Effect.flatMap(GroupStore, (s) => s.types(1)))).get("company")!
    expect(after.groups[index]).toBe(company)
    const group = Option.getOrThrow(await zed.run(Effect.flatMap(GroupStore, (s) => s.get(1, index, company))))
    expect(group.properties).toEqual({ name: "Acme", seats: 12 })

    const person = await personOf(user)
    expect([...person.distinct_ids].sort()).toEqual([anon, user].sort())
    expect(person.is_identified).toBe(true)
    expect(person.properties).toMatchObject({ email, $current_url: url, $initial_current_url: url })
    expect((await personOf(anon)).uuid).toBe(person.uuid)
    // Every event, the anonymous ones included, belongs to the identified person now.
    expect(new Set(all.map((e) => e.person_id))).toEqual(new Set([person.uuid]))
    // No duplicates: each event stored once.
    expect(names(all).sort()).toEqual(["$groupidentify", "$identify", "$pageview", "after identify", "custom event"])

    // What went over the wire: config as a script, events gzipped as text/plain, all answered 200.
    const paths = exchanges.map((x) => `${x.request.method()} ${new URL(x.request.url()).pathname} ${x.status}`)
    expect(paths).toContain(`GET /array/${PROJECT_KEY}/config.js 200`)
    expect(
      exchanges.filter((x) => x.status !== 200).map((x) => `${x.request.method()} ${x.request.url()} ${x.status}`)
    ).toEqual([])
    const posts = captureBodies(exchanges)
    expect(posts.length).toBeGreaterThan(0)
    for (const post of posts) {
      expect(["/e/", "/i/v0/e/"]).toContain(post.path)
      expect(post).toMatchObject({ contentType: "text/plain", gzip: true })
    }
    // The events captured after config loaded went to the endpoint the config named.
    const sent = posts.map((post) => ({ path: post.path, payload: JSON.parse(gunzipSync(post.body).toString("utf8")) }))
    const carrying = (name: string) =>
      sent.filter((s) => s.payload.batch.some((e: { event: string }) => e.event === name))
    for (const name of ["custom event", "$identify", "$groupidentify", "after identify"]) {
      expect(carrying(name).map((s) => s.path)).toEqual(["/i/v0/e/"])
    }
    expect(carrying("custom event")[0]!.payload).toMatchObject({ api_key: PROJECT_KEY, sent_at: expect.any(String) })
    expect(failures).toEqual([])
    expect(errors).toEqual([])

    // Leaving the page sends $pageleave as it unloads (posthog-js drains its queue with sendBeacon).
    await tab.goto("about:blank")
    const left = await waitForEvents([user], (events) => names(events).includes("$pageleave"))
    expect(left.filter((e) => e.event === "$pageleave")).toMatchObject([
      { distinct_id: user, person_id: person.uuid, properties: { $current_url: url, $lib: "web" } }
    ])
    return { exchanges, origin: new URL(url).origin }
  } finally {
    await context.close()
  }
}

describe("posthog-js in Chromium against Zed", () => {
  it("from another origin: config, pageview, capture and identify arrive intact, with CORS", async () => {
    const { exchanges, origin } = await scenario(pageUrl, `browser-user-${randomUUID().slice(0, 8)}`)
    expect(origin).not.toBe(new URL(zedUrl).origin)
    // Every answer names the page's origin, or the browser would have refused to read it.
    for (const x of exchanges) expect(x.headers["access-control-allow-origin"]).toBe(origin)
  })

  it("from Zed's own origin: the same, without CORS", async () => {
    const { origin } = await scenario(zedUrl, `browser-same-${randomUUID().slice(0, 8)}`)
    expect(origin).toBe(new URL(zedUrl).origin)
  })
})
