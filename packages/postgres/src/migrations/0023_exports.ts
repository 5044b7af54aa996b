import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE exported_assets (
    id serial PRIMARY KEY,
    project_id integer NOT NULL REFERENCES projects (id),
    export_format text NOT NULL,
    export_context jsonb,
    insight integer,
    dashboard integer,
    filename text NOT NULL,
    expires_after timestamptz,
    created_by integer,
    has_content boolean NOT NULL DEFAULT false,
    exception text,
    row_count integer NOT NULL DEFAULT 0,
    content_size integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now()
  )`
  yield* sql`CREATE INDEX exported_assets_project_idx ON exported_assets (project_id, id DESC)`
  yield* sql`CREATE INDEX exported_assets_expiry_idx ON exported_assets (expires_after) WHERE expires_after IS NOT NULL`
  // The content, written as it is made: a chunk per page of rows.
  yield* sql`CREATE TABLE exported_asset_chunks (
    export_id integer NOT NULL REFERENCES exported_assets (id) ON DELETE CASCADE,
    seq integer NOT NULL,
    bytes bytea NOT NULL,
    PRIMARY KEY (export_id, seq)
  )`
})
