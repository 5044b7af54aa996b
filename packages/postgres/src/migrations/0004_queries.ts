import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

// Responses and results are kept as `json`, not `jsonb`: they are only ever returned whole, and
// `json` returns them as they were written (key order included) and accepts the \u0000 escapes that
// `jsonb` refuses. Both tables hold derived data, so they go with their project.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE query_cache (
    project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    key text NOT NULL,
    response json NOT NULL,
    last_refresh timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (project_id, key)
  )`
  yield* sql`CREATE INDEX query_cache_expiry_idx ON query_cache (expires_at)`
  yield* sql`CREATE TABLE query_statuses (
    project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    id text NOT NULL,
    query_async boolean NOT NULL,
    complete boolean NOT NULL,
    error boolean NOT NULL,
    error_message text,
    results json,
    start_time timestamptz,
    pickup_time timestamptz,
    end_time timestamptz,
    expiration_time timestamptz,
    task_id text,
    insight_id integer,
    dashboard_id integer,
    labels json,
    query_progress json,
    PRIMARY KEY (project_id, id)
  )`
  // A status without an expiration time is kept until removed.
  yield* sql`CREATE INDEX query_statuses_expiry_idx ON query_statuses (expiration_time) WHERE expiration_time IS NOT NULL`
})
