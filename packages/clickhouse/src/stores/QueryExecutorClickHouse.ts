import { clickhouse, CLICKHOUSE_QUERY_SETTINGS } from "@zed/core/domain"
import { isUuid, QueryCancelled, QueryExecutor, QueryFailed, QueryTimeout, StorageError } from "@zed/core/storage"
import { Effect, Layer } from "effect"
import { ClickHouse, type ClickHouseError, QUERY_WAS_CANCELLED, TIMEOUT_EXCEEDED } from "../ClickHouse.js"

// Compiled ZedQL on ClickHouse: read-only, in the project's time zone, stopped by ClickHouse at the
// time limit. A statement starts with a comment naming its execution, which is how `cancel` finds
// it with KILL QUERY from any instance.

const lead = (executionId: string) => `/* zed-query:${executionId.toLowerCase()} */ `

// Codes that say the server, not the statement, is in trouble (too busy, a network, Keeper or
// replica problem, out of disk): these are storage errors, the rest the query's fault.
const SERVER_FAULTS = new Set([202, 203, 209, 210, 225, 242, 243, 279, 285, 319, 425, 999, 1000])

const failure =
  (timeoutMs: number) =>
  (error: ClickHouseError): QueryTimeout | QueryCancelled | QueryFailed | StorageError => {
    if (error.code === TIMEOUT_EXCEEDED) return new QueryTimeout({ timeoutMs })
    if (error.code === QUERY_WAS_CANCELLED) return new QueryCancelled()
    if (error.code !== undefined && !SERVER_FAULTS.has(error.code)) return new QueryFailed({ message: error.message })
    return new StorageError({ message: `query failed: ${error.message}`, cause: error })
  }

/** Polls while a statement of this process may not have reached ClickHouse's process list yet. */
const KILL_ATTEMPTS = 30

export const QueryExecutorClickHouse = Layer.effect(
  QueryExecutor,
  Effect.gen(function* () {
    const ch = yield* ClickHouse
    const running = new Set<string>()

    // On a cluster the statement runs where its client sent it; its shards' parts stop with it.
    const processes =
      ch.cluster === undefined ? "system.processes" : `clusterAllReplicas(\`${ch.cluster}\`, system.processes)`
    const onCluster = ch.cluster === undefined ? "" : ` ON CLUSTER \`${ch.cluster}\``
    const kill = (executionId: string) =>
      Effect.gen(function* () {
        const params = { lead: lead(executionId) }
        const found = yield* ch.query({
          sql: `SELECT count() FROM ${processes} WHERE startsWith(query, {lead:String})`,
          params,
          control: true
        })
        if (Number(found.data[0]?.[0] ?? 0) === 0) return false
        yield* ch.command({
          sql: `KILL QUERY${onCluster} WHERE startsWith(query, {lead:String}) ASYNC`,
          params,
          control: true
        })
        return true
      }).pipe(
        Effect.mapError((error) => new StorageError({ message: `cancel failed: ${error.message}`, cause: error }))
      )

    return QueryExecutor.of({
      dialect: clickhouse,
      execute: (request) =>
        Effect.suspend(() => {
          if (!isUuid(request.executionId))
            return Effect.dieMessage(`execution id ${JSON.stringify(request.executionId)} is not a uuid`)
          const id = request.executionId.toLowerCase()
          running.add(id)
          return ch
            .query({
              sql: lead(id) + request.sql,
              params: Object.fromEntries(request.params.map((value, i) => [`p${i}`, value])),
              settings: {
                ...CLICKHOUSE_QUERY_SETTINGS,
                readonly: 2,
                max_execution_time: Math.max(request.timeoutMs, 1) / 1000,
                session_timezone: request.timezone,
                // On a cluster, a join or IN on a Distributed table reads all of its shards.
                ...(ch.cluster === undefined ? {} : { distributed_product_mode: "global" })
              }
            })
            .pipe(
              Effect.map((result) => ({
                columns: result.meta.map((m) => ({ name: m.name, typeOid: 0 })),
                rows: result.data
              })),
              Effect.mapError(failure(request.timeoutMs)),
              Effect.ensuring(Effect.sync(() => running.delete(id)))
            )
        }),
      cancel: (executionId) =>
        Effect.gen(function* () {
          if (!isUuid(executionId)) return false
          const id = executionId.toLowerCase()
          for (let attempt = 0; attempt < KILL_ATTEMPTS; attempt++) {
            if (yield* kill(id)) return true
            // Not (or no longer) running here: another instance's statement is found at once or not at all.
            if (!running.has(id)) return false
            yield* Effect.sleep("100 millis")
          }
          return false
        })
    })
  })
)
