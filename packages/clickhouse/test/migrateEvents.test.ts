import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, loadDemoData } from "@zed/core"
import { pgliteClient, pgliteStorage } from "@zed/postgres"
import { Effect, Layer, ManagedRuntime } from "effect"
import { ADMIN_KEY, call, PROJECT_KEY, snapshotPayload } from "../../core/test/support.js"
import { ClickHouse, ClickHouseError, chdbClickHouse, migrateEvents, type MigrationProgress } from "../src/index.js"

// `migrateEvents` copies a Postgres store filled through Zed's capture path into chDB: every
// event once with its fields, persons, distinct ids, groups and recordings as versioned rows, and
// a copy stopped part way resumes to the same result.

const BATCH = 40
const T0 = Date.UTC(2026, 2, 2, 12)

const root = mkdtempSync(join(tmpdir(), "zed-migrate-events-"))
const pgdata = join(root, "pgdata")
let source: ManagedRuntime.ManagedRuntime<SqlClient.SqlClient, unknown>
let targets = 0

/** A fresh chDB directory. */
const target = () => chdbClickHouse({ path: join(root, `chdb-${targets++}`) })

/** ClickHouse whose inserts fail once `stop(table, rows)` says so: a copy cut off part way. */
const failing = (stop: (table: string, rows: ReadonlyArray<Record<string, unknown>>) => boolean) =>
  Layer.effect(
    ClickHouse,
    Effect.map(ClickHouse, (ch) => ({
      ...ch,
      insert: (
        table: string,
        rows: ReadonlyArray<Record<string, unknown>>,
        settings?: Parameters<typeof ch.insert>[2]
      ) =>
        stop(table, rows)
          ? Effect.fail(new ClickHouseError({ code: undefined, message: "cut off" }))
          : ch.insert(table, rows, settings)
    }))
  )

const migrate = (clickhouse: Layer.Layer<ClickHouse, ClickHouseError>, onProgress?: (p: MigrationProgress) => void) =>
  source.runPromiseExit(Effect.provide(migrateEvents({ batchSize: BATCH, onProgress }), clickhouse))

const pg = <A extends object>(sql: string) =>
  source.runPromise(Effect.flatMap(SqlClient.SqlClient, (client) => client.unsafe<A>(sql)))
const ch = (clickhouse: Layer.Layer<ClickHouse, ClickHouseError>, sql: string) =>
  Effect.runPromise(
    Effect.provide(
      Effect.flatMap(ClickHouse, (c) => c.query({ sql })),
      clickhouse
    )
  ).then((r) => r.data)

const time = (value: unknown) =>
  (value instanceof Date ? value : new Date(`${String(value).replace(" ", "T")}Z`)).getTime()
const json = (value: unknown) => (typeof value === "string" ? JSON.parse(value) : value) as unknown

/** Events as comparable tuples, in key order. */
const pgEvents = async () =>
  (
    await pg<Record<string, unknown>>(
      "SELECT project_id, uuid::text AS uuid, event, distinct_id, person_id::text AS person_id, properties, timestamp, created_at, group_0, group_1, group_2, group_3, group_4 FROM events ORDER BY project_id, uuid"
    )
  ).map((r) => [
    r.project_id,
    r.uuid,
    r.event,
    r.distinct_id,
    r.person_id,
    r.properties,
    time(r.timestamp),
    time(r.created_at),
    r.group_0,
    r.group_1,
    r.group_2,
    r.group_3,
    r.group_4
  ])
const chEvents = async (clickhouse: Layer.Layer<ClickHouse, ClickHouseError>) =>
  (
    await ch(
      clickhouse,
      "SELECT project_id, toString(uuid) AS u, event, distinct_id, toString(person_id), properties, timestamp, created_at, group_0, group_1, group_2, group_3, group_4 FROM events ORDER BY project_id, u"
    )
  ).map((r) => [Number(r[0]), r[1], r[2], r[3], r[4], json(r[5]), time(r[6]), time(r[7]), ...r.slice(8)])

/** Persons and distinct ids as their latest versions read them. */
const pgPersons = async () =>
  (
    await pg<Record<string, unknown>>(
      "SELECT id, uuid::text AS uuid, properties, is_identified, created_at FROM persons ORDER BY id"
    )
  ).map((r) => [r.id, r.uuid, r.properties, r.is_identified, time(r.created_at)])
const chPersons = async (clickhouse: Layer.Layer<ClickHouse, ClickHouseError>) =>
  (
    await ch(
      clickhouse,
      `SELECT id, argMax(toString(uuid), version), argMax(properties, version), argMax(is_identified, version), argMax(created_at, version)
    FROM persons GROUP BY id HAVING argMax(is_deleted, version) = 0 ORDER BY id`
    )
  ).map((r) => [Number(r[0]), r[1], json(r[2]), r[3], time(r[4])])
const pgDistinctIds = async () =>
  (
    await pg<Record<string, unknown>>(
      'SELECT distinct_id, person_id FROM person_distinct_ids ORDER BY distinct_id COLLATE "C"'
    )
  ).map((r) => [r.distinct_id, r.person_id])
const chDistinctIds = async (clickhouse: Layer.Layer<ClickHouse, ClickHouseError>) =>
  (
    await ch(
      clickhouse,
      "SELECT distinct_id, argMax(person_id, version) FROM person_distinct_ids GROUP BY distinct_id HAVING argMax(is_deleted, version) = 0 ORDER BY distinct_id"
    )
  ).map((r) => [r[0], Number(r[1])])

const counts = (clickhouse: Layer.Layer<ClickHouse, ClickHouseError>) =>
  ch(
    clickhouse,
    `SELECT (SELECT count() FROM events), (SELECT count() FROM persons), (SELECT count() FROM person_distinct_ids),
    (SELECT count() FROM groups), (SELECT count() FROM session_recordings)`
  ).then((r) => r[0]!.map(Number))

beforeAll(async () => {
  const zed = await createZed({
    storage: pgliteStorage({ dataDir: pgdata }),
    bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY }
  })
  await loadDemoData(zed, { events: 600, seed: 5, end: new Date(T0), batchSize: 100 })
  const rr = (type: number, at: number, data: unknown = {}) => ({ type, timestamp: T0 + at, data })
  const recording = await call(zed, "/s/", {
    method: "POST",
    key: null,
    body: JSON.stringify(
      snapshotPayload("s-1", "rita", {
        "w-1": [
          rr(4, 0, { href: "https://shop.test/", width: 800, height: 600 }),
          rr(3, 1000, { source: 2, type: 2, id: 1, x: 5, y: 5 })
        ]
      })
    )
  })
  expect(recording.status, recording.text).toBe(200)
  await zed.close()
  // The copy reads the directory as `zed migrate-events` does, with Zed stopped.
  source = ManagedRuntime.make(pgliteClient({ dataDir: pgdata }))
})

afterAll(async () => {
  await source?.dispose()
  rmSync(root, { recursive: true, force: true })
})

describe("migrateEvents", () => {
  it("copies every event once with its fields, and the latest persons, distinct ids, groups and recordings", async () => {
    const clickhouse = target()
    const progress: Array<MigrationProgress> = []
    const exit = await migrate(clickhouse, (p) => progress.push(p))
    expect(exit._tag).toBe("Success")

    const events = await pgEvents()
    expect(events.length).toBeGreaterThan(2 * BATCH)
    expect(await chEvents(clickhouse)).toEqual(events)
    expect(await chPersons(clickhouse)).toEqual(await pgPersons())
    expect(await chDistinctIds(clickhouse)).toEqual(await pgDistinctIds())
    const groups = (await pg<{ n: number }>("SELECT count(*)::int AS n FROM groups"))[0]!.n
    expect(groups).toBeGreaterThan(0)
    expect((await counts(clickhouse)).slice(3)).toEqual([groups, 1])
    const recordings = await ch(
      clickhouse,
      "SELECT session_id, distinct_id, click_count, first_url, is_deleted FROM session_recordings"
    )
    expect(recordings.map((r) => [r[0], r[1], Number(r[2]), r[3], Number(r[4])])).toEqual([
      ["s-1", "rita", 1, "https://shop.test/", 0]
    ])

    // Progress climbs page by page to each table's total.
    const eventSteps = progress.filter((p) => p.table === "events")
    expect(eventSteps.map((p) => p.done)).toEqual(eventSteps.map((_, i) => Math.min((i + 1) * BATCH, events.length)))
    expect(eventSteps.at(-1)).toEqual({ table: "events", done: events.length, total: events.length })

    // A second run finds everything copied and writes nothing.
    const before = await counts(clickhouse)
    const again = await migrate(clickhouse)
    expect(again._tag === "Success" && again.value.every((t) => t.copied === 0)).toBe(true)
    expect(await counts(clickhouse)).toEqual(before)
  })

  it("resumes after a failed insert, storing each event once", async () => {
    const clickhouse = target()
    let eventPages = 0
    const cut = await migrate(
      failing((table) => table === "events" && ++eventPages === 3).pipe(Layer.provide(clickhouse))
    )
    expect(cut._tag).toBe("Failure")
    expect(await counts(clickhouse).then((c) => c[0])).toEqual(2 * BATCH)

    expect((await migrate(clickhouse))._tag).toBe("Success")
    expect(await chEvents(clickhouse)).toEqual(await pgEvents())
    expect(await chPersons(clickhouse)).toEqual(await pgPersons())
  })

  it("resumes after pages were written but their progress was not, storing each event once", async () => {
    const clickhouse = target()
    // Cut off while recording progress: the third events page, then the first persons page, are in
    // ClickHouse, yet the next run starts before them.
    const cutAt = (name: string, page: number) => {
      let n = 0
      return failing(
        (table, rows) => table === "zed_migrations" && rows[0]?.name === name && rows[0]?.done === false && ++n === page
      )
    }
    expect((await migrate(cutAt("postgres:events", 3).pipe(Layer.provide(clickhouse))))._tag).toBe("Failure")
    expect(await counts(clickhouse).then((c) => c[0])).toEqual(3 * BATCH)
    expect((await migrate(cutAt("postgres:persons", 1).pipe(Layer.provide(clickhouse))))._tag).toBe("Failure")
    expect((await migrate(clickhouse))._tag).toBe("Success")

    const events = await pgEvents()
    expect(await chEvents(clickhouse)).toEqual(events)
    // Persons of the page copied twice have two versions; their latest reads back as one row each.
    const persons = (await counts(clickhouse))[1]!
    expect(persons).toBeGreaterThan((await pgPersons()).length)
    expect(await chPersons(clickhouse)).toEqual(await pgPersons())
    expect(await chDistinctIds(clickhouse)).toEqual(await pgDistinctIds())
  })
})
