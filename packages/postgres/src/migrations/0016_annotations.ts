import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // An organization's annotations show in each of its projects: the organization is kept beside the project.
  yield* sql`CREATE TABLE annotations (
    id serial PRIMARY KEY,
    project_id integer NOT NULL REFERENCES projects (id),
    organization_id uuid NOT NULL REFERENCES organizations (id),
    content text,
    date_marker timestamptz,
    creation_type text NOT NULL,
    dashboard_item integer,
    dashboard_id integer,
    scope text NOT NULL,
    created_by integer,
    deleted boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
  )`
  yield* sql`CREATE INDEX annotations_project_idx ON annotations (project_id, date_marker DESC)`
  yield* sql`CREATE INDEX annotations_organization_idx ON annotations (organization_id) WHERE scope = 'organization'`
})
