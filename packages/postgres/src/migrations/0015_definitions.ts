import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // What users describe definitions by; property definitions get an id the API names them by.
  yield* sql`ALTER TABLE property_definitions
    ADD COLUMN id uuid NOT NULL DEFAULT gen_random_uuid(),
    ADD COLUMN description text NOT NULL DEFAULT '',
    ADD COLUMN tags jsonb NOT NULL DEFAULT '[]',
    ADD COLUMN verified boolean NOT NULL DEFAULT false,
    ADD COLUMN verified_at timestamptz,
    ADD COLUMN hidden boolean NOT NULL DEFAULT false,
    ADD COLUMN updated_at timestamptz`
  yield* sql`CREATE UNIQUE INDEX property_definitions_id_idx ON property_definitions (project_id, id)`
  yield* sql`CREATE TABLE event_definitions (
    id uuid NOT NULL DEFAULT gen_random_uuid(),
    project_id integer NOT NULL REFERENCES projects (id),
    name text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz,
    description text NOT NULL DEFAULT '',
    tags jsonb NOT NULL DEFAULT '[]',
    verified boolean NOT NULL DEFAULT false,
    verified_at timestamptz,
    hidden boolean NOT NULL DEFAULT false,
    updated_at timestamptz,
    PRIMARY KEY (project_id, name)
  )`
  yield* sql`CREATE UNIQUE INDEX event_definitions_id_idx ON event_definitions (project_id, id)`
  // Which property keys came with which events, for listing the properties of given events.
  yield* sql`CREATE TABLE event_properties (
    project_id integer NOT NULL REFERENCES projects (id),
    event text NOT NULL,
    property text NOT NULL,
    PRIMARY KEY (project_id, event, property)
  )`
})
