import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE projects ADD COLUMN test_account_filters jsonb NOT NULL DEFAULT '[]'`
})
