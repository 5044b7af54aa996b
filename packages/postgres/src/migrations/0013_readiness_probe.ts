import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // One row every instance writes and reads back to tell load balancers it is ready (/_readyz).
  yield* sql`CREATE TABLE readiness_probe (
    id integer PRIMARY KEY CHECK (id = 1),
    checked_at timestamptz NOT NULL
  )`
})
