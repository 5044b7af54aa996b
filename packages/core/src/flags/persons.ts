import { Context, Deferred, Duration, Effect, Exit, FiberId, FiberSet, Layer } from "effect"
import { PersonCache } from "../ingest/personCache.js"
import { FlagInputs } from "../services/FlagInputs.js"
import { StorageError } from "../services/StorageError.js"

type Properties = Readonly<Record<string, unknown>>

/**
 * Person properties for flag evaluation, by distinct id: from the person cache when it knows them
 * (or knows there is no person), else read from storage. Reads of one distinct id under way are
 * shared, and the reads of concurrent requests go to storage together, one round trip per project.
 */
export class FlagPersons extends Context.Tag("@zed/core/FlagPersons")<
  FlagPersons,
  {
    /** The properties, null when there is no person, undefined when only storage can tell. */
    readonly peek: (projectId: number, distinctId: string) => Properties | null | undefined
    readonly get: (projectId: number, distinctId: string) => Effect.Effect<Properties | null, StorageError>
  }
>() {}

/** How long one round trip may take before its requests answer without the persons. */
const READ_TIMEOUT = Duration.seconds(1)
/** Distinct ids read in one statement at most. */
const BATCH = 500

interface Wanted {
  readonly projectId: number
  readonly distinctId: string
  readonly deferred: Deferred.Deferred<Properties | null, StorageError>
}

/** Resumes on the event loop's next turn, once the I/O callbacks of this one (other requests) have run. */
const nextTurn = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

export const FlagPersonsLive = Layer.scoped(
  FlagPersons,
  Effect.gen(function* () {
    const cache = yield* PersonCache
    const inputs = yield* FlagInputs
    const run = yield* FiberSet.makeRuntime<never, void, never>()
    // Every distinct id asked for and not answered yet; `queued` are those not sent to storage yet.
    const wanted = new Map<string, Wanted>()
    let queued: Array<Wanted> = []

    const read = (projectId: number, batch: ReadonlyArray<Wanted>) =>
      Effect.gen(function* () {
        const ids = batch.map((w) => w.distinctId)
        const keep = cache.reading(projectId, ids)
        const exit = yield* Effect.exit(
          inputs.persons(projectId, ids).pipe(
            Effect.timeoutFail({
              duration: READ_TIMEOUT,
              onTimeout: () =>
                new StorageError({ message: `reading persons took longer than ${Duration.format(READ_TIMEOUT)}` })
            })
          )
        )
        if (Exit.isSuccess(exit)) keep(exit.value)
        for (const w of batch) {
          wanted.delete(`${w.projectId}\u0000${w.distinctId}`)
          Deferred.unsafeDone(
            w.deferred,
            Exit.map(exit, (found) => found.get(w.distinctId) ?? null)
          )
        }
      })

    const flush = Effect.gen(function* () {
      yield* nextTurn
      const taken = queued
      queued = []
      const byProject = new Map<number, Array<Wanted>>()
      for (const w of taken) {
        const list = byProject.get(w.projectId)
        if (list === undefined) byProject.set(w.projectId, [w])
        else list.push(w)
      }
      const batches = [...byProject].flatMap(([projectId, all]) =>
        Array.from(
          { length: Math.ceil(all.length / BATCH) },
          (_, i) => [projectId, all.slice(i * BATCH, (i + 1) * BATCH)] as const
        )
      )
      yield* Effect.forEach(batches, ([projectId, batch]) => read(projectId, batch), {
        concurrency: "unbounded",
        discard: true
      })
    })

    return FlagPersons.of({
      peek: cache.properties,
      get: (projectId, distinctId) =>
        Effect.suspend(() => {
          const known = cache.properties(projectId, distinctId)
          if (known !== undefined) return Effect.succeed(known)
          const key = `${projectId}\u0000${distinctId}`
          let entry = wanted.get(key)
          if (entry === undefined) {
            entry = { projectId, distinctId, deferred: Deferred.unsafeMake(FiberId.none) }
            wanted.set(key, entry)
            if (queued.push(entry) === 1) run(flush)
          }
          return Deferred.await(entry.deferred)
        })
    })
  })
)
