import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

// Calculated membership of dynamic cohorts: each calculation writes its persons under a new version,
// and the cohort switches to it when done (readers see one whole membership or the one before).
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE cohort_members (
    cohort_id integer NOT NULL REFERENCES cohorts (id) ON DELETE CASCADE,
    version integer NOT NULL,
    person_id bigint NOT NULL REFERENCES persons (id) ON DELETE CASCADE,
    PRIMARY KEY (cohort_id, version, person_id)
  )`
  yield* sql`CREATE INDEX cohort_members_person_idx ON cohort_members (person_id)`
  yield* sql`ALTER TABLE cohorts
    ADD COLUMN calculated_version integer,
    ADD COLUMN last_calculation timestamptz,
    ADD COLUMN is_calculating boolean NOT NULL DEFAULT false,
    ADD COLUMN calculation_started_at timestamptz,
    ADD COLUMN errors_calculating integer NOT NULL DEFAULT 0`
})
