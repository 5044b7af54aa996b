import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { chromium } from "playwright-core"

// What the browser tests share: Debian's Chromium, headless, kept off the closed network, and
// local servers on free ports.

/** Starts headless Chromium; without the background-networking flags it keeps trying to reach Google. */
export const launchChromium = () =>
  chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"]
  })

/** Listens on a free loopback port and answers the server's base URL. */
export const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}
