import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // Heatmap points from posthog-js's $$heatmap events and scroll depths, as PostHog keeps them:
  // coordinates and viewport divided by scale_factor. event_uuid and ordinal make a point land once.
  yield* sql`CREATE TABLE heatmaps (
    project_id integer NOT NULL REFERENCES projects (id),
    event_uuid uuid NOT NULL,
    ordinal integer NOT NULL,
    timestamp timestamptz NOT NULL,
    session_id text,
    distinct_id text NOT NULL,
    type text NOT NULL,
    x integer NOT NULL,
    y integer NOT NULL,
    scale_factor integer NOT NULL,
    viewport_width integer NOT NULL,
    viewport_height integer NOT NULL,
    pointer_target_fixed boolean NOT NULL,
    current_url text NOT NULL,
    PRIMARY KEY (project_id, event_uuid, ordinal)
  )`
  yield* sql`CREATE INDEX heatmaps_url_idx ON heatmaps (project_id, type, current_url, timestamp)`
})
