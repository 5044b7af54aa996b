import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // Surveys: questions, conditions and appearance as validated JSON; the flags that target them.
  yield* sql`CREATE TABLE surveys (
    id uuid PRIMARY KEY,
    project_id integer NOT NULL REFERENCES projects (id),
    name text NOT NULL,
    description text NOT NULL DEFAULT '',
    type text NOT NULL,
    schedule text,
    questions jsonb NOT NULL,
    conditions jsonb,
    appearance jsonb,
    linked_flag_id integer REFERENCES feature_flags (id),
    targeting_flag_id integer REFERENCES feature_flags (id),
    internal_targeting_flag_id integer REFERENCES feature_flags (id),
    start_date timestamptz,
    end_date timestamptz,
    archived boolean NOT NULL DEFAULT false,
    responses_limit integer,
    enable_partial_responses boolean,
    created_by integer REFERENCES users (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (project_id, name)
  )`
  yield* sql`CREATE INDEX surveys_project_idx ON surveys (project_id, created_at DESC)`
})
