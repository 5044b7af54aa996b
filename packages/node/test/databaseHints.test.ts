import { createServer, type Server } from "node:net"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { TEST_SERVER_URL } from "../../postgres/test/server.js"
import { runZed } from "./processes.js"

// `zed serve` on a PostgreSQL it cannot use says why in one line, with what to do, and exits
// non-zero without a stack trace.

const servers: Array<Server> = []
afterAll(() => {
  for (const server of servers) server.close()
})

/** A port that accepts connections and never says a word, or one nothing listens on. */
const port = async (keepListening: boolean) => {
  const server = createServer(() => {})
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as { port: number }
  if (keepListening) servers.push(server)
  else await new Promise((resolve) => server.close(resolve))
  return port
}

const server = new URL(TEST_SERVER_URL)
const withUrl = (change: (url: URL) => void) => {
  const url = new URL(TEST_SERVER_URL)
  change(url)
  return url.toString()
}

const serveOn = async (databaseUrl: string) => {
  const { code, stdout, stderr } = await runZed(["serve"], { DATABASE_URL: databaseUrl, PORT: "0", HOST: "127.0.0.1" })
  expect(code).not.toBe(0)
  expect(stdout).toBe("")
  const lines = stderr.trim().split("\n")
  expect(lines, stderr).toHaveLength(1)
  expect(stderr).not.toMatch(/\n\s+at /)
  return lines[0]!
}

describe("zed serve on a PostgreSQL it cannot use", () => {
  it("nothing listening", async () => {
    const closed = await port(false)
    expect(await serveOn(`postgres://postgres@127.0.0.1:${closed}/test`)).toBe(
      `zed serve: nothing is listening at 127.0.0.1:${closed}: start PostgreSQL there, or correct the host and port in DATABASE_URL`
    )
  })

  it("an unknown host", async () => {
    expect(await serveOn("postgres://postgres@zed-no-such-host.invalid:5432/test")).toBe(
      `zed serve: the host "zed-no-such-host.invalid" is not known: correct the host in DATABASE_URL`
    )
  })

  it("a database that does not exist", async () => {
    const line = await serveOn(withUrl((url) => (url.pathname = "/zed_no_such_database")))
    expect(line).toContain(
      `the database "zed_no_such_database" does not exist on ${server.hostname}:${server.port || 5432}`
    )
    expect(line).toContain(`createdb -h ${server.hostname} -p ${server.port || 5432}`)
  })

  it("a role that may not log in", async () => {
    const line = await serveOn(withUrl((url) => (url.username = "zed_no_such_role")))
    expect(line).toContain(`does not let role "zed_no_such_role" in`)
    expect(line).toContain("createuser")
  })

  it("a malformed DATABASE_URL", async () => {
    expect(await serveOn("not a url")).toMatch(/^zed serve: DATABASE_URL is not a URL; it takes the form postgres:\/\//)
    expect(await serveOn("mysql://root@127.0.0.1/test")).toBe(
      `zed serve: DATABASE_URL starts with "mysql://"; it takes the form postgres://user:password@host:5432/database`
    )
  })

  it("a server that never answers", async () => {
    const silent = await port(true)
    expect(await serveOn(`postgres://postgres@127.0.0.1:${silent}/test`)).toBe(
      `zed serve: PostgreSQL at 127.0.0.1:${silent} did not answer in time: check that it runs there and that no firewall drops the connection`
    )
  }, 30_000)
})
