import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import { ClickHouse, type ClickHouseError, type Settings } from "./ClickHouse.js"
import { nextVersion, Params, utcText } from "./params.js"
import { migrateClickHouse } from "./schema.js"

// Moves an install's events from Postgres to ClickHouse: the events, then the persons, distinct ids,
// groups and recordings ClickHouse keeps mirrored copies of. Each table is read in keyset pages
// in its primary key's order; after each page, the last key copied is written to ClickHouse, so
// a run that stops resumes after it. Zed must be stopped: nothing may change the source meanwhile.

type Row = Record<string, unknown>

interface Source {
  /** The table's name, in Postgres and in ClickHouse. */
  readonly table: string
  /** The key the pages follow, with each column's Postgres type. */
  readonly key: ReadonlyArray<readonly [column: string, type: string]>
  /** Selected columns, named as ClickHouse names them (key columns included). */
  readonly columns: string
  /** Mirrored rows get a version; events are append-only and must not be stored twice instead. */
  readonly versioned: { readonly deletable: boolean } | undefined
}

const GROUPS = "group_0, group_1, group_2, group_3, group_4"
const COUNTS =
  "click_count, keypress_count, mouse_activity_count, active_ms, console_log_count, console_warn_count, console_error_count, size, event_count, message_count"

const SOURCES: ReadonlyArray<Source> = [
  {
    table: "events",
    key: [
      ["project_id", "integer"],
      ["uuid", "uuid"]
    ],
    columns: `project_id, uuid::text AS uuid, event, distinct_id, person_id::text AS person_id, properties::text AS properties, timestamp, created_at, ${GROUPS}`,
    versioned: undefined
  },
  {
    table: "persons",
    key: [["id", "bigint"]],
    columns: "project_id, id, uuid::text AS uuid, properties::text AS properties, is_identified, created_at",
    versioned: { deletable: true }
  },
  {
    table: "person_distinct_ids",
    key: [
      ["project_id", "integer"],
      ["distinct_id", "text"]
    ],
    columns: "project_id, distinct_id, person_id",
    versioned: { deletable: true }
  },
  {
    table: "groups",
    key: [
      ["project_id", "integer"],
      ["group_type_index", "integer"],
      ["group_key", "text"]
    ],
    columns: "project_id, group_type_index, group_key, properties::text AS properties, created_at",
    versioned: { deletable: false }
  },
  {
    table: "session_recordings",
    key: [
      ["project_id", "integer"],
      ["session_id", "text"]
    ],
    columns: `project_id, session_id, distinct_id, start_time, end_time, first_url, ${COUNTS}, snapshot_source`,
    versioned: { deletable: true }
  }
]

export interface MigrationProgress {
  readonly table: string
  /** Rows of this table copied so far, by this run and the runs it resumes. */
  readonly done: number
  readonly total: number
}

export interface MigrateEventsOptions {
  /** Rows per page read and insert written (default 50 000). */
  readonly batchSize?: number | undefined
  /** Called after each page is copied. */
  readonly onProgress?: ((progress: MigrationProgress) => void) | undefined
}

/** Rows copied by this run, by table. */
export type MigrationResult = ReadonlyArray<{ readonly table: string; readonly copied: number }>

const PROGRESS = "zed_migrations"
const NAME_PREFIX = "postgres:"

/** Where each table's copy stands: one row per table, its latest version the current one. */
const createProgressTable = (ch: ClickHouse["Type"]) => {
  const columns = "(`name` String, `position` String, `rows` UInt64, `done` Bool, `version` UInt64)"
  if (ch.cluster === undefined) {
    return ch.command({
      sql: `CREATE TABLE IF NOT EXISTS ${PROGRESS} ${columns} ENGINE = ReplacingMergeTree(version) ORDER BY name`
    })
  }
  const cluster = `\`${ch.cluster}\``
  return Effect.zipRight(
    ch.command({
      sql: `CREATE TABLE IF NOT EXISTS ${PROGRESS}_local ON CLUSTER ${cluster} ${columns}
        ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/${PROGRESS}', '{replica}', version) ORDER BY name`
    }),
    ch.command({
      sql: `CREATE TABLE IF NOT EXISTS ${PROGRESS} ON CLUSTER ${cluster} AS ${PROGRESS}_local
        ENGINE = Distributed(${cluster}, currentDatabase(), ${PROGRESS}_local, cityHash64(name))`
    })
  )
}

interface Position {
  readonly after: ReadonlyArray<unknown> | undefined
  readonly rows: number
  readonly done: boolean
}

const readPositions = (ch: ClickHouse["Type"]) =>
  Effect.map(
    ch.query({
      sql: `SELECT name, argMax(position, version), argMax(rows, version), argMax(done, version) FROM ${PROGRESS} GROUP BY name`
    }),
    (result) =>
      new Map(
        result.data.map((row): [string, Position] => [
          String(row[0]),
          {
            after: (JSON.parse(String(row[1])) as ReadonlyArray<unknown> | null) ?? undefined,
            rows: Number(row[2]),
            done: row[3] === true || row[3] === 1
          }
        ])
      )
  )

/** Stored Postgres values as ClickHouse reads them from JSON: date-times as UTC text. */
const toClickHouse = (row: Row): Row => {
  const out: Row = {}
  for (const [name, value] of Object.entries(row)) out[name] = value instanceof Date ? utcText(value) : value
  return out
}

/** Keys among `rows` (events) that ClickHouse holds already: a page a stopped run wrote before recording it. */
const storedEvents = (ch: ClickHouse["Type"], rows: ReadonlyArray<Row>) => {
  const times = rows.map((r) => (r.timestamp as Date).getTime())
  const p = new Params()
  return Effect.map(
    ch.query({
      sql: `SELECT DISTINCT project_id, toString(uuid) FROM events
        WHERE timestamp >= ${p.bind(utcText(new Date(Math.min(...times))), "DateTime64(6, 'UTC')")}
          AND timestamp <= ${p.bind(utcText(new Date(Math.max(...times))), "DateTime64(6, 'UTC')")}
          AND uuid IN ${p.bind(
            rows.map((r) => r.uuid),
            "Array(UUID)"
          )}`,
      params: p.values
    }),
    (result) => new Set(result.data.map((row) => `${row[0]}:${row[1]}`))
  )
}

/**
 * Copies the events, persons, distinct ids, groups and recordings of a Postgres store into
 * ClickHouse (whose tables it creates), resuming where an earlier run stopped. A table finished
 * by an earlier run is not copied again.
 */
export const migrateEvents = (
  options: MigrateEventsOptions = {}
): Effect.Effect<MigrationResult, SqlError | ClickHouseError, SqlClient.SqlClient | ClickHouse> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const ch = yield* ClickHouse
    const batchSize = options.batchSize ?? 50_000
    yield* migrateClickHouse
    yield* createProgressTable(ch)
    const positions = yield* readPositions(ch)
    // On a cluster, an insert returns once every shard has its rows, so the recorded position never runs ahead of them.
    const settings: Settings | undefined = ch.cluster === undefined ? undefined : { insert_distributed_sync: 1 }

    const copy = (source: Source) =>
      Effect.gen(function* () {
        const name = `${NAME_PREFIX}${source.table}`
        const start = positions.get(name) ?? { after: undefined, rows: 0, done: false }
        if (start.done) return 0
        const [counted] = yield* sql.unsafe<{ n: number | string }>(`SELECT count(*) AS n FROM ${source.table}`)
        const total = Number(counted?.n ?? 0)
        const keyColumns = source.key.map(([column]) => column)
        const keyList = keyColumns.join(", ")
        const afterKey = source.key.map(([, type], i) => `$${i + 1}::${type}`).join(", ")
        let after = start.after
        let done = start.rows
        let copied = 0
        // Only the first page after a resume may have reached ClickHouse already.
        let resumed = after !== undefined

        for (;;) {
          const page = yield* after === undefined
            ? sql.unsafe<Row>(`SELECT ${source.columns} FROM ${source.table} ORDER BY ${keyList} LIMIT ${batchSize}`)
            : sql.unsafe<Row>(
                `SELECT ${source.columns} FROM ${source.table} WHERE (${keyList}) > (${afterKey}) ORDER BY ${keyList} LIMIT ${batchSize}`,
                after
              )
          if (page.length === 0) break
          let rows: ReadonlyArray<Row> = page
          if (resumed && source.versioned === undefined) {
            const stored = yield* storedEvents(ch, page)
            rows = page.filter((r) => !stored.has(`${r.project_id}:${r.uuid}`))
          }
          resumed = false
          yield* ch.insert(
            source.table,
            rows.map((row) => ({
              ...toClickHouse(row),
              ...(source.versioned === undefined ? {} : { version: nextVersion() }),
              ...(source.versioned?.deletable ? { is_deleted: 0 } : {})
            })),
            settings
          )
          after = keyColumns.map((column) => page.at(-1)![column])
          done += page.length
          copied += page.length
          yield* ch.insert(
            PROGRESS,
            [{ name, position: JSON.stringify(after), rows: done, done: false, version: nextVersion() }],
            settings
          )
          options.onProgress?.({ table: source.table, done, total: Math.max(total, done) })
          if (page.length < batchSize) break
        }
        yield* ch.insert(
          PROGRESS,
          [{ name, position: JSON.stringify(after ?? null), rows: done, done: true, version: nextVersion() }],
          settings
        )
        return copied
      })

    return yield* Effect.forEach(SOURCES, (source) =>
      Effect.map(copy(source), (copied) => ({ table: source.table, copied }))
    )
  })
