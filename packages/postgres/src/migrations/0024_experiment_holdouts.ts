import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // Holdouts: a share of persons kept out of the experiments using one; filters as PostHog keeps them.
  yield* sql`CREATE TABLE experiment_holdouts (
    id serial PRIMARY KEY,
    project_id integer NOT NULL REFERENCES projects (id),
    name text NOT NULL,
    description text,
    filters jsonb NOT NULL,
    created_by integer,
    deleted boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
  )`
  yield* sql`CREATE INDEX experiment_holdouts_project_idx ON experiment_holdouts (project_id, id DESC) WHERE NOT deleted`
  yield* sql`ALTER TABLE experiments ADD COLUMN holdout_id integer REFERENCES experiment_holdouts (id)`
  // Zed's own: the hypothesis, apart from the description.
  yield* sql`ALTER TABLE experiments ADD COLUMN hypothesis text`
})
