import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // Only group properties have a group type index: NULL elsewhere, which a unique constraint would
  // treat as distinct from every other NULL, so the key is a unique index over it coalesced.
  yield* sql`CREATE TABLE property_definitions (
    project_id integer NOT NULL REFERENCES projects (id),
    owner text NOT NULL CHECK (owner IN ('event', 'person', 'group')),
    group_type_index smallint CHECK (group_type_index BETWEEN 0 AND 4),
    key text NOT NULL,
    property_type text NOT NULL CHECK (property_type IN ('String', 'Numeric', 'Boolean', 'DateTime')),
    created_at timestamptz NOT NULL DEFAULT now(),
    CHECK ((owner = 'group') = (group_type_index IS NOT NULL))
  )`
  yield* sql`CREATE UNIQUE INDEX property_definitions_key_idx
    ON property_definitions (project_id, owner, coalesce(group_type_index, -1), key)`
})
