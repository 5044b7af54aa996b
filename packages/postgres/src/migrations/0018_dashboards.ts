import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

// Dashboards as PostHog keeps them: pinned, tagged, soft-deleted; tiles with a layout per screen
// size and a colour, holding an insight or a text card; sharing configurations for dashboards too.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE dashboards
    ADD COLUMN pinned boolean NOT NULL DEFAULT false,
    ADD COLUMN tags jsonb NOT NULL DEFAULT '[]',
    ADD COLUMN deleted boolean NOT NULL DEFAULT false`
  yield* sql`ALTER TABLE dashboard_tiles
    ALTER COLUMN insight_id DROP NOT NULL,
    ADD COLUMN layouts jsonb NOT NULL DEFAULT '{}',
    ADD COLUMN color text,
    ADD COLUMN text text`
  // A configuration shares an insight or a dashboard.
  yield* sql`ALTER TABLE sharing_configurations
    DROP CONSTRAINT sharing_configurations_pkey,
    ALTER COLUMN insight_id DROP NOT NULL,
    ADD COLUMN dashboard_id integer UNIQUE REFERENCES dashboards (id),
    ADD CONSTRAINT sharing_configurations_insight_key UNIQUE (insight_id),
    ADD CONSTRAINT sharing_configurations_target CHECK ((insight_id IS NULL) <> (dashboard_id IS NULL))`
})
