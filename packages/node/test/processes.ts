import { type ChildProcess, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

export const BIN = fileURLToPath(new URL("../bin/zed.js", import.meta.url))

export interface Started {
  readonly child: ChildProcess
  readonly url: string
  readonly output: () => string
  readonly stop: () => Promise<number | null>
}

/** Runs `zed serve` as its own process and waits until it listens. */
export const startZed = (env: Record<string, string>, cwd?: string): Promise<Started> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "serve"], {
      env: { ...process.env, PORT: "0", HOST: "127.0.0.1", ...env },
      cwd
    })
    let output = ""
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const listening = /Zed listening on (http:\/\/\S+)/.exec(output)
      if (listening) {
        resolve({
          child,
          url: listening[1]!,
          output: () => output,
          stop: () =>
            new Promise((done) => {
              child.once("exit", (code) => done(code))
              child.kill("SIGTERM")
            })
        })
      }
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", onData)
    child.once("exit", (code) => reject(new Error(`zed serve exited with ${code}:\n${output}`)))
  })

/** Runs one `zed` command to completion. */
export const runZed = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()))
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()))
    child.once("exit", (code) => resolve({ code, stdout, stderr }))
  })

export const api = async (url: string, key: string, init: RequestInit = {}) => {
  const response = await fetch(url, {
    ...init,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }
  })
  return { status: response.status, json: (await response.json()) as any }
}
