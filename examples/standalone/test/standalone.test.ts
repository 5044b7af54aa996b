import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, describe, expect, it } from "@effect/vitest"

const here = fileURLToPath(new URL("..", import.meta.url))
const KEY = "phx_standalone_example_key_0000001"
const children: Array<ChildProcess> = []
const dirs: Array<string> = []

// `npm start` runs zed through a shell, so the whole process group is stopped, not only npm.
afterEach(async () => {
  await Promise.all(
    children.splice(0).map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve()
          child.once("exit", () => resolve())
          process.kill(-child.pid!, "SIGTERM")
        })
    )
  )
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const start = (command: string, args: Array<string>) =>
  new Promise<string>((resolve, reject) => {
    const dataDir = mkdtempSync(join(tmpdir(), "zed-standalone-"))
    dirs.push(dataDir)
    const child = spawn(command, args, {
      cwd: here,
      detached: true,
      env: { ...process.env, PORT: "0", HOST: "127.0.0.1", ZED_DATA_DIR: dataDir, ZED_PERSONAL_API_KEY: KEY }
    })
    children.push(child)
    let output = ""
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const url = /Zed listening on (\S+)/.exec(output)?.[1]
      if (url) resolve(url)
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", onData)
    child.once("exit", (code) => reject(new Error(`exited with ${code}: ${output}`)))
  })

describe("standalone example", () => {
  it.each([
    ["npm start (zed serve)", "npm", ["start", "--silent"]],
    ["server.js (serve from code)", process.execPath, ["server.js"]]
  ])("%s answers health and the projects API", async (_name, command, args) => {
    const url = await start(command as string, args as Array<string>)
    expect((await fetch(`${url}/_health`)).status).toBe(200)
    const projects = await (await fetch(`${url}/api/projects/`, { headers: { authorization: `Bearer ${KEY}` } })).json()
    expect(projects).toMatchObject({ count: 1, results: [{ id: 1, name: "Default project" }] })
  })
})
