import { fork } from "node:child_process"
import { request } from "node:http"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { temporaryDatabase } from "@zed/postgres"
import autocannon from "autocannon"

/** Sends `{memory: what}` to a server reporting its memory (servers/memory.js) and answers its answer. */
const askMemory = (child, what) =>
  new Promise((resolve) => {
    const answer = (message) => {
      if (message.memory === undefined) return
      child.off("message", answer)
      resolve(message.memory)
    }
    child.on("message", answer)
    child.send({ memory: what })
  })

/**
 * Starts a bench server in its own process (so the load generator does not share its core). `stop`
 * kills it; `close` disconnects it and waits for it to exit, for servers that shut down on
 * disconnect (closing their storage properly). `sampleMemory`, for servers that report their memory,
 * starts sampling it and answers the function that stops and answers the figures.
 */
export const startServer = (script, args, env) =>
  new Promise((resolve, reject) => {
    const child = fork(new URL(script, import.meta.url), args, { env: { ...process.env, ...env }, stdio: "inherit" })
    const exited = new Promise((done) => child.once("exit", done))
    child.once("message", ({ port }) =>
      resolve({
        url: `http://127.0.0.1:${port}`,
        pid: child.pid,
        stop: () => child.kill(),
        close: () => {
          child.disconnect()
          return exited
        },
        sampleMemory: async () => {
          await askMemory(child, "start")
          return () => askMemory(child, "stop")
        }
      })
    )
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code}`)))
  })

/** Requests per second against `url`, after a warm-up; non-2xx answers fail the run. */
export const load = async (url, headers, { connections = 10, seconds = 10 } = {}) => {
  await autocannon({ url, headers, connections, duration: 2 })
  const result = await autocannon({ url, headers, connections, duration: seconds })
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`)
  return { rps: result.requests.average, p99: result.latency.p99 }
}

/** Replaces the section between `<!-- bench:name -->` markers in docs/performance.md. */
export const record = (name, markdown) => {
  const file = new URL("../docs/performance.md", import.meta.url)
  const doc = readFileSync(file, "utf8")
  const start = `<!-- bench:${name} -->`
  const end = `<!-- /bench:${name} -->`
  const at = doc.indexOf(start)
  const until = doc.indexOf(end)
  if (at < 0 || until < 0) throw new Error(`docs/performance.md has no ${start} section`)
  writeFileSync(file, doc.slice(0, at + start.length) + "\n" + markdown + "\n" + doc.slice(until))
}

/**
 * Fresh places of one store for a benchmark's runs: `place()` answers `pglite:<dir>` or
 * `postgres:<url>` for a new directory or database, `cleanup()` removes them all.
 */
export const storePlaces = (store, serverUrl) => {
  const cleanups = []
  return {
    place: async () => {
      if (store === "PGlite") {
        const dir = mkdtempSync(join(tmpdir(), "zed-bench-"))
        cleanups.push(async () => rmSync(dir, { recursive: true, force: true }))
        return `pglite:${join(dir, "pgdata")}`
      }
      const db = await temporaryDatabase(serverUrl)
      cleanups.push(db.drop)
      return `postgres:${db.url}`
    },
    cleanup: async () => {
      for (const cleanup of cleanups) await cleanup()
    }
  }
}

/** POSTs a JSON body to a capture endpoint over a keep-alive agent; anything but 200 fails. */
export const postJson = (agent, url, body) =>
  new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) }
      },
      (res) => {
        const chunks = []
        res.on("data", (c) => chunks.push(c))
        res.on("end", () =>
          res.statusCode === 200
            ? resolve()
            : reject(new Error(`ingest answered ${res.statusCode}: ${Buffer.concat(chunks)}`))
        )
      }
    )
    req.on("error", reject)
    req.end(body)
  })

/** A management API call with a personal API key; anything but 2xx fails. */
export const apiCall = async (server, key, method, path, body) => {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
  return response.json()
}
