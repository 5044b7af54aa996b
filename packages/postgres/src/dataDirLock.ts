import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs"
import { StorageError } from "@zed/core/storage"
import { Effect } from "effect"

// PGlite is one process's database: a second process opening the same directory would corrupt it.
// A lock file holding the owner's pid keeps others out; a lock whose process is gone (killed, say)
// is taken over.

const held = new Set<string>()

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const tryCreate = (file: string) => {
  try {
    const fd = openSync(file, "wx", 0o600)
    writeSync(fd, String(process.pid))
    closeSync(fd)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false
    throw error
  }
}

const acquire = (file: string) =>
  Effect.try({
    try: () => {
      if (held.has(file)) throw new Error(`${file} is already open in this process`)
      for (let attempt = 0; attempt < 2; attempt++) {
        if (tryCreate(file)) return held.add(file)
        const owner = Number(readFileSync(file, "utf8"))
        if (Number.isInteger(owner) && owner !== process.pid && alive(owner)) {
          throw new Error(`the data directory is in use by process ${owner} (lock file ${file}); stop that process first`)
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
    }))
