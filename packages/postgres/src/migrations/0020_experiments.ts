import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // Experiments: an A/B test on a multivariate flag; parameters, metrics and criteria as validated JSON.
  yield* sql`CREATE TABLE experiments (
    id serial PRIMARY KEY,
    project_id integer NOT NULL REFERENCES projects (id),
    name text NOT NULL,
    description text NOT NULL DEFAULT '',
    feature_flag_id integer NOT NULL REFERENCES feature_flags (id),
    parameters jsonb NOT NULL,
    filters jsonb NOT NULL,
    metrics jsonb NOT NULL,
    metrics_secondary jsonb NOT NULL,
    exposure_criteria jsonb,
    stats_config jsonb,
    start_date timestamptz,
    end_date timestamptz,
    archived boolean NOT NULL DEFAULT false,
    type text NOT NULL,
    conclusion text,
    conclusion_comment text,
    created_by integer,
    deleted boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
  )`
  yield* sql`CREATE INDEX experiments_project_idx ON experiments (project_id, id DESC) WHERE NOT deleted`
  yield* sql`CREATE INDEX experiments_flag_idx ON experiments (project_id, feature_flag_id) WHERE NOT deleted`
})
