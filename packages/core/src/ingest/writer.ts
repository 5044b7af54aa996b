import { Context, Data, Deferred, Effect, Either, Exit, Layer, Queue } from "effect"
import { heatmapPoints, storedProperties } from "../heatmaps/points.js"
import type { Person } from "../persons/model.js"
import { processPersons, referencedDistinctIds } from "../persons/processor.js"
import { EventStore } from "../services/EventStore.js"
import { GroupStore } from "../services/GroupStore.js"
import { HeatmapStore } from "../services/HeatmapStore.js"
import { PersonStore } from "../services/PersonStore.js"
import { ProjectStore } from "../services/ProjectStore.js"
import { type PropertyDefinition, PropertyDefinitions, type SeenEvent } from "../services/PropertyDefinitions.js"
import { StorageError } from "../services/StorageError.js"
import { Transactor } from "../services/Transactor.js"
import { ZedConfig } from "../services/ZedConfig.js"
import { groupColumns, groupTypesOf, groupUpdates } from "./groups.js"
import type { IncomingEvent } from "./normalize.js"
import { makePersonCache, PersonCache } from "./personCache.js"
import { propertyDefinitionsOf } from "./propertyTypes.js"
import { makeRecordedDefinitions, type RecordedDefinitions } from "./recordedDefinitions.js"
import { seenEventsOf } from "./seenEvents.js"

/**
 * Writes captured events durably; `write` completes only once they are committed, answering the
 * events stored by this write: not those stored before (an SDK's retry), nor repeats within it.
 */
export class IngestWriter extends Context.Tag("@zed/core/IngestWriter")<
  IngestWriter,
  {
    readonly write: (
      projectId: number,
      events: ReadonlyArray<IncomingEvent>
    ) => Effect.Effect<ReadonlyArray<IncomingEvent>, StorageError>
  }
>() {}

/** What a committed group answers: its projects, and each submission's events that it stored. */
interface Committed {
  readonly projects: ReadonlyArray<number>
  readonly stored: ReadonlyArray<ReadonlyArray<IncomingEvent>>
}

interface Submission {
  readonly projectId: number
  readonly events: ReadonlyArray<IncomingEvent>
  readonly done: Deferred.Deferred<ReadonlyArray<IncomingEvent>, StorageError>
}

/** Most submissions committed together in one transaction. */
const MAX_GROUP = 256
/** Most submissions waiting for a transaction; past it (storage stalled), new ones are refused at once. */
const MAX_WAITING = 10_000
/** How long a group waits for company; bounds the latency it adds to a lone request. */
const LINGER = "2 millis"

/** The store already had these events: the attempt is rolled back and made again without them. */
class AlreadyStored extends Data.TaggedError("AlreadyStored")<{ readonly keys: ReadonlyArray<string> }> {}

const storedKey = (projectId: number, uuid: string) => `${projectId}:${uuid}`

/**
 * Each submission's events that a group stores: those not stored before (`skip`), and not already
 * taken by an earlier submission of the group or earlier in the same one. One rule for what an
 * attempt writes and for what each request is told it stored.
 */
const storedBy = (submissions: ReadonlyArray<Omit<Submission, "done">>, skip: ReadonlySet<string>) => {
  const taken = new Set(skip)
  return submissions.map(({ events, projectId }) =>
    events.filter((event) => {
      const key = storedKey(projectId, event.uuid)
      if (taken.has(key)) return false
      taken.add(key)
      return true
    })
  )
}

/** How many times a group is attempted again: for events found stored already, or after losing a race. */
const MAX_ROUNDS = 8

/**
 * One attempt at storing a group of submissions, inside a transaction: per project, person
 * processing in arrival order, then events (their heatmap points apart), persons, groups, new
 * property definitions and the event names seen written.
 * Events are inserted before their persons are saved: if any turns out to be stored already (an SDK
 * retry), the attempt fails so it can be rolled back and made again without them, and a retry never
 * re-applies old updates.
 */
const attempt = (
  submissions: ReadonlyArray<Omit<Submission, "done">>,
  /** What each submission stores (`storedBy`). */
  stored: ReadonlyArray<ReadonlyArray<IncomingEvent>>,
  cache: PersonCache["Type"],
  recorded: RecordedDefinitions
) =>
  Effect.gen(function* () {
    const events = yield* EventStore
    const persons = yield* PersonStore
    const groups = yield* GroupStore
    const heatmaps = yield* HeatmapStore
    const propertyDefinitions = yield* PropertyDefinitions
    const byProject = new Map<number, Array<IncomingEvent>>()
    for (const [i, { projectId }] of submissions.entries()) {
      const fresh = byProject.get(projectId) ?? []
      for (const event of stored[i]!) fresh.push(event)
      byProject.set(projectId, fresh)
    }
    const written: Array<{
      readonly projectId: number
      readonly persons: ReadonlyArray<Person>
      readonly definitions: ReadonlyArray<PropertyDefinition>
      readonly seen: ReadonlyArray<SeenEvent>
    }> = []
    for (const [projectId, fresh] of byProject) {
      if (fresh.length === 0) continue
      const { found, missing } = cache.lookup(projectId, referencedDistinctIds(fresh))
      const loaded = missing.length === 0 ? [] : yield* persons.load(projectId, missing)
      const known = new Map([...found, ...loaded].map((p) => [p.id, p]))
      const { changes, personIds, persons: touched } = processPersons(projectId, fresh, [...known.values()])
      const types = groupTypesOf(fresh)
      const mapping = types.length === 0 ? new Map<string, number>() : yield* groups.ensureTypes(projectId, types)
      const inserted = yield* events.insert(
        projectId,
        fresh.map((event, i) => ({
          uuid: event.uuid,
          event: event.event,
          distinct_id: event.distinct_id,
          person_id: personIds[i]!,
          properties: storedProperties(event.properties),
          timestamp: event.timestamp,
          created_at: event.received_at,
          groups: groupColumns(event, mapping)
        }))
      )
      if (inserted.size < fresh.length) {
        return yield* new AlreadyStored({
          keys: fresh.filter((e) => !inserted.has(e.uuid)).map((e) => storedKey(projectId, e.uuid))
        })
      }
      const points = fresh.flatMap(heatmapPoints)
      if (points.length > 0) yield* heatmaps.insert(projectId, points)
      const ids = yield* persons.save(projectId, changes)
      yield* groups.upsert(projectId, groupUpdates(fresh, mapping))
      yield* events.repoint(projectId, changes.repoint)
      const definitions = propertyDefinitionsOf(fresh, mapping, recorded.known(projectId))
      if (definitions.length > 0) yield* propertyDefinitions.record(projectId, definitions)
      const seen = seenEventsOf(fresh, recorded.knownEvents(projectId))
      if (seen.length > 0) yield* propertyDefinitions.recordEvents(projectId, seen)
      written.push({
        projectId,
        persons: touched.map(({ changed: _, merged: __, stored_ids: ___, ...draft }) => ({
          ...draft,
          id: draft.id ?? ids.get(draft.uuid)!
        })),
        definitions,
        seen
      })
    }
    return written
  })

/**
 * Stores a group of submissions in one transaction, answering the projects they went to and what
 * each submission stored. Events already stored (same project and uuid) are skipped with everything
 * they would have done; a transaction that lost a race with another writer is made again.
 */
export const ingest = (
  submissions: ReadonlyArray<Omit<Submission, "done">>,
  cache: PersonCache["Type"] = makePersonCache(false),
  recorded: RecordedDefinitions = makeRecordedDefinitions()
) =>
  Effect.gen(function* () {
    const transactor = yield* Transactor
    const skip = new Set<string>()
    for (let round = 0; ; round++) {
      const stored = storedBy(submissions, skip)
      const result = yield* Effect.either(transactor.transaction(attempt(submissions, stored, cache, recorded)))
      if (Either.isRight(result)) {
        for (const { definitions, persons, projectId, seen } of result.right) {
          cache.remember(projectId, persons)
          recorded.remember(projectId, definitions)
          recorded.rememberEvents(projectId, seen)
        }
        return { projects: [...new Set(submissions.map((s) => s.projectId))], stored } satisfies Committed
      }
      const failure = result.left
      if (round === MAX_ROUNDS) {
        return yield* failure._tag === "AlreadyStored"
          ? new StorageError({ message: "too many concurrent writes of the same events", unavailable: true })
          : failure
      }
      if (failure._tag === "AlreadyStored") {
        for (const key of failure.keys) skip.add(key)
      } else if (failure.conflict === true) {
        // Another writer committed the same persons or distinct ids meanwhile: the next attempt sees its work.
        yield* Effect.sleep(`${Math.floor(Math.random() * 5 * (round + 1))} millis`)
      } else {
        return yield* failure
      }
    }
  })

export const IngestWriterLive = Layer.scoped(
  IngestWriter,
  Effect.gen(function* () {
    const projects = yield* ProjectStore
    const cache = yield* PersonCache
    const { storageTimeoutMs } = (yield* ZedConfig).limits
    const stores = yield* Effect.context<
      EventStore | GroupStore | HeatmapStore | PersonStore | PropertyDefinitions | Transactor
    >()
    const { concurrency } = yield* Transactor
    // Property definitions this process has committed, so that only new ones are written.
    const recorded = makeRecordedDefinitions()
    // Projects this process has already recorded as having received events.
    const ingested = new Set<number>()
    const markIngested = (projectIds: ReadonlyArray<number>) =>
      Effect.forEach(
        projectIds.filter((id) => !ingested.has(id)),
        (id) => Effect.tap(projects.markIngested(id), () => ingested.add(id)),
        { discard: true }
      )

    // A transient failure (a dropped connection, say) gets one more try before the requests see 503.
    const commit = (group: ReadonlyArray<Submission>) =>
      Effect.tap(ingest(group, cache, recorded), ({ projects }) => markIngested(projects)).pipe(
        Effect.map(({ stored }) => stored),
        Effect.retry({ times: 1 }),
        // No one traces ingestion: spans per statement would cost more than the statements' encoding.
        Effect.withTracerEnabled(false),
        Effect.provide(stores),
        Effect.exit
      )

    // Group commit: whatever arrived while the previous transaction ran is written in the next one.
    // A group that fails is retried submission by submission, so one request's failure is its own.
    const writeGroup = (group: ReadonlyArray<Submission>) =>
      Effect.gen(function* () {
        const exit = yield* commit(group)
        if (Exit.isSuccess(exit) || group.length === 1) {
          for (const [i, { done }] of group.entries())
            yield* Deferred.done(
              done,
              Exit.map(exit, (stored) => stored[i]!)
            )
          return
        }
        for (const submission of group)
          yield* Deferred.done(
            submission.done,
            Exit.map(yield* commit([submission]), ([stored]) => stored!)
          )
      })

    // One lane per transaction the store can run at once, each taking whatever is waiting.
    const queue = yield* Queue.unbounded<Submission>()
    let writing = 0
    const lane = Effect.forever(
      Effect.gen(function* () {
        const first = yield* Queue.take(queue)
        // A lone request lingers briefly so that others already on their way join its group: with an
        // in-process database the transaction holds the thread, and without the pause the next group
        // would be whatever single request happened to finish decoding first.
        if ((yield* Queue.size(queue)) === 0) yield* Effect.sleep(LINGER)
        const rest = yield* Queue.takeUpTo(queue, MAX_GROUP - 1)
        writing++
        // Once a transaction starts it finishes: an acknowledged write is never cut short.
        yield* Effect.uninterruptible(writeGroup([first, ...rest]))
        writing--
      })
    )
    yield* Effect.forkScoped(
      Effect.all(
        Array.from({ length: concurrency }, () => lane),
        { concurrency: "unbounded" }
      )
    )

    // On shutdown, what was accepted is written before storage closes.
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        while (writing > 0 || (yield* Queue.size(queue)) > 0) yield* Effect.sleep("5 millis")
      })
    )

    return IngestWriter.of({
      write: (projectId, events) =>
        Effect.gen(function* () {
          if (events.length === 0) return []
          if ((yield* Queue.size(queue)) >= MAX_WAITING) {
            return yield* new StorageError({
              message: `${MAX_WAITING} writes are waiting for storage already`,
              unavailable: true
            })
          }
          const done = yield* Deferred.make<ReadonlyArray<IncomingEvent>, StorageError>()
          yield* Queue.offer(queue, { projectId, events, done })
          // The request waits no longer than a storage call may take; its events may still be stored
          // later, and the SDK's retry is then recognised by the events' uuids.
          return yield* Deferred.await(done).pipe(
            Effect.timeoutFail({
              duration: storageTimeoutMs,
              onTimeout: () =>
                new StorageError({ message: `storage did not commit within ${storageTimeoutMs} ms`, unavailable: true })
            })
          )
        })
    })
  })
)
