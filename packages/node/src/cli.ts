import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { migrateEvents } from "@zed/clickhouse"
import {
  createZed,
  DEFAULT_DEMO_DAYS,
  DEFAULT_DEMO_SEED,
  DEFAULT_LIMITS,
  issuePersonalApiKey,
  loadDemoData,
  openApiDocument,
  VERSION
} from "@zed/core"
import { routes } from "@zed/core/adapter"
import { pgliteClient, postgresClient } from "@zed/postgres"
import { Effect, Layer, Option } from "effect"
import { clickhouseFor, loadConfig, type ServerConfig, storageFor } from "./config.js"
import { badDatabaseUrl, databaseHint } from "./databaseHints.js"
import { renderMarkdown } from "./openapiMarkdown.js"
import { bootstrapAdmin, serve, writeCredentials } from "./serve.js"

const usage = `Usage:
  zed serve                                   start the server (PORT, ZED_DATA_DIR, DATABASE_URL, …)
  zed keys create --scopes <a:read,b:write|*> [--project <id>]… [--label <text>] [--user <email>]
                                              issue a personal API key (printed once)
  zed openapi [--json <file>] [--markdown <file>]
                                              write the API reference (stdout when no file is given)
  zed demo --events <n> [--seed <n>] [--end <YYYY-MM-DD>] [--project <id>]
                                              load generated demo events (${DEFAULT_DEMO_DAYS} days up to --end, default today UTC)
  zed migrate-events [--batch-size <n>]       copy events, persons and groups from Postgres to ClickHouse (CLICKHOUSE_URL
                                              or ZED_EVENTS=chdb) with Zed stopped; run it again to resume`

const commands: Record<string, (args: Array<string>) => Promise<void>> = {
  serve: async () => {
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
    const config = await loadConfig()
    const zed = await onDatabase(config, () => createZed({ storage: storageFor(config), bootstrap: false }))
    try {
      const { key, value } = await zed.run(
        issuePersonalApiKey({
          scopes: values.scopes
            .split(",")
            .map((s) => s.trim())
            .filter((s) => s !== ""),
          projects,
          label: values.label,
          userEmail: values.user
        })
      )
      console.log(value)
      console.error(
        `scopes ${key.scopes.join(",")}; projects ${key.scoped_teams?.join(",") ?? "all"}; shown once, stored as a hash`
      )
    } finally {
      await zed.close()
    }
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
    const config = await loadConfig()
    // A fresh store is set up as `zed serve` would set it up, so the data has a project to go to.
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
    try {
      if (zed.bootstrap.created)
        console.error(
          `Set up a new install; its credentials are in ${writeCredentials(config.dataDir, zed.bootstrap.credentials)}`
        )
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
