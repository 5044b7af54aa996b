import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createZed, type Zed } from "@zed/core"
import { zedMiddleware } from "@zed/express"
import { pgliteStorage } from "@zed/postgres"
import express from "express"
import type { Browser, Page } from "playwright-core"
import { PostHog } from "posthog-node"
import { launchChromium, listen, zedApi } from "../../node/test/browser.js"

// One Zed (PGlite), served at the root of one origin by node:http and under /analytics of another
// by Express; one Chromium. Data comes in through posthog-node, as an app's server would send it.

export const ADMIN = { email: "admin@zed.test", password: "correct horse battery staple" }
export const PERSONAL_KEY = "phx_web_app_test_personal_key_0001"
export const PROJECT_KEY = "phc_web_app_test_project_key_00001"
/** Session ids as posthog-js makes them (UUIDv7). */
export const SESSIONS = { ada: "019ac1f2-7a3b-7c4d-8e5f-a1b2c3d4e5f6", grace: "019ac1f2-9d8e-7f60-9a1b-c2d3e4f5a6b7" }

const modules = new URL("../../../node_modules/", import.meta.url)
const AXE = readFileSync(new URL("axe-core/axe.min.js", modules), "utf8")
const SHOTS = new URL("../../../docs/web/", import.meta.url)

export interface Harness {
  readonly zed: Zed
  readonly root: string
  readonly mounted: string
  readonly browser: Browser
  readonly json: ReturnType<typeof zedApi>["json"]
  readonly close: () => Promise<void>
}

export const startHarness = async (): Promise<Harness> => {
  const dir = mkdtempSync(join(tmpdir(), "zed-web-"))
  const zed = await createZed({
    storage: pgliteStorage({ dataDir: join(dir, "pgdata") }),
    bootstrap: {
      personalApiKey: PERSONAL_KEY,
      projectApiKey: PROJECT_KEY,
      adminEmail: ADMIN.email,
      adminPassword: ADMIN.password
    }
  })
  const plain = createServer((req, res) => void zed.nodeHandler(req, res))
  const host = express()
  host.use("/analytics", zedMiddleware(zed))
  const hosted = createServer(host)
  const servers: Array<Server> = [plain, hosted]
  const root = await listen(plain)
  const mounted = await listen(hosted)
  const browser = await launchChromium()
  return {
    zed,
    root,
    mounted,
    browser,
    json: zedApi(() => root, PERSONAL_KEY).json,
    close: async () => {
      await browser.close()
      for (const server of servers) server.close()
      await zed.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** Events and persons as posthog-node sends them: two identified people, pageviews and a signup. */
export const captureData = async (root: string) => {
  const ph = new PostHog(PROJECT_KEY, { host: root, flushAt: 1, flushInterval: 0 })
  ph.identify({ distinctId: "ada", properties: { email: "ada@example.com", plan: "pro" } })
  ph.identify({ distinctId: "grace", properties: { email: "grace@example.com", plan: "free" } })
  for (const [who, path] of [
    ["ada", "/pricing"],
    ["ada", "/docs"],
    ["grace", "/pricing"]
  ] as const) {
    ph.capture({
      distinctId: who,
      event: "$pageview",
      properties: {
        $current_url: `https://shop.test${path}`,
        $pathname: path,
        $session_id: SESSIONS[who],
        $browser: "Chrome"
      }
    })
  }
  ph.capture({ distinctId: "ada", event: "signed up", properties: { source: "ad", $browser: "Firefox" } })
  await ph.shutdown()
}

/** axe-core's serious and critical violations on the page as it is now. */
export const axeViolations = async (page: Page) => {
  await page.addScriptTag({ content: AXE })
  const violations = await page.evaluate(async () => {
    const result = await (
      window as unknown as {
        axe: {
          run: () => Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: unknown }> }> }>
        }
      }
    ).axe.run()
    return result.violations.map(({ id, impact, nodes }) => ({ id, impact, targets: nodes.map((node) => node.target) }))
  })
  return violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical")
}

/** How the page fetched `pathname` (`"link"`: a preload, `"fetch"`: the app's own call), in order. */
export const fetchedBy = (page: Page, pathname: string) =>
  page.evaluate(
    (path) =>
      performance
        .getEntriesByType("resource")
        .filter((entry) => new URL(entry.name).pathname === path)
        .map((entry) => (entry as PerformanceResourceTiming).initiatorType),
    pathname
  )

/** A screenshot for the tour in docs/web-app.md. */
export const screenshot = async (page: Page, name: string) => {
  mkdirSync(SHOTS, { recursive: true })
  await page.screenshot({ path: new URL(`${name}.png`, SHOTS).pathname })
}

/** Screenshots at the page's width and at a phone's (`<name>-phone`), the page's size restored after. */
export const screenshots = async (page: Page, name: string) => {
  const size = page.viewportSize()
  await screenshot(page, name)
  await page.setViewportSize({ width: 390, height: 844 })
  await screenshot(page, `${name}-phone`)
  if (size !== null) await page.setViewportSize(size)
}
