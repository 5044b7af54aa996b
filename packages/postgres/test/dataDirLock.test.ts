import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { dataDirLock, processStart } from "../src/dataDirLock.js"

// The data directory's lock keeps a second process out, and is taken over once its owner is gone,
// including when the owner's pid now belongs to another live process (pids are reused).

const dir = mkdtempSync(join(tmpdir(), "zed-lock-"))
const file = join(dir, "pgdata.lock")
let other: ChildProcess

beforeAll(async () => {
  // A live process that is not a Zed, to lend its pid.
  other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], { stdio: "ignore" })
  await new Promise((resolve) => other.once("spawn", resolve))
})

afterAll(() => {
  other.kill()
  rmSync(dir, { recursive: true, force: true })
})

const take = () => Effect.runPromiseExit(Effect.scoped(Effect.map(dataDirLock(file), () => readFileSync(file, "utf8"))))

const refusal = (exit: Exit.Exit<unknown, { message: string }>) =>
  Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error.message : undefined

describe("the data directory's lock", () => {
  it("records this process and its start, and is gone once released", async () => {
    const exit = await take()
    expect(Exit.isSuccess(exit)).toBe(true)
    if (process.platform === "linux")
      expect(Exit.isSuccess(exit) && exit.value).toBe(`${process.pid} ${processStart(process.pid)}`)
    expect(existsSync(file)).toBe(false)
  })

  it("keeps out while its owner runs", async () => {
    writeFileSync(file, [other.pid, processStart(other.pid!)].filter((part) => part !== undefined).join(" "))
    expect(refusal(await take())).toBe(
      `the data directory is in use by process ${other.pid} (lock file ${file}); stop that process first`
    )
    // A lock from before start times were recorded trusts a live pid.
    writeFileSync(file, String(other.pid))
    expect(refusal(await take())).toContain(`in use by process ${other.pid}`)
  })

  it.runIf(process.platform === "linux")(
    "is taken over when its pid now belongs to a process that started at another time",
    async () => {
      const [bootId, startTime] = processStart(other.pid!)!.split(":")
      writeFileSync(file, `${other.pid} ${bootId}:${Number(startTime) - 1}`)
      expect(Exit.isSuccess(await take())).toBe(true)
      // The same after a reboot: another boot id.
      writeFileSync(file, `${other.pid} 00000000-0000-0000-0000-000000000000:${startTime}`)
      expect(Exit.isSuccess(await take())).toBe(true)
    }
  )

  it("is taken over when its process is gone", async () => {
    const gone = spawn(process.execPath, ["-e", ""], { stdio: "ignore" })
    await new Promise((resolve) => gone.once("exit", resolve))
    writeFileSync(file, `${gone.pid} some-boot:1`)
    expect(Exit.isSuccess(await take())).toBe(true)
  })
})
