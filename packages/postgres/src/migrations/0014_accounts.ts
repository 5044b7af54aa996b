import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // Users so far held every power through their keys: they become admins, the bootstrap admin the owner.
  yield* sql`ALTER TABLE users ADD COLUMN level smallint NOT NULL DEFAULT 8, ADD COLUMN password_hash text`
  yield* sql`UPDATE users SET level = 15 WHERE id = (SELECT min(id) FROM users)`
  yield* sql`ALTER TABLE users ALTER COLUMN level DROP DEFAULT`
  yield* sql`ALTER TABLE personal_api_keys ADD COLUMN scoped_organizations jsonb, ADD COLUMN last_rolled_at timestamptz`
  yield* sql`CREATE INDEX personal_api_keys_user ON personal_api_keys (user_id)`
  yield* sql`CREATE TABLE sessions (
    digest text PRIMARY KEY,
    user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL
  )`
  yield* sql`CREATE INDEX sessions_user ON sessions (user_id)`
  yield* sql`CREATE TABLE invites (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    target_email text NOT NULL,
    first_name text NOT NULL DEFAULT '',
    level smallint NOT NULL,
    created_by integer REFERENCES users (id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  )`
})
