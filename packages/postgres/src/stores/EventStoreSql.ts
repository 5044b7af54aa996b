import { SqlClient } from "@effect/sql"
import { EventStore, type StoredEvent } from "@zed/core/storage"
import { Array as Arr, Effect, Layer } from "effect"
import { propertyCondition } from "./propertyCondition.js"
import { orStorageError } from "./sqlErrors.js"

type Row = Omit<StoredEvent, "groups"> & {
  readonly group_0: string | null
  readonly group_1: string | null
  readonly group_2: string | null
  readonly group_3: string | null
  readonly group_4: string | null
}

const toEvent = ({ group_0, group_1, group_2, group_3, group_4, ...row }: Row): StoredEvent => ({
  ...row,
  groups: [group_0, group_1, group_2, group_3, group_4]
})

/**
 * How rows reach the database, whichever it parses faster (measured): one JSON document for PGlite
 * (no per-value escaping in its JavaScript protocol layer), multi-row VALUES for a PostgreSQL server.
 */
export type InsertStyle = "json" | "values"

/** Rows per VALUES statement: 13 parameters each stay under PostgreSQL's limit of 65 535. */
const VALUES_CHUNK = 4000

export const EventStoreSql = (style: InsertStyle) =>
  Layer.effect(
    EventStore,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const condition = propertyCondition(sql, "properties")
      // One literal shape for every row, built in one pass: this runs for every event ingested.
      const row = (projectId: number, e: StoredEvent, properties: unknown) => ({
        project_id: projectId,
        uuid: e.uuid,
        event: e.event,
        distinct_id: e.distinct_id,
        person_id: e.person_id,
        properties,
        timestamp: e.timestamp,
        created_at: e.created_at,
        group_0: e.groups[0] ?? null,
        group_1: e.groups[1] ?? null,
        group_2: e.groups[2] ?? null,
        group_3: e.groups[3] ?? null,
        group_4: e.groups[4] ?? null
      })
      const insertValues = (projectId: number, events: ReadonlyArray<StoredEvent>) =>
        Effect.forEach(Arr.chunksOf(events, VALUES_CHUNK), (chunk) =>
          orStorageError(sql<{ uuid: string }>`
          INSERT INTO events ${sql.insert(chunk.map((e) => row(projectId, e, JSON.stringify(e.properties))))}
          ON CONFLICT (project_id, uuid) DO NOTHING
          RETURNING uuid`)
        ).pipe(Effect.map((results) => new Set(results.flat().map((r) => r.uuid))))
      const insertJson = (projectId: number, events: ReadonlyArray<StoredEvent>) =>
        orStorageError(sql<{ uuid: string }>`
        INSERT INTO events SELECT * FROM json_to_recordset(${JSON.stringify(events.map((e) => row(projectId, e, e.properties)))}::json)
          AS r(project_id integer, uuid uuid, event text, distinct_id text, person_id uuid, properties jsonb,
            timestamp timestamptz, created_at timestamptz, group_0 text, group_1 text, group_2 text, group_3 text, group_4 text)
        ON CONFLICT (project_id, uuid) DO NOTHING
        RETURNING uuid`).pipe(Effect.map((rows) => new Set(rows.map((r) => r.uuid))))
      return EventStore.of({
        insert: (projectId, events) =>
          events.length === 0
            ? Effect.succeed(new Set<string>())
            : style === "json"
              ? insertJson(projectId, events)
              : insertValues(projectId, events),
        repoint: (projectId, moves) =>
          moves.length === 0
            ? Effect.void
            : orStorageError(sql`
              UPDATE events e SET person_id = m.to_person
              FROM json_to_recordset(${JSON.stringify(moves.map((m) => ({ from_person: m.from, to_person: m.to })))}::json)
                AS m(from_person uuid, to_person uuid)
              WHERE e.project_id = ${projectId} AND e.person_id = m.from_person`).pipe(Effect.asVoid),
        list: (projectId, query) =>
          orStorageError(sql<Row>`
          SELECT uuid, event, distinct_id, person_id, properties, timestamp, created_at, group_0, group_1, group_2, group_3, group_4
          FROM events WHERE ${sql.and([
            sql`project_id = ${projectId}`,
            ...(query.uuid === undefined ? [] : [sql`uuid = ${query.uuid}`]),
            ...(query.event === undefined ? [] : [sql`event = ${query.event}`]),
            ...(query.distinct_id === undefined ? [] : [sql`distinct_id = ${query.distinct_id}`]),
            ...(query.person_id === undefined ? [] : [sql`person_id = ${query.person_id}`]),
            ...(query.after === undefined ? [] : [sql`timestamp > ${query.after}`]),
            ...(query.before === undefined ? [] : [sql`timestamp < ${query.before}`]),
            ...(query.beyond === undefined
              ? []
              : [sql`(timestamp, uuid) < (${query.beyond.timestamp}, ${query.beyond.uuid}::uuid)`]),
            ...(query.properties ?? []).map(condition)
          ])}
          ORDER BY timestamp DESC, uuid DESC LIMIT ${query.limit} OFFSET ${query.offset}`).pipe(
            Effect.map((rows) => rows.map(toEvent))
          ),
        // Served by the partial index events_flag_calls_idx.
        lastFlagCalls: (projectId, keys) =>
          keys.length === 0
            ? Effect.succeed(new Map<string, Date>())
            : orStorageError(sql<{ key: string; last: Date }>`
              SELECT properties ->> '$feature_flag' AS key, max(timestamp) AS last FROM events
              WHERE project_id = ${projectId} AND event = '$feature_flag_called'
                AND properties ->> '$feature_flag' IN (SELECT unnest(${keys}::text[]))
              GROUP BY 1`).pipe(Effect.map((rows) => new Map(rows.map((r) => [r.key, r.last])))),
        volumes: (projectId, names, since) =>
          names.length === 0
            ? Effect.succeed(new Map<string, number>())
            : orStorageError(sql<{ event: string; volume: number }>`
              SELECT event, count(*)::int AS volume FROM events
              WHERE project_id = ${projectId} AND timestamp >= ${since} AND event IN (SELECT unnest(${names}::text[]))
              GROUP BY event`).pipe(Effect.map((rows) => new Map(rows.map((r) => [r.event, r.volume])))),
        deleteByPerson: (projectId, personId) =>
          orStorageError(sql<{ deleted: number }>`
          WITH gone AS (DELETE FROM events WHERE project_id = ${projectId} AND person_id = ${personId} RETURNING 1)
          SELECT count(*)::int AS deleted FROM gone`).pipe(Effect.map((rows) => rows[0]!.deleted))
      })
    })
  )
