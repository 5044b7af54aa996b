import { existsSync, renameSync, rmdirSync, rmSync } from "node:fs"
import { cp } from "node:fs/promises"
import { join } from "node:path"
import { Worker } from "node:worker_threads"
import { StorageError } from "@zed/core/storage"
import { Context, Effect, type Scope } from "effect"
import { TEMPLATE, templateIsCurrent } from "./pgliteTemplatePath.js"

/**
 * PGlite on a thread of its own. PGlite runs Postgres synchronously on the thread that calls it and
 * has no way to stop a statement, so on the main thread a long statement would block every timer and
 * request and could not be stopped. On a worker thread the main thread stays free, and a statement is
 * stopped by terminating the thread and opening the data directory again in a new one: committed data
 * is intact, and whatever was running or waiting there fails.
 */

export interface Field {
  readonly name: string
  /** The PostgreSQL type OID. */
  readonly dataTypeID: number
}

/** A statement's result, as PGlite gives it. */
export interface Results {
  readonly rows: Array<any>
  readonly fields: ReadonlyArray<Field>
  readonly affectedRows?: number
}

export interface Thread {
  /** The database's directory (files kept beside it are this process's alone too). */
  readonly dataDir: string
  /** Counts restarts: a transaction begun on one thread must not go on on the next. */
  readonly generation: () => number
  /**
   * One statement with parameters. With `generation`, it fails instead of running on any other
   * generation of the thread.
   */
  readonly query: (
    sql: string,
    params: ReadonlyArray<unknown>,
    rowMode: "object" | "array",
    generation?: number
  ) => Promise<Results>
  /** A script of statements without parameters, as one. */
  readonly exec: (sql: string, generation?: number) => Promise<Array<Results>>
  /**
   * Stops everything the database is doing: the thread is terminated, whatever ran or waited on it
   * fails, and a new thread opens the data directory.
   */
  readonly restart: () => void
}

export class PgliteThread extends Context.Tag("@zed/postgres/PgliteThread")<PgliteThread, Thread>() {}

type Request =
  | {
      readonly op: "query"
      readonly sql: string
      readonly params: ReadonlyArray<unknown>
      readonly rowMode: "object" | "array"
    }
  | { readonly op: "exec"; readonly sql: string }
  | { readonly op: "close" }

type Reply =
  | { readonly ready: true }
  | { readonly failed: DescribedError }
  | { readonly id: number; readonly result: unknown }
  | { readonly id: number; readonly error: DescribedError }

interface DescribedError {
  readonly message: string
  readonly code?: string
}

/** The worker's error as an Error again, with the SQLSTATE `code` and Postgres' other fields on it. */
const revive = (described: DescribedError) => Object.assign(new Error(described.message), described)

const ENTRY = new URL("./pgliteWorker.js", import.meta.url)

/** One worker thread with PGlite open in it; `onCrash` when it dies by itself after opening. */
const spawn = (dataDir: string, onCrash: () => void) => {
  const worker = new Worker(ENTRY, { workerData: { dataDir } })
  const pending = new Map<number, { resolve: (value: any) => void; reject: (error: Error) => void }>()
  let next = 0
  let opened = false
  let terminating = false
  let stopped: Error | undefined

  const stop = (reason: Error) => {
    stopped ??= reason
    for (const { reject } of pending.values()) reject(stopped)
    pending.clear()
  }
  const ready = new Promise<void>((resolve, reject) => {
    worker.once("message", (reply: Reply) => {
      if ("failed" in reply) return reject(revive(reply.failed))
      opened = true
      if (pending.size === 0) worker.unref()
      resolve()
    })
    worker.once("exit", () => reject(stopped ?? new Error("the PGlite thread stopped while opening")))
  })
  // Whoever waits for the thread to open sees the failure.
  ready.catch(() => {})

  worker.on("message", (reply: Reply) => {
    if (!("id" in reply)) return
    const call = pending.get(reply.id)
    pending.delete(reply.id)
    // Idle, the thread does not keep the process alive (as PGlite on the main thread did not).
    if (pending.size === 0 && opened) worker.unref()
    if ("error" in reply) call?.reject(revive(reply.error))
    else call?.resolve(reply.result)
  })
  // An uncaught error ends the thread: its exit follows.
  worker.on("error", stop)
  worker.once("exit", (code) => {
    stop(new Error(`the PGlite thread exited with code ${code}`))
    if (opened && !terminating) onCrash()
  })

  return {
    ready,
    call: <A>(request: Request): Promise<A> => {
      if (stopped !== undefined) return Promise.reject(stopped)
      return new Promise<A>((resolve, reject) => {
        const id = next++
        pending.set(id, { resolve, reject })
        worker.ref()
        worker.postMessage({ id, ...request })
      })
    },
    /** Ends the thread now, failing whatever ran or waited on it with `reason`. */
    terminate: async (reason: Error) => {
      terminating = true
      stop(reason)
      await worker.terminate()
    }
  }
}

type Instance = ReturnType<typeof spawn>

/**
 * Creates the database in a fresh directory: a copy of the template the build made, renamed into
 * place once whole. Without a template the installed PGlite made (a build that did not make one, or
 * PGlite upgraded since), initdb runs on a thread of its own, ended once it is done: initdb grows the
 * WebAssembly heap by hundreds of megabytes that PGlite never gives back, and only the thread's end
 * returns them.
 */
const initialize = async (dataDir: string) => {
  if (existsSync(join(dataDir, "PG_VERSION"))) return
  if (templateIsCurrent()) {
    const copying = `${dataDir}.copying-${process.pid}`
    rmSync(copying, { recursive: true, force: true })
    await cp(TEMPLATE, copying, { recursive: true })
    // An empty directory gives way; one holding anything else is not the store's, and stays.
    if (existsSync(dataDir)) rmdirSync(dataDir)
    renameSync(copying, dataDir)
    return
  }
  const instance = spawn(dataDir, () => {})
  try {
    await instance.ready
    await instance.call({ op: "close" })
  } finally {
    await instance.terminate(new Error("PGlite is closed"))
  }
}

const make = (dataDir: string) => {
  let generation = 0
  let closing = false
  const start = (after: Promise<unknown>): Promise<Instance> =>
    after.then(() =>
      spawn(dataDir, () => {
        if (!closing) restart()
      })
    )
  let current = start(initialize(dataDir))

  const restart = () => {
    generation++
    // Two PGlites must never have the directory open at once: the new one waits for the old one's end.
    current = start(
      current.then((instance) =>
        instance.terminate(
          new Error("the PGlite thread was restarted to stop a statement: this statement did not complete")
        )
      )
    )
  }

  const call = <A>(request: Request, of?: number): Promise<A> => {
    if (of !== undefined && of !== generation) {
      return Promise.reject(
        new Error("the PGlite thread was restarted since this transaction began: it was rolled back")
      )
    }
    return current.then((instance) => instance.call<A>(request))
  }

  const thread: Thread = {
    dataDir,
    generation: () => generation,
    query: (sql, params, rowMode, of) => call({ op: "query", sql, params, rowMode }, of),
    exec: (sql, of) => call({ op: "exec", sql }, of),
    restart
  }
  return {
    thread,
    opened: current.then((instance) => instance.ready),
    close: async () => {
      closing = true
      const instance = await current
      try {
        await instance.call({ op: "close" })
      } finally {
        await instance.terminate(new Error("PGlite is closed"))
      }
    }
  }
}

/** PGlite on its own thread, open on `dataDir` for the scope's lifetime. */
export const open = (dataDir: string): Effect.Effect<Thread, StorageError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const opening = make(dataDir)
        try {
          await opening.opened
        } catch (error) {
          await opening.close().catch(() => {})
          throw error
        }
        return opening
      },
      catch: (cause) =>
        new StorageError({ message: `could not open PGlite at ${dataDir}: ${(cause as Error).message}`, cause })
    }),
    (opening) => Effect.promise(() => opening.close().catch(() => {}))
  ).pipe(Effect.map((opening) => opening.thread))
