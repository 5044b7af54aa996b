import { chmodSync, mkdirSync, writeFileSync } from "node:fs"
import { createServer, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { type Credentials, createZed, type Zed } from "@zed/core"
import { DbipGeoIp } from "@zed/geoip"
import { Option, Redacted } from "effect"
import { recordServer } from "./apiClient.js"
import { type ServerConfig, storageFor } from "./config.js"

export interface Running {
  readonly zed: Zed
  readonly server: Server
  readonly url: string
  /**
   * Shuts down gracefully: not ready at once, no new connections, requests under way finish (told
   * `Connection: close`), idle keep-alive sockets close, running queries stop; at the grace period's
   * end every connection left is cut. Then storage is flushed and closed.
   */
  readonly close: () => Promise<void>
}

/** Writes the first start's credentials where only this user can read them. */
export const writeCredentials = (dataDir: string, credentials: Credentials): string => {
  mkdirSync(dataDir, { recursive: true })
  const file = join(dataDir, "credentials.json")
  writeFileSync(file, JSON.stringify(credentials, null, 2) + "\n", { mode: 0o600 })
  chmodSync(file, 0o600)
  return file
}

/** The first admin's e-mail and password, from `ZED_ADMIN_EMAIL` and `ZED_ADMIN_PASSWORD` when set. */
export const bootstrapAdmin = (config: ServerConfig) => ({
  adminEmail: Option.getOrUndefined(config.adminEmail),
  adminPassword: Option.getOrUndefined(Option.map(config.adminPassword, Redacted.value))
})

/** Starts Zed as a standalone node:http server. */
export const serve = async (config: ServerConfig, log: (line: string) => void = console.log): Promise<Running> => {
  const zed = await createZed({
    storage: storageFor(config),
    trustProxy: config.trustProxy,
    limits: config.limits,
    shutdownGraceMs: config.shutdownGraceMs,
    ...(config.geoip ? { geoip: DbipGeoIp } : {}),
    bootstrap: {
      projectApiKey: Option.getOrUndefined(config.projectApiKey),
      personalApiKey: Option.getOrUndefined(config.personalApiKey),
      ...bootstrapAdmin(config)
    }
  })
  if (zed.bootstrap.created) {
    const { credentials } = zed.bootstrap
    const file = writeCredentials(config.dataDir, credentials)
    log("Zed set up a new install:")
    log(`  project id:        ${credentials.project_id}`)
    log(`  project API key:   ${credentials.project_api_key}`)
    log(`  personal API key:  ${credentials.personal_api_key}  (scope *; stored only as a hash)`)
    log(`  sign in as:        ${credentials.admin_email}`)
    if (credentials.admin_password !== undefined) {
      log(`  with password:     ${credentials.admin_password}  (generated; change it once signed in)`)
    }
    log(`  written to ${file}`)
  }
  // Responses under way, so that a shutdown can tell their clients not to send more on the connection.
  const underWay = new Set<ServerResponse>()
  let closing = false
  const server = createServer((req, res) => {
    if (closing) res.setHeader("connection", "close")
    underWay.add(res)
    res.once("close", () => underWay.delete(res))
    void zed.nodeHandler(req, res)
  })
  // Keep-alive longer than common proxies' idle timeouts, so they never reuse a closed socket.
  server.keepAliveTimeout = 65_000
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(config.port, config.host, resolve)
  })
  const { port } = server.address() as AddressInfo
  const url = `http://${config.host === "0.0.0.0" ? "127.0.0.1" : config.host}:${port}`
  const forgetServer = recordServer(config.dataDir, url)
  log(`Zed listening on ${url} (${Option.isSome(config.databaseUrl) ? "PostgreSQL" : `PGlite in ${config.dataDir}`})`)
  return {
    zed,
    server,
    url,
    close: async () => {
      if (closing) return zed.close()
      closing = true
      const deadline = Date.now() + config.shutdownGraceMs
      for (const res of underWay) if (!res.headersSent) res.setHeader("connection", "close")
      const zedClosed = zed.close({ graceMs: config.shutdownGraceMs })
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeIdleConnections()
      let timer: NodeJS.Timeout | undefined
      await Promise.race([
        serverClosed,
        new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now()))))
      ])
      clearTimeout(timer)
      // Past the grace period no client keeps Zed up: a half-sent request or a silent socket is cut.
      server.closeAllConnections()
      await zedClosed
      forgetServer()
    }
  }
}
