import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { createZed } from "@zed/core"
import { UserStore } from "@zed/core/storage"
import { Effect, Option } from "effect"
import { type ServerConfig, storageFor } from "./config.js"

// The CLI manages users and keys through the HTTP API, so one set of rules (roles, scopes, checks)
// holds whichever way it runs. While `zed serve` runs on the data directory (PGlite lets only one
// process open it) the CLI sends its requests to that server, whose address the server records in
// `<data dir>/server.json`, with the admin key of `credentials.json` (or ZED_PERSONAL_API_KEY).
// With no server running, it opens the store itself and answers the same requests in process, as
// the user it acts for: whoever can open the data directory is its operator.

const SERVER_FILE = "server.json"

/** Records where this server listens, for the CLI; removed when the server stops. */
export const recordServer = (dataDir: string, url: string) => {
  mkdirSync(dataDir, { recursive: true })
  const file = join(dataDir, SERVER_FILE)
  writeFileSync(file, JSON.stringify({ url, pid: process.pid }) + "\n", { mode: 0o600 })
  return () => rmSync(file, { force: true })
}

/** The running server's address, if one recorded it and its process is still alive. */
const runningServer = (dataDir: string): string | undefined => {
  const file = join(dataDir, SERVER_FILE)
  if (!existsSync(file)) return undefined
  const { pid, url } = JSON.parse(readFileSync(file, "utf8")) as { url: string; pid: number }
  try {
    process.kill(pid, 0)
    return url
  } catch {
    return undefined
  }
}

const adminKey = (config: ServerConfig): string => {
  if (Option.isSome(config.personalApiKey)) return config.personalApiKey.value
  const file = join(config.dataDir, "credentials.json")
  const key = existsSync(file)
    ? (JSON.parse(readFileSync(file, "utf8")) as { personal_api_key?: string }).personal_api_key
    : undefined
  if (key === undefined)
    throw new Error(`no admin key to call the running server with: set ZED_PERSONAL_API_KEY (${file} has none)`)
  return key
}

export interface ApiReply {
  readonly status: number
  readonly json: any
  readonly headers: Headers
}

export interface ApiClient {
  readonly send: (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<ApiReply>
  /** Whether requests go to a running server (else to Zed in this process). */
  readonly remote: boolean
  readonly close: () => Promise<void>
}

const reply = async (response: Response): Promise<ApiReply> => {
  const text = await response.text()
  return { status: response.status, headers: response.headers, json: text === "" ? undefined : JSON.parse(text) }
}

const init = (method: string, body: unknown, headers: Record<string, string>): RequestInit => ({
  method,
  headers: { "content-type": "application/json", ...headers },
  body: body === undefined ? null : JSON.stringify(body)
})

/**
 * An API client acting as `userEmail` (the first admin when absent): against the running server
 * with the admin key (which speaks only for its owner), or in process.
 */
export const openApi = async (config: ServerConfig, userEmail?: string): Promise<ApiClient> => {
  const url = runningServer(config.dataDir)
  if (url !== undefined) {
    const key = adminKey(config)
    const client: ApiClient = {
      remote: true,
      send: async (method, path, body, headers = {}) =>
        reply(await fetch(url + path, init(method, body, { authorization: `Bearer ${key}`, ...headers }))),
      close: async () => {}
    }
    if (userEmail !== undefined) {
      const me = await client.send("GET", "/api/users/@me/")
      if (me.json?.email !== userEmail.trim().toLowerCase()) {
        throw new Error(
          `a server is running: the CLI acts as the admin key's owner (${me.json?.email}), not ${userEmail}; stop the server to act for another user`
        )
      }
    }
    return client
  }
  let actingAs = ""
  const zed = await createZed({
    storage: storageFor(config),
    bootstrap: false,
    authenticate: async () => ({ email: actingAs })
  })
  const users = await zed.run(
    Effect.flatMap(UserStore, (u) =>
      userEmail === undefined ? u.first : u.findByEmail(userEmail.trim().toLowerCase())
    )
  )
  if (Option.isNone(users)) {
    await zed.close()
    throw new Error(userEmail === undefined ? "no user exists yet; start Zed once first" : `no user ${userEmail}`)
  }
  actingAs = users.value.email
  return {
    remote: false,
    send: async (method, path, body, headers = {}) =>
      reply(await zed.handler(new Request(`http://zed.cli${path}`, init(method, body, headers)))),
    close: () => zed.close()
  }
}

/** The answer's body, or an error saying what the API refused. */
export const expectStatus = (res: ApiReply, status: number, what: string) => {
  if (res.status !== status) {
    throw new Error(`${what}: ${res.status} ${res.json?.detail ?? ""}${res.json?.attr ? ` (${res.json.attr})` : ""}`)
  }
  return res.json
}
