import { describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schedule } from "effect"
import { autoAnalyze } from "../src/autoAnalyze.js"
import { pgliteClient } from "../src/index.js"

// PGlite has no autovacuum: the embedded store analyzes the tables that changed enough itself, so
// that the planner estimates rows from statistics rather than defaults.

const ROWS = 5000

/** The planner's estimate of the rows a statement returns. */
const estimate = (sql: SqlClient.SqlClient, statement: string) =>
  Effect.map(sql.unsafe<{ "QUERY PLAN": string }>(`EXPLAIN ${statement}`), (rows) =>
    Number(/rows=(\d+)/.exec(rows[0]!["QUERY PLAN"])![1])
  )

describe("automatic ANALYZE on PGlite", () => {
  it.live(
    "analyzes a table once it has changed, and the planner then knows its rows",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql.unsafe("CREATE TABLE analyzed (n int)")
        yield* sql.unsafe(`INSERT INTO analyzed SELECT generate_series(1, ${ROWS})`)
        const half = `SELECT * FROM analyzed WHERE n > ${ROWS / 2}`
        // Waits (event-driven, by polling the statistics) until the table has been analyzed.
        yield* sql<{
          readonly analyzed: boolean
        }>`SELECT last_analyze IS NOT NULL AS analyzed FROM pg_stat_user_tables WHERE relname = 'analyzed'`.pipe(
          Effect.filterOrFail((rows) => rows[0]?.analyzed === true),
          Effect.retry(Schedule.spaced("200 millis")),
          Effect.timeout("60 seconds")
        )
        const guess = yield* estimate(sql, half)
        // Half the rows, give or take the sample's error.
        expect(guess).toBeGreaterThan(ROWS * 0.4)
        expect(guess).toBeLessThan(ROWS * 0.6)
      }).pipe(Effect.provide(Layer.provideMerge(autoAnalyze, pgliteClient()))),
    90_000
  )
})
