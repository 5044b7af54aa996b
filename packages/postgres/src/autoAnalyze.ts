import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer, Schedule } from "effect"

// PGlite has no autovacuum, so tables never get planner statistics: every estimate is a default
// (one row out of a filtered events scan), and Postgres then picks plans that are right only for
// tiny tables, such as a nested loop recomputing a sessions aggregate once per page view (a web
// stats table by entry page: seconds instead of milliseconds). This does autovacuum's ANALYZE part:
// a table changed by more than autovacuum's default threshold since it was last analyzed is analyzed.

/** How often the change counters are read. */
const EVERY = Duration.seconds(5)

/** autovacuum_analyze_threshold + autovacuum_analyze_scale_factor × rows, Postgres' defaults. */
const stale = (sql: SqlClient.SqlClient) =>
  sql<{ readonly name: string }>`SELECT quote_ident(relname) AS name FROM pg_stat_user_tables
    WHERE n_mod_since_analyze > 50 + 0.1 * greatest(n_live_tup, 0)`

const analyzeStale = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const { name } of yield* stale(sql)) yield* sql.unsafe(`ANALYZE ${name}`)
}).pipe(Effect.catchAll((error) => Effect.logWarning("tables could not be analyzed", error.message)))

/** Analyzes the tables that changed enough, now and every few seconds, while the storage lives. */
export const autoAnalyze: Layer.Layer<never, never, SqlClient.SqlClient> = Layer.scopedDiscard(
  Effect.forkScoped(Effect.repeat(analyzeStale, Schedule.spaced(EVERY)))
)
