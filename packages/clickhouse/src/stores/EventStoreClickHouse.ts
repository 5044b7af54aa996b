import { EventStore, type StoredEvent } from "@zed/core/storage"
import { Effect, Layer } from "effect"
import { ClickHouse } from "../ClickHouse.js"
import { afterCommit, asStorageError } from "../outbox.js"
import { fromUtcText, Params, utcText } from "../params.js"
import { mutationTarget } from "../schema.js"
import { propertyCondition } from "./propertyCondition.js"

// Events in ClickHouse. Which events of a batch are new is looked up before they are written, near
// their timestamps: an SDK's retry of an event carries the same uuid and, normalized against its new
// `sent_at`, the same timestamp give or take the request's latency. Writes wait for the enclosing
// transaction to commit (outbox.ts).

/** How far from a batch's timestamps a stored copy of one of its events is looked for. */
const RETRY_WINDOW_MS = 86_400_000

const COLUMNS =
  "toString(uuid), event, distinct_id, toString(person_id), properties, timestamp, created_at, group_0, group_1, group_2, group_3, group_4"

const toEvent = (row: ReadonlyArray<unknown>): StoredEvent => ({
  uuid: row[0] as string,
  event: row[1] as string,
  distinct_id: row[2] as string,
  person_id: row[3] as string,
  properties: JSON.parse(row[4] as string) as Record<string, unknown>,
  timestamp: fromUtcText(row[5] as string),
  created_at: fromUtcText(row[6] as string),
  groups: row.slice(7, 12) as Array<string | null>
})

export const EventStoreClickHouse = Layer.effect(
  EventStore,
  Effect.gen(function* () {
    const ch = yield* ClickHouse
    const query = (sql: string, params: Params) =>
      Effect.mapError(ch.query({ sql, params: params.values }), asStorageError)

    /** Uuids among `events` already stored in the project. */
    const stored = (projectId: number, events: ReadonlyArray<StoredEvent>) => {
      const times = events.map((e) => e.timestamp.getTime())
      const p = new Params()
      return Effect.map(
        query(
          `SELECT DISTINCT toString(uuid) FROM events WHERE project_id = ${p.bind(projectId, "Int64")}
          AND timestamp >= ${p.bind(utcText(new Date(Math.min(...times) - RETRY_WINDOW_MS)), "DateTime64(6, 'UTC')")}
          AND timestamp <= ${p.bind(utcText(new Date(Math.max(...times) + RETRY_WINDOW_MS)), "DateTime64(6, 'UTC')")}
          AND uuid IN ${p.bind(
            events.map((e) => e.uuid),
            "Array(UUID)"
          )}`,
          p
        ),
        (result) => new Set(result.data.map((row) => row[0] as string))
      )
    }

    const row = (projectId: number, e: StoredEvent) => ({
      project_id: projectId,
      uuid: e.uuid,
      event: e.event,
      distinct_id: e.distinct_id,
      person_id: e.person_id,
      properties: JSON.stringify(e.properties),
      timestamp: utcText(e.timestamp),
      created_at: utcText(e.created_at),
      group_0: e.groups[0] ?? null,
      group_1: e.groups[1] ?? null,
      group_2: e.groups[2] ?? null,
      group_3: e.groups[3] ?? null,
      group_4: e.groups[4] ?? null
    })

    return EventStore.of({
      insert: (projectId, events) =>
        Effect.gen(function* () {
          if (events.length === 0) return new Set<string>()
          const known = yield* stored(projectId, events)
          const fresh = new Map<string, StoredEvent>()
          for (const e of events) if (!known.has(e.uuid) && !fresh.has(e.uuid)) fresh.set(e.uuid, e)
          if (fresh.size > 0) {
            // On a cluster, acknowledged only once on the shards, where the next batch's lookup finds them.
            const settings = ch.cluster === undefined ? undefined : { insert_distributed_sync: 1 }
            yield* afterCommit(
              "events",
              ch.insert(
                "events",
                [...fresh.values()].map((e) => row(projectId, e)),
                settings
              )
            )
          }
          return new Set(fresh.keys())
        }),
      repoint: (projectId, moves) => {
        if (moves.length === 0) return Effect.void
        const p = new Params()
        const from = p.bind(
          moves.map((m) => m.from),
          "Array(String)"
        )
        const to = p.bind(
          moves.map((m) => m.to),
          "Array(String)"
        )
        return afterCommit(
          "repoint",
          ch.command({
            sql: `ALTER TABLE ${mutationTarget(ch.cluster, "events")} UPDATE person_id = toUUID(transform(toString(person_id), ${from}, ${to}, toString(person_id)))
          WHERE project_id = ${p.bind(projectId, "Int64")} AND has(${from}, toString(person_id))`,
            params: p.values,
            settings: { mutations_sync: 2 }
          })
        )
      },
      list: (projectId, q) => {
        const p = new Params()
        const conditions = [
          `project_id = ${p.bind(projectId, "Int64")}`,
          ...(q.uuid === undefined ? [] : [`uuid = ${p.bind(q.uuid, "UUID")}`]),
          ...(q.event === undefined ? [] : [`event = ${p.bind(q.event, "String")}`]),
          ...(q.distinct_id === undefined ? [] : [`distinct_id = ${p.bind(q.distinct_id, "String")}`]),
          ...(q.person_id === undefined ? [] : [`person_id = ${p.bind(q.person_id, "UUID")}`]),
          ...(q.after === undefined ? [] : [`timestamp > ${p.bind(utcText(q.after), "DateTime64(6, 'UTC')")}`]),
          ...(q.before === undefined ? [] : [`timestamp < ${p.bind(utcText(q.before), "DateTime64(6, 'UTC')")}`]),
          ...(q.beyond === undefined
            ? []
            : [
                `(timestamp, toString(uuid)) < (${p.bind(utcText(q.beyond.timestamp), "DateTime64(6, 'UTC')")}, ${p.bind(q.beyond.uuid, "String")})`
              ]),
          ...(q.properties ?? []).map(propertyCondition(p, "properties"))
        ]
        return Effect.map(
          query(
            `SELECT ${COLUMNS} FROM events WHERE ${conditions.join(" AND ")}
            ORDER BY timestamp DESC, toString(uuid) DESC LIMIT 1 BY uuid LIMIT ${p.bind(q.limit, "UInt64")} OFFSET ${p.bind(q.offset, "UInt64")}`,
            p
          ),
          (result) => result.data.map(toEvent)
        )
      },
      lastFlagCalls: (projectId, keys) => {
        if (keys.length === 0) return Effect.succeed(new Map<string, Date>())
        const p = new Params()
        return Effect.map(
          query(
            `SELECT JSONExtractString(properties, '$feature_flag') AS key, max(timestamp) FROM events
            WHERE project_id = ${p.bind(projectId, "Int64")} AND event = '$feature_flag_called' AND key IN ${p.bind(keys, "Array(String)")}
            GROUP BY key`,
            p
          ),
          (result) => new Map(result.data.map((row) => [row[0] as string, fromUtcText(row[1] as string)]))
        )
      },
      volumes: (projectId, names, since) => {
        if (names.length === 0) return Effect.succeed(new Map<string, number>())
        const p = new Params()
        return Effect.map(
          query(
            `SELECT event, count(DISTINCT uuid) FROM events
            WHERE project_id = ${p.bind(projectId, "Int64")} AND timestamp >= ${p.bind(utcText(since), "DateTime64(6, 'UTC')")}
              AND event IN ${p.bind(names, "Array(String)")}
            GROUP BY event`,
            p
          ),
          (result) => new Map(result.data.map((row) => [row[0] as string, Number(row[1])]))
        )
      },
      deleteByPerson: (projectId, personId) =>
        Effect.gen(function* () {
          const p = new Params()
          const where = `project_id = ${p.bind(projectId, "Int64")} AND person_id = ${p.bind(personId, "UUID")}`
          const counted = yield* query(`SELECT count(DISTINCT uuid) FROM events WHERE ${where}`, p)
          const count = Number(counted.data[0]?.[0] ?? 0)
          if (count > 0) {
            yield* Effect.mapError(
              ch.command({
                sql: `DELETE FROM ${mutationTarget(ch.cluster, "events")} WHERE ${where}`,
                params: p.values,
                settings: { mutations_sync: 2 }
              }),
              asStorageError
            )
          }
          return count
        })
    })
  })
)
