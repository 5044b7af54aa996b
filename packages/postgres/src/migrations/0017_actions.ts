import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE actions (
    id serial PRIMARY KEY,
    project_id integer NOT NULL REFERENCES projects (id),
    name text NOT NULL,
    description text NOT NULL,
    tags jsonb NOT NULL,
    steps jsonb NOT NULL,
    post_to_slack boolean NOT NULL,
    slack_message_format text NOT NULL,
    created_by integer,
    deleted boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
  )`
  yield* sql`CREATE INDEX actions_project_idx ON actions (project_id, id DESC) WHERE NOT deleted`
})
