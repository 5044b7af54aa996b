import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // An export of ten million events is 16 GB of CSV: its size (and, in time, its rows) outgrow 32 bits.
  yield* sql`ALTER TABLE exported_assets ALTER COLUMN content_size TYPE bigint, ALTER COLUMN row_count TYPE bigint`
})
