import { chmodSync, mkdirSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { type Credentials, createZed, type Zed } from "@zed/core"
import { DbipGeoIp } from "@zed/geoip"
import { Option } from "effect"
import { type ServerConfig, storageFor } from "./config.js"

export interface Running {
  readonly zed: Zed
  readonly server: Server
  readonly url: string
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

/** Starts Zed as a standalone node:http server. */
export const serve = async (config: ServerConfig, log: (line: string) => void = console.log): Promise<Running> => {
  const zed = await createZed({
    storage: storageFor(config),
    trustProxy: config.trustProxy,
    limits: config.limits,
    ...(config.geoip ? { geoip: DbipGeoIp } : {}),
    bootstrap: {
      projectApiKey: Option.getOrUndefined(config.projectApiKey),
      personalApiKey: Option.getOrUndefined(config.personalApiKey),
      adminEmail: Option.getOrUndefined(config.adminEmail)
    }
  })
  if (zed.bootstrap.created) {
    const { credentials } = zed.bootstrap
    const file = writeCredentials(config.dataDir, credentials)
    log("Zed set up a new install:")
    log(`  project id:        ${credentials.project_id}`)
    log(`  project API key:   ${credentials.project_api_key}`)
    log(`  personal API key:  ${credentials.personal_api_key}  (scope *; stored only as a hash)`)
    log(`  written to ${file}`)
  }
  const server = createServer((req, res) => void zed.nodeHandler(req, res))
  // Keep-alive longer than common proxies' idle timeouts, so they never reuse a closed socket.
  server.keepAliveTimeout = 65_000
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(config.port, config.host, resolve)
  })
  const { port } = server.address() as AddressInfo
  const url = `http://${config.host === "0.0.0.0" ? "127.0.0.1" : config.host}:${port}`
  log(`Zed listening on ${url} (${Option.isSome(config.databaseUrl) ? "PostgreSQL" : `PGlite in ${config.dataDir}`})`)
  return {
    zed,
    server,
    url,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await zed.close()
    }
  }
}
