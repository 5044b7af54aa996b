import { createClient } from "@clickhouse/client"
import { Effect, Layer } from "effect"
import { ClickHouse, clickhouseError, type ClickHouseError, type QueryResult, RESULT_SETTINGS } from "./ClickHouse.js"

// A ClickHouse server or cluster over its HTTP interface, through the official client.

export interface HttpOptions {
  /** `http(s)://user:password@host:8123/database` */
  readonly url: string
  /** With a cluster, tables are Replicated on each node and read through Distributed ones. */
  readonly cluster?: string | undefined
  /** Connections kept open (default 10). */
  readonly connections?: number
}

export const httpClickHouse = (options: HttpOptions): Layer.Layer<ClickHouse, ClickHouseError> =>
  Layer.scoped(
    ClickHouse,
    Effect.gen(function* () {
      const client = yield* Effect.acquireRelease(
        Effect.sync(() =>
          createClient({
            url: options.url,
            max_open_connections: options.connections ?? 10,
            request_timeout: 3_600_000
          })
        ),
        (client) => Effect.promise(() => client.close())
      )
      yield* Effect.tryPromise({
        try: () => client.ping({ select: true }).then((r) => (r.success ? undefined : Promise.reject(r.error))),
        catch: clickhouseError
      })
      return ClickHouse.of({
        engine: "http",
        cluster: options.cluster,
        query: ({ params, settings, sql }) =>
          Effect.tryPromise({
            try: async () => {
              const result = await client.query({
                query: sql,
                format: "JSONCompact",
                query_params: { ...params },
                clickhouse_settings: { ...RESULT_SETTINGS, ...settings }
              })
              const parsed = (await result.json()) as QueryResult
              return { meta: parsed.meta, data: parsed.data }
            },
            catch: clickhouseError
          }),
        command: ({ params, settings, sql }) =>
          Effect.tryPromise({
            try: () =>
              client.command({ query: sql, query_params: { ...params }, clickhouse_settings: { ...settings } }),
            catch: clickhouseError
          }).pipe(Effect.asVoid),
        insert: (table, rows, settings) =>
          rows.length === 0
            ? Effect.void
            : Effect.tryPromise({
                try: () =>
                  client.insert({
                    table,
                    values: rows as Array<Record<string, unknown>>,
                    format: "JSONEachRow",
                    clickhouse_settings: { ...settings }
                  }),
                catch: clickhouseError
              }).pipe(Effect.asVoid)
      })
    })
  )
