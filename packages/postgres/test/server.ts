import pg from "pg"

/** The PostgreSQL server tests run against (this machine's, trust auth). */
export const TEST_SERVER_URL = process.env["ZED_TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"

/** Whether the server still runs a ZedQL statement: this execution's, or any in that database. */
export const activeOnServer = async (of: string | { readonly database: string }) => {
  const client = new pg.Client({ connectionString: TEST_SERVER_URL })
  await client.connect()
  try {
    const found =
      typeof of === "string"
        ? await client.query("SELECT 1 FROM pg_stat_activity WHERE state = 'active' AND starts_with(query, $1)", [
            `/* zed-query:${of} */`
          ])
        : await client.query(
            "SELECT 1 FROM pg_stat_activity WHERE state = 'active' AND starts_with(query, '/* zed-query:') AND datname = $1",
            [of.database]
          )
    return found.rowCount! > 0
  } finally {
    await client.end()
  }
}
