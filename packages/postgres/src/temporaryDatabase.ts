import { randomBytes } from "node:crypto"
import pg from "pg"

export interface TemporaryDatabase {
  readonly url: string
  readonly drop: () => Promise<void>
}

const withClient = async <A>(url: string, f: (client: pg.Client) => Promise<A>): Promise<A> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await f(client)
  } finally {
    await client.end()
  }
}

/**
 * A new, empty database on the server at `serverUrl`, for tests that need a PostgreSQL of their own;
 * `drop` removes it, closing any connections left open.
 */
export const temporaryDatabase = async (serverUrl: string): Promise<TemporaryDatabase> => {
  const name = `zed_tmp_${randomBytes(6).toString("hex")}`
  await withClient(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`))
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: () =>
      withClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(
        () => undefined
      )
  }
}
