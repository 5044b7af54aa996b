// Zed for the ClickHouse benchmark (bench/clickhouse.js). Storage from argv[2]: "chdb:<dir>" is the
// standalone server's ZED_EVENTS=chdb (events in chDB under <dir>/chdb, metadata in PGlite under
// <dir>/pgdata, chosen by @zed/node's own storageFor), "postgres:<url>" Zed on the PostgreSQL server.
// With BENCH_EVENTS set, whatever of the demo data set (BENCH_SEED, BENCH_END) the store lacks is
// loaded through /batch/ first (idempotent on event uuids, so an interrupted load resumes), or on
// chDB with BENCH_COPY_FROM copied from the PostgreSQL database Zed loaded it into, and the
// project's time zone set to BENCH_TIMEZONE; without it Zed just serves (the ingest runs, on a fresh
// store). `POST /__compile` answers the `{sql, params}` the store's query runner prints for the
// ZedQL in its body, in the store's own dialect; `POST /__raw` runs `{sql, params}` through the
// store's query executor (outside Zed's query API) and answers its rows and milliseconds. Only this
// process can open the chDB directory, so statements are timed on their own here.
import { join } from "node:path"
import { createZed, loadDemoData } from "@zed/core"
import { compileZedQL } from "@zed/core/domain"
import { PropertyDefinitions, QueryExecutor } from "@zed/core/storage"
import { postgresStorage } from "@zed/postgres"
import { Effect, Option } from "effect"
import { serveWithHooks, zedApi } from "./hooks.js"

const [kind, ...rest] = process.argv[2].split(":")
const where = rest.join(":")
if (!["chdb", "postgres"].includes(kind) || where === "")
  throw new Error("usage: clickhouse.js chdb:<dir> | postgres:<url>")
const { BENCH_COPY_FROM, BENCH_END, BENCH_EVENTS, BENCH_KEY, BENCH_SEED, BENCH_TIMEZONE, BENCH_TOKEN } = process.env

const storage =
  kind === "postgres"
    ? postgresStorage({ url: where })
    : // Imported only here: @zed/node loads @zed/clickhouse, which the PostgreSQL runs do not need.
      (await import("@zed/node")).storageFor({
        events: "chdb",
        dataDir: where,
        databaseUrl: Option.none(),
        clickhouseUrl: Option.none(),
        clickhouseCluster: Option.none()
      })
const zed = await createZed({ storage, bootstrap: { personalApiKey: BENCH_KEY, projectApiKey: BENCH_TOKEN } })

const api = zedApi(zed, BENCH_KEY)

const raw = async ({ params = [], sql, timezone = "UTC" }) => {
  const started = performance.now()
  const { rows } = await zed.run(
    Effect.flatMap(QueryExecutor, (executor) =>
      executor.execute({ sql, params, timezone, timeoutMs: 600_000, executionId: crypto.randomUUID() })
    )
  )
  return { rows, ms: performance.now() - started }
}

/** Events stored, counted in the events store itself (not through ZedQL, whose printer may not be ready). */
const stored = async () => Number((await raw({ sql: "SELECT count(*) FROM events" })).rows[0][0])

/**
 * chDB only: fills the ClickHouse tables with what Zed stored on the PostgreSQL database at `url`
 * (events as its ingestion left them, persons, distinct ids, groups), read with ClickHouse's
 * postgresql() table function through a chDB session of this process's own on the same directory.
 * The PGlite metadata keeps only the bootstrap's project and keys: ZedQL reads persons in ClickHouse.
 */
const copyFrom = async (url, events) => {
  const { Session } = await import("chdb")
  const session = new Session(join(where, "chdb"))
  const u = new URL(url)
  const source = (table) =>
    `postgresql('${u.hostname}:${u.port || 5432}', '${u.pathname.slice(1)}', '${table}', '${decodeURIComponent(u.username)}', '${decodeURIComponent(u.password)}')`
  const run = async (sql) =>
    JSON.parse((await session.queryAsync(sql, { format: "JSONCompact" })).text() || '{"data":[]}').data
  try {
    const [[available]] = await run(`SELECT count() FROM ${source("events")}`)
    if (Number(available) !== events)
      throw new Error(`${url} holds ${available} events, not ${events}: load PostgreSQL first`)
    const started = performance.now()
    const copies = {
      events:
        "project_id, uuid, event, distinct_id, person_id, properties, timestamp, created_at, group_0, group_1, group_2, group_3, group_4",
      persons: "project_id, id, uuid, properties, is_identified, created_at, version",
      person_distinct_ids: "project_id, distinct_id, person_id, version",
      groups: "project_id, group_type_index, group_key, properties, created_at, version"
    }
    for (const [table, columns] of Object.entries(copies)) {
      // From scratch: a copy cut short leaves nothing behind.
      await run(`TRUNCATE TABLE ${table}`)
      await run(`INSERT INTO ${table} (${columns}) SELECT ${columns} FROM ${source(table)}`)
      console.error(`  chdb: copied ${table} from PostgreSQL (${Math.round((performance.now() - started) / 1000)} s)`)
    }
  } finally {
    session.close()
  }
}

if (BENCH_EVENTS !== undefined) {
  const events = Number(BENCH_EVENTS)
  const before = await stored()
  if (before < events && BENCH_COPY_FROM !== undefined) await copyFrom(BENCH_COPY_FROM, events)
  else if (before < events) {
    const started = performance.now()
    let last = 0
    await loadDemoData(zed, {
      events,
      seed: Number(BENCH_SEED),
      end: new Date(BENCH_END),
      onProgress: (done, total) => {
        if (done - last < 250_000 && done !== total) return
        last = done
        const s = (performance.now() - started) / 1000
        console.error(`  ${kind}: sent ${done} of ${total} events in ${Math.round(s)} s (${Math.round(done / s)}/s)`)
      }
    })
    console.error(`  ${kind}: loaded in ${Math.round((performance.now() - started) / 1000)} s`)
  }
  const count = await stored()
  if (count !== events) throw new Error(`the store holds ${count} events, not ${events}: remove ${where}`)
  await api("PATCH", "/api/projects/1/", { timezone: BENCH_TIMEZONE })
}

/** As the query runner compiles: the project's id, time zone and property types, the store's dialect. */
const compile = (text) =>
  zed.run(
    Effect.gen(function* () {
      const types = new Map(
        (yield* (yield* PropertyDefinitions).list(1)).map((d) => [`${d.owner}:${d.key}`, d.propertyType])
      )
      const { dialect } = yield* QueryExecutor
      const { params, sql } = yield* compileZedQL(text, {
        projectId: 1,
        timezone: BENCH_TIMEZONE,
        dialect,
        propertyType: (owner, key) => types.get(`${owner}:${key}`)
      })
      return { sql, params }
    })
  )

const ROUTES = { "/__raw": (body) => raw(JSON.parse(body)), "/__compile": compile }

serveWithHooks(zed, ROUTES)
