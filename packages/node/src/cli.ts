import { once } from "node:events"
import { createReadStream, createWriteStream, writeFileSync } from "node:fs"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { parseArgs } from "node:util"
import { migrateEvents } from "@zed/clickhouse"
import {
  createZed,
  DEFAULT_DEMO_DAYS,
  DEFAULT_DEMO_SEED,
  DEFAULT_LIMITS,
  exportProjectTo,
  generatePassword,
  importProjectFrom,
  loadDemoData,
  openApiDocument,
  VERSION
} from "@zed/core"
import { routes } from "@zed/core/adapter"
import { leanWasmCompilation, pgliteClient, postgresClient } from "@zed/postgres"
import { Effect, Layer, Option } from "effect"
import { type ApiClient, expectStatus, openApi } from "./apiClient.js"
import { clickhouseFor, loadConfig, type ServerConfig, storageFor } from "./config.js"
import { badDatabaseUrl, databaseHint } from "./databaseHints.js"
import { renderMarkdown } from "./openapiMarkdown.js"
import { bootstrapAdmin, serve, writeCredentials } from "./serve.js"

const usage = `Usage:
  zed serve                                   start the server (PORT, ZED_DATA_DIR, DATABASE_URL, …)
  zed keys create --scopes <a:read,b:write|*> [--project <id>]… [--label <text>] [--user <email>]
                                              issue a personal API key (printed once)
  zed users list                              the organization's users and their levels
  zed users create --email <email> [--first-name <name>] [--level member|admin|owner] [--password <pw>]
                                              add a user (a password is generated and printed when not given)
  zed users reset-password --email <email> [--password <pw>]
                                              set a user's password (generated and printed when not given)
                                              These talk to the running server (ZED_DATA_DIR/server.json, admin key
                                              from credentials.json or ZED_PERSONAL_API_KEY), or open the store when none runs
  zed openapi [--json <file>] [--markdown <file>]
                                              write the API reference (stdout when no file is given)
  zed demo --events <n> [--seed <n>] [--end <YYYY-MM-DD>] [--project <id>]
                                              load generated demo events (${DEFAULT_DEMO_DAYS} days up to --end, default today UTC)
  zed export [--project <id>] [--output <file>]
                                              write a whole project (default 1) in the transfer format, to stdout
                                              when no file is given (see docs/operations.md)
  zed import [--input <file>] [--project <id>]
                                              read a transfer stream (stdin when no file is given) into a new
                                              project, or into project --project; events keep their uuids
  zed migrate-events [--batch-size <n>]       copy events, persons and groups from Postgres to ClickHouse (CLICKHOUSE_URL
                                              or ZED_EVENTS=chdb) with Zed stopped; run it again to resume`

const commands: Record<string, (args: Array<string>) => Promise<void>> = {
  serve: async () => {
    leanWasmCompilation()
    const config = await loadConfig()
    const running = await onDatabase(config, () => serve(config))
    const stop = (signal: string) => {
      console.error(`${signal}: shutting down (up to ${config.shutdownGraceMs} ms for requests under way)`)
      // Should closing storage itself hang, the process still ends.
      setTimeout(() => {
        console.error("storage did not close in time; exiting")
        process.exit(1)
      }, config.shutdownGraceMs + DEFAULT_LIMITS.storageTimeoutMs).unref()
      void running.close().then(
        () => process.exit(0),
        (error) => {
          console.error(`zed serve: ${(error as Error).message}`)
          process.exit(1)
        }
      )
    }
    process.once("SIGINT", stop)
    process.once("SIGTERM", stop)
  },

  keys: async (args) => {
    const { positionals, values } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        scopes: { type: "string" },
        project: { type: "string", multiple: true },
        label: { type: "string" },
        user: { type: "string" }
      }
    })
    if (positionals[0] !== "create" || values.scopes === undefined) throw new UsageError()
    const projects = values.project
      ?.flatMap((p) => p.split(","))
      .map((p) => {
        if (!/^\d+$/.test(p)) throw new UsageError(`--project takes project ids, not "${p}"`)
        return Number(p)
      })
    const scopes = values.scopes
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "")
    await withApi(values.user, async (api) => {
      const key = expectStatus(
        await api.send("POST", "/api/personal_api_keys/", {
          label: (values.label ?? "cli").slice(0, 40),
          scopes,
          scoped_teams: projects ?? null
        }),
        201,
        "key refused"
      )
      console.log(key.value)
      console.error(
        `scopes ${key.scopes.join(",")}; projects ${key.scoped_teams?.join(",") ?? "all"}; shown once, stored as a hash`
      )
    })
  },

  users: async (args) => {
    const { positionals, values } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        email: { type: "string" },
        password: { type: "string" },
        "first-name": { type: "string" },
        level: { type: "string" }
      }
    })
    const [action] = positionals
    if (action === "list") return withApi(undefined, listUsers)
    if (values.email === undefined || (action !== "create" && action !== "reset-password")) throw new UsageError()
    const email = values.email
    const level = LEVELS[(values.level ?? "member") as keyof typeof LEVELS]
    if (level === undefined) throw new UsageError(`--level takes member, admin or owner, not "${values.level}"`)
    // A password given on the command line is kept; otherwise one is made and shown once.
    const password = values.password ?? generatePassword()
    await withApi(undefined, async (api) => {
      if (action === "create") await createUser(api, email, values["first-name"] ?? "", level, password)
      else await resetPassword(api, email, password)
      console.log(values.password === undefined ? `${email}\t${password}` : email)
    })
  },

  demo: async (args) => {
    const { values } = parseArgs({
      args,
      options: {
        events: { type: "string" },
        seed: { type: "string" },
        end: { type: "string" },
        project: { type: "string" }
      }
    })
    if (values.events === undefined) throw new UsageError("zed demo needs --events")
    const events = integerArg("--events", values.events, 1)
    const seed =
      values.seed === undefined ? DEFAULT_DEMO_SEED : integerArg("--seed", values.seed, Number.MIN_SAFE_INTEGER)
    const project = values.project === undefined ? 1 : integerArg("--project", values.project, 1)
    const end = values.end === undefined ? startOfUtcDay(new Date()) : dayArg(values.end)
    const zed = await openStore(await loadConfig())
    try {
      const started = performance.now()
      const rate = (loaded: number) => `${Math.round(loaded / ((performance.now() - started) / 1000))} events/s`
      let reported = 0
      const loaded = await loadDemoData(zed, {
        events,
        seed,
        end,
        project,
        onProgress: (done, total) => {
          if (done === total || done - reported < total / 10) return
          reported = done
          console.error(`  ${done} of ${total} events, ${rate(done)}`)
        }
      })
      const seconds = (performance.now() - started) / 1000
      console.log(
        `Loaded ${loaded} demo events (seed ${seed}, up to ${end.toISOString().slice(0, 10)}) into project ${project} in ${seconds.toFixed(1)} s, ${rate(loaded)}`
      )
    } finally {
      await zed.close()
    }
  },

  export: async (args) => {
    const { values } = parseArgs({ args, options: { project: { type: "string" }, output: { type: "string" } } })
    const project = values.project === undefined ? 1 : integerArg("--project", values.project, 1)
    const config = await loadConfig()
    const zed = await onDatabase(config, () => createZed({ storage: storageFor(config), bootstrap: false }))
    const out = values.output === undefined ? process.stdout : createWriteStream(values.output)
    try {
      await exportProjectTo(zed, project, (text) =>
        // Waits while the output's buffer is full, so a slow disk or pipe holds the export back.
        out.write(text) ? Promise.resolve() : once(out, "drain").then(() => undefined)
      )
    } finally {
      await zed.close()
      if (out !== process.stdout) await new Promise<void>((resolve) => out.end(() => resolve()))
    }
  },

  import: async (args) => {
    const { values } = parseArgs({ args, options: { project: { type: "string" }, input: { type: "string" } } })
    const project = values.project === undefined ? undefined : integerArg("--project", values.project, 1)
    const zed = await openStore(await loadConfig())
    try {
      const input = values.input === undefined ? process.stdin : createReadStream(values.input)
      const started = performance.now()
      // The iterator is made at once: readline drops the lines it reads before one exists.
      const lines = createInterface({ input, crlfDelay: Infinity })[Symbol.asyncIterator]()
      const summary = await importProjectFrom(zed, { [Symbol.asyncIterator]: () => lines }, { project })
      const counts = Object.entries(summary.read).map(([type, n]) => `${n} ${type}`)
      console.log(
        `Imported into project ${summary.project.id} ("${summary.project.name}") in ${((performance.now() - started) / 1000).toFixed(1)} s: ${counts.join(", ") || "nothing"}; ${summary.events} events new`
      )
    } finally {
      await zed.close()
    }
  },

  "migrate-events": async (args) => {
    const { values } = parseArgs({ args, options: { "batch-size": { type: "string" } } })
    const batchSize =
      values["batch-size"] === undefined ? undefined : integerArg("--batch-size", values["batch-size"], 1)
    const config = await loadConfig()
    const target = clickhouseFor(config)
    if (Option.isNone(target)) {
      throw new UsageError(
        "zed migrate-events needs a ClickHouse to copy to: set CLICKHOUSE_URL (and CLICKHOUSE_CLUSTER on a cluster) or ZED_EVENTS=chdb"
      )
    }
    // The same store `zed serve` opens; PGlite's lock refuses it while Zed runs.
    const source = Option.match(config.databaseUrl, {
      onSome: (url) => postgresClient({ url, maxConnections: 2 }),
      onNone: () => pgliteClient({ dataDir: join(config.dataDir, "pgdata") })
    })
    const started = performance.now()
    const seconds = () => (performance.now() - started) / 1000
    const result = await Effect.runPromise(
      migrateEvents({
        batchSize,
        onProgress: ({ done, table, total }) =>
          console.error(
            `  ${table}: ${done} of ${total} rows${total > 0 ? ` (${Math.floor((done / total) * 100)}%)` : ""}, ${seconds().toFixed(0)} s`
          )
      }).pipe(
        Effect.provide(Layer.merge(source, target.value)),
        Effect.mapError((error) => new Error(error.message))
      )
    )
    const rows = result.reduce((sum, t) => sum + t.copied, 0)
    const time = seconds()
    console.log(
      `Copied ${result.map((t) => `${t.copied} ${t.table}`).join(", ")} in ${time.toFixed(1)} s, ${Math.round(rows / Math.max(time, 0.001))} rows/s`
    )
    if (rows === 0) console.log("Nothing left to copy: an earlier run finished.")
    console.log("Now start Zed with the same CLICKHOUSE_URL / ZED_EVENTS setting.")
  },

  openapi: async (args) => {
    const { values } = parseArgs({ args, options: { json: { type: "string" }, markdown: { type: "string" } } })
    const doc = openApiDocument(routes, VERSION)
    if (values.json) writeFileSync(values.json, JSON.stringify(doc, null, 2) + "\n")
    if (values.markdown) writeFileSync(values.markdown, renderMarkdown(doc) + "\n")
    if (!values.json && !values.markdown) console.log(JSON.stringify(doc, null, 2))
  }
}

class UsageError extends Error {}

const LEVELS = { member: 1, admin: 8, owner: 15 } as const
const LEVEL_NAMES: Record<number, string> = { 1: "member", 8: "admin", 15: "owner" }

/** Runs `act` with an API client for this install, closed afterwards. */
const withApi = async (userEmail: string | undefined, act: (api: ApiClient) => Promise<void>) => {
  const config = await loadConfig()
  const api = await onDatabase(config, () => openApi(config, userEmail))
  try {
    await act(api)
  } finally {
    await api.close()
  }
}

const members = async (api: ApiClient) =>
  expectStatus(await api.send("GET", "/api/organizations/@current/members/?limit=1000"), 200, "members")
    .results as ReadonlyArray<{
    id: string
    level: number
    joined_at: string
    user: { email: string; first_name: string }
  }>

const listUsers = async (api: ApiClient) => {
  for (const m of await members(api)) {
    console.log(
      [m.user.email, LEVEL_NAMES[m.level] ?? String(m.level), m.joined_at.slice(0, 10), m.user.first_name].join("\t")
    )
  }
}

/** An invitation accepted at once: the user exists with this password, and the sign-in it makes is ended. */
const createUser = async (api: ApiClient, email: string, firstName: string, level: number, password: string) => {
  const invite = expectStatus(
    await api.send("POST", "/api/organizations/@current/invites/", {
      target_email: email,
      level,
      first_name: firstName
    }),
    201,
    "user refused"
  )
  const joined = await api.send("POST", `/api/signup/${invite.id}/`, {
    first_name: firstName || email.split("@")[0],
    password
  })
  if (joined.status !== 201) await api.send("DELETE", `/api/organizations/@current/invites/${invite.id}/`)
  expectStatus(joined, 201, "user refused")
  const cookie = joined.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ")
  await api.send("POST", "/api/logout", undefined, { cookie })
}

const resetPassword = async (api: ApiClient, email: string, password: string) => {
  const member = (await members(api)).find((m) => m.user.email === email.trim().toLowerCase())
  if (member === undefined) throw new Error(`no user ${email} in the organization`)
  expectStatus(
    await api.send("PATCH", `/api/organizations/@current/members/${member.id}/`, { password }),
    200,
    "password refused"
  )
}

/** Zed on the configured store; a fresh store is set up as `zed serve` would, so data has a project to go to. */
const openStore = async (config: ServerConfig) => {
  const zed = await onDatabase(config, () =>
    createZed({
      storage: storageFor(config),
      bootstrap: {
        projectApiKey: Option.getOrUndefined(config.projectApiKey),
        personalApiKey: Option.getOrUndefined(config.personalApiKey),
        ...bootstrapAdmin(config)
      }
    })
  )
  if (zed.bootstrap.created)
    console.error(
      `Set up a new install; its credentials are in ${writeCredentials(config.dataDir, zed.bootstrap.credentials)}`
    )
  return zed
}

/** Opens storage with `open`; a PostgreSQL that cannot be used is reported in one line saying what to do. */
const onDatabase = async <A>(config: ServerConfig, open: () => Promise<A>): Promise<A> => {
  if (Option.isNone(config.databaseUrl)) return open()
  const url = config.databaseUrl.value
  const bad = badDatabaseUrl(url)
  if (bad !== undefined) throw new Error(bad)
  try {
    return await open()
  } catch (error) {
    const hint = databaseHint(error, url)
    throw hint === undefined ? error : new Error(hint)
  }
}

const integerArg = (flag: string, text: string, min: number): number => {
  const value = Number(text)
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(value) || value < min)
    throw new UsageError(`${flag} takes a whole number${min > 0 ? ` from ${min}` : ""}, not "${text}"`)
  return value
}

const dayArg = (text: string): Date => {
  const day = new Date(`${text}T00:00:00Z`)
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== text) {
    throw new UsageError(`--end takes a date as YYYY-MM-DD, not "${text}"`)
  }
  return day
}

const startOfUtcDay = (now: Date): Date => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()))

export const main = async (argv: Array<string>): Promise<void> => {
  const [command = "", ...args] = argv
  const run = commands[command]
  try {
    if (run === undefined) throw new UsageError(command === "" ? "" : `unknown command "${command}"`)
    await run(args)
  } catch (error) {
    process.exitCode = 1
    if (error instanceof UsageError) console.error([error.message, usage].filter((s) => s !== "").join("\n"))
    else console.error(`zed ${command}: ${(error as { message?: string }).message ?? String(error)}`)
  }
}
