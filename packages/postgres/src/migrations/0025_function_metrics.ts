import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // Zed functions' invocations counted per hour and outcome; added to as functions run, in batches.
  yield* sql`CREATE TABLE function_metrics (
    function_id text NOT NULL,
    hour timestamptz NOT NULL,
    name text NOT NULL,
    project_id integer NOT NULL REFERENCES projects (id),
    kind text NOT NULL,
    count bigint NOT NULL,
    PRIMARY KEY (function_id, hour, name)
  )`
})
