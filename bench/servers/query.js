// Zed over the query benchmark's data set. Storage from argv[2]: "pglite:<dir>" or "postgres:<url>";
// the demo data set from BENCH_EVENTS, BENCH_SEED and BENCH_END. Whatever of it the store lacks is
// loaded through /batch/ first (loading is idempotent on event uuids, so an interrupted load just
// resumes), then the project's time zone is set to BENCH_TIMEZONE and Zed serves over HTTP. Only this
// process can open a PGlite data directory, so the raw baseline reaches PGlite here too: `POST
// /__raw` runs `{sql, params}` through the store's query executor, outside Zed's query API. `POST
// /__compile` answers the `{sql, params}` Zed's query runner prints for the ZedQL in its
// body, with the milliseconds compiling took (`ms`).
import { randomUUID } from "node:crypto"
import { createZed, loadDemoData } from "@zed/core"
import { compileZedQL } from "@zed/core/domain"
import { PropertyDefinitions, QueryExecutor } from "@zed/core/storage"
import { pgliteStorage, postgresStorage } from "@zed/postgres"
import { Effect } from "effect"
import { serveWithHooks, zedApi } from "./hooks.js"

const [kind, ...rest] = process.argv[2].split(":")
const where = rest.join(":")
if (!["pglite", "postgres"].includes(kind) || where === "")
  throw new Error("usage: query.js pglite:<dir> | postgres:<url>")
const { BENCH_END, BENCH_EVENTS, BENCH_KEY, BENCH_SEED, BENCH_TIMEZONE, BENCH_TOKEN } = process.env
const events = Number(BENCH_EVENTS)

const zed = await createZed({
  storage: kind === "postgres" ? postgresStorage({ url: where }) : pgliteStorage({ dataDir: where }),
  bootstrap: { personalApiKey: BENCH_KEY, projectApiKey: BENCH_TOKEN }
})

const api = zedApi(zed, BENCH_KEY)
const stored = async () => {
  const { results } = await api("POST", "/api/environments/1/query/", {
    query: { kind: "ZedQLQuery", query: "SELECT count() FROM events" },
    refresh: "force_blocking"
  })
  return results[0][0]
}

if ((await stored()) < events) {
  const started = performance.now()
  await loadDemoData(zed, {
    events,
    seed: Number(BENCH_SEED),
    end: new Date(BENCH_END),
    onProgress: (done, total) =>
      done % 100_000 === 0 &&
      console.error(`  loaded ${done} of ${total} events (${Math.round((performance.now() - started) / 1000)} s)`)
  })
}
const count = await stored()
if (count !== events) throw new Error(`the store holds ${count} events, not ${events}: remove ${where}`)
await api("PATCH", "/api/projects/1/", { timezone: BENCH_TIMEZONE })

const raw = ({ sql, params }) =>
  zed
    .run(
      Effect.flatMap(QueryExecutor, (executor) =>
        executor.execute({ sql, params, timezone: BENCH_TIMEZONE, timeoutMs: 600_000, executionId: randomUUID() })
      )
    )
    .then(({ rows }) => rows)

/** As the query runner compiles: the project's id, time zone and property types. */
const compile = (text) =>
  zed.run(
    Effect.gen(function* () {
      const types = new Map(
        (yield* (yield* PropertyDefinitions).list(1)).map((d) => [`${d.owner}:${d.key}`, d.propertyType])
      )
      const started = performance.now()
      const { params, sql } = yield* compileZedQL(text, {
        projectId: 1,
        timezone: BENCH_TIMEZONE,
        propertyType: (owner, key) => types.get(`${owner}:${key}`)
      })
      return { sql, params, ms: performance.now() - started }
    })
  )

const ROUTES = { "/__raw": (body) => raw(JSON.parse(body)), "/__compile": compile }

serveWithHooks(zed, ROUTES)
