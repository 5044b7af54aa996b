import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { chromium, type Page } from "playwright-core"

// What the browser tests share: Debian's Chromium, headless, kept off the closed network, and
// local servers on free ports.

/** Starts headless Chromium; without the background-networking flags it keeps trying to reach Google. */
export const launchChromium = () =>
  chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync"
    ]
  })

/** Listens on a free loopback port and answers the server's base URL. */
export const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** Calls to a Zed's API with a personal API key: `api` answers the response, `json` its parsed body (failing on an error status). */
export const zedApi = (baseUrl: () => string, personalKey: string) => {
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${baseUrl()}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${personalKey}`, "content-type": "application/json", ...init.headers }
    })
  const json = async (path: string, init?: RequestInit) => {
    const response = await api(path, init)
    const text = await response.text()
    if (!response.ok) throw new Error(`${init?.method ?? "GET"} ${path}: ${response.status} ${text}`)
    return text === "" ? undefined : JSON.parse(text)
  }
  return { api, json }
}

/** Opens the web app's sign-in page at `url` in a fresh browser; answers the URLs it fetched outside `prefix`. */
export const openSignIn = async (url: string, prefix: string) => {
  const browser = await launchChromium()
  try {
    const page = await browser.newPage()
    const outside: Array<string> = []
    page.on("request", (request) => {
      if (!new URL(request.url()).pathname.startsWith(prefix)) outside.push(request.url())
    })
    await page.goto(url)
    await page.getByRole("button", { name: "Sign in" }).waitFor()
    return outside
  } finally {
    await browser.close()
  }
}

/** Signs in through the web app's login page, as a person would, starting from `url`. */
export const signIn = async (page: Page, url: string, credentials: { email: string; password: string }) => {
  await page.goto(url)
  await page.waitForURL(/\/login/)
  await page.getByLabel("E-mail").fill(credentials.email)
  await page.getByLabel("Password").fill(credentials.password)
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.waitForURL((at) => !at.pathname.endsWith("/login"))
}
