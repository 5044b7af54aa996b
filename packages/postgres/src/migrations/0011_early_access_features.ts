import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // Early access features, each released through its own feature flag (one feature per flag).
  yield* sql`CREATE TABLE early_access_features (
    id uuid PRIMARY KEY,
    project_id integer NOT NULL REFERENCES projects (id),
    feature_flag_id integer NOT NULL UNIQUE REFERENCES feature_flags (id),
    name text NOT NULL,
    description text NOT NULL DEFAULT '',
    stage text NOT NULL,
    documentation_url text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now()
  )`
  yield* sql`CREATE INDEX early_access_features_project_idx ON early_access_features (project_id, created_at DESC)`
})
