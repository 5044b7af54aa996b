import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs"
import { StorageError } from "@zed/core/storage"
import { Effect } from "effect"

// PGlite is one process's database: a second process opening the same directory would corrupt it.
// A lock file holding the owner's pid keeps others out; a lock whose process is gone (killed, say)
// is taken over. A pid is reused once its process is gone, so on Linux the lock also records when
// its process started (boot id and start time): a live process under that pid that started at
// another time is not the owner, and the lock is stale. Elsewhere a live pid is trusted.

const held = new Set<string>()

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** When process `pid` started, as `<boot id>:<start time in clock ticks>`; undefined where /proc cannot say. */
export const processStart = (pid: number): string | undefined => {
  try {
    const bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // Field 2 (the command) is in parentheses and may hold spaces; field 22, the start time, is the
    // 20th after it.
    const startTime = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]
    return startTime === undefined ? undefined : `${bootId}:${startTime}`
  } catch {
    return undefined
  }
}

const tryCreate = (file: string) => {
  try {
    const fd = openSync(file, "wx", 0o600)
    writeSync(fd, [process.pid, processStart(process.pid)].filter((part) => part !== undefined).join(" "))
    closeSync(fd)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false
    throw error
  }
}

/** Whether the lock's contents name a process that still runs: the pid, and its start when recorded and knowable. */
const ownerRuns = (contents: string) => {
  const [pidText = "", started] = contents.trim().split(" ")
  const pid = Number(pidText)
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || !alive(pid)) return undefined
  const now = started === undefined ? undefined : processStart(pid)
  return now === undefined || now === started ? pid : undefined
}

const acquire = (file: string) =>
  Effect.try({
    try: () => {
      if (held.has(file)) throw new Error(`${file} is already open in this process`)
      for (let attempt = 0; attempt < 2; attempt++) {
        if (tryCreate(file)) return held.add(file)
        const owner = ownerRuns(readFileSync(file, "utf8"))
        if (owner !== undefined) {
          throw new Error(
            `the data directory is in use by process ${owner} (lock file ${file}); stop that process first`
          )
        }
        unlinkSync(file)
      }
      throw new Error(`could not take the lock ${file}`)
    },
    catch: (cause) => new StorageError({ message: (cause as Error).message, cause })
  })

/** Holds `file` as this process's lock for the scope's lifetime. */
export const dataDirLock = (file: string) =>
  Effect.acquireRelease(acquire(file), () =>
    Effect.sync(() => {
      held.delete(file)
      try {
        unlinkSync(file)
      } catch {
        // already gone
      }
    })
  )
