import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpMethod from "@effect/platform/HttpMethod"
import { Context, Data, Effect, Layer, Queue, Runtime, Schedule } from "effect"
import type { Project } from "../domain/models.js"
import { runHogAsync } from "../hog/run.js"
import type { IncomingEvent } from "../ingest/normalize.js"
import { displayName, type Person } from "../persons/model.js"
import { PersonStore } from "../services/PersonStore.js"
import { DEFAULT_DESTINATION_RETRIES, ZedConfig } from "../services/ZedConfig.js"
import { FunctionHealth } from "./health.js"
import { DESTINATION_LIMITS, globalsOf, type PersonGlobal, renderInputs } from "./invoke.js"
import { FunctionLogger, type LogLine } from "./logs.js"
import { FunctionMetrics } from "./metrics.js"
import { makeMasker } from "./masking.js"
import type { ActiveFunction } from "./registry.js"
import { admits } from "./transform.js"

// After storage: destinations run on the stored events in the background, never delaying the
// capture answer. Their `fetch` calls go through @effect/platform's HttpClient; a network error or
// a 429/5xx answer is retried with exponential backoff before the function sees the last answer.
// Pending work lives in this process: on shutdown it is finished, not persisted.

export class Destinations extends Context.Tag("@zed/core/Destinations")<
  Destinations,
  {
    readonly enqueue: (
      project: Project,
      destinations: ReadonlyArray<ActiveFunction>,
      events: ReadonlyArray<IncomingEvent>
    ) => Effect.Effect<void>
    /** Completes once everything enqueued so far has been delivered or given up on. */
    readonly idle: Effect.Effect<void>
  }
>() {}

interface Job {
  readonly project: Project
  readonly destinations: ReadonlyArray<ActiveFunction>
  readonly events: ReadonlyArray<IncomingEvent>
}

/** Jobs taken at once, and invocations running at once within each. */
const WORKERS = 4
const CONCURRENCY = 8
const REQUEST_TIMEOUT = "10 seconds"

class Retryable extends Data.TaggedError("Retryable")<{ readonly reason: string; readonly response?: FetchResponse }> {}

interface FetchResponse {
  readonly status: number
  readonly body: unknown
}

interface FetchInit {
  readonly method: string
  readonly headers: Record<string, string>
  readonly body: unknown
}

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const requestOf = (url: string, init: FetchInit) => {
  const method = (init.method ?? "GET").toUpperCase() as HttpMethod.HttpMethod
  const headers = init.headers ?? {}
  const base = HttpClientRequest.make(method)(url, { headers })
  if (init.body === undefined || init.body === null) return base
  if (typeof init.body === "string")
    return HttpClientRequest.bodyText(
      base,
      init.body,
      headers["content-type"] ?? headers["Content-Type"] ?? "text/plain"
    )
  return HttpClientRequest.bodyUnsafeJson(base, init.body)
}

const personGlobal = (person: Person | undefined): PersonGlobal | null =>
  person === undefined ? null : { id: person.uuid, properties: person.properties, name: displayName(person) }

export const DestinationsLive = Layer.scoped(
  Destinations,
  Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    const persons = yield* PersonStore
    const logger = yield* FunctionLogger
    const health = yield* FunctionHealth
    const metrics = yield* FunctionMetrics
    const { retries, retryDelayMs } = (yield* ZedConfig).destinationRetries ?? DEFAULT_DESTINATION_RETRIES
    const masker = makeMasker()
    const runtime = yield* Effect.runtime<never>()
    const queue = yield* Queue.unbounded<Job>()
    let pending = 0

    const fetchWithRetries = (url: string, init: FetchInit, log: (type: LogLine["type"], message: string) => void) => {
      const once = client.execute(requestOf(url, init)).pipe(
        Effect.flatMap((response) =>
          Effect.map(response.text, (text): FetchResponse => ({ status: response.status, body: parsed(text) }))
        ),
        Effect.scoped,
        Effect.timeout(REQUEST_TIMEOUT),
        Effect.catchAll(
          (error) => new Retryable({ reason: error._tag === "TimeoutException" ? "timed out" : error.message })
        ),
        Effect.flatMap((response) =>
          response.status === 429 || response.status >= 500
            ? new Retryable({ reason: `answered ${response.status}`, response })
            : Effect.succeed(response)
        ),
        Effect.tapError((failure) =>
          Effect.sync(() => log("WARN", `HTTP ${init.method ?? "GET"} ${url} ${failure.reason}`))
        )
      )
      return once.pipe(
        Effect.retry(Schedule.exponential(retryDelayMs).pipe(Schedule.intersect(Schedule.recurs(retries)))),
        // Out of retries: the function sees the last answer, or an error when there was none.
        Effect.catchAll((failure) =>
          failure.response !== undefined
            ? Effect.succeed(failure.response)
            : Effect.fail(new Error(`fetch failed: ${failure.reason}`))
        ),
        Effect.withTracerEnabled(false)
      )
    }

    const invoke = (project: Project, fn: ActiveFunction, event: IncomingEvent, person: PersonGlobal | null) =>
      Effect.promise(async () => {
        const log = (type: LogLine["type"], message: string, source: LogLine["source"] = "SYSTEM") =>
          logger.log({ projectId: project.id, owner: { kind: "zed_function", id: fn.fn.id }, source, type, message })
        const globals = globalsOf(project, fn.fn, event, person)
        if (!admits({ project, masker }, fn, event, person?.properties ?? {}, globals, Date.now())) return
        const started = performance.now()
        const rendered = renderInputs(fn.fn, globals, DESTINATION_LIMITS)
        const outcome =
          "error" in rendered
            ? { _tag: "Failed" as const, message: rendered.error }
            : await runHogAsync(fn.fn.bytecode, {
                globals: { ...globals, inputs: rendered.inputs },
                limits: DESTINATION_LIMITS,
                print: (line) => log("LOG", line, "CONSOLE"),
                fetch: (url, init) => Runtime.runPromise(runtime)(fetchWithRetries(url, init, log))
              })
        health.record(fn.fn.id, outcome._tag === "Finished")
        metrics.record(project.id, fn.fn.id, outcome._tag === "Finished")
        if (outcome._tag === "Failed") log("ERROR", `Error sending event ${event.uuid}: ${outcome.message}`)
        else log("INFO", `Event ${event.uuid} (${event.event}) sent in ${Math.round(performance.now() - started)} ms`)
      })

    const run = ({ destinations, events, project }: Job) =>
      Effect.gen(function* () {
        const loaded = yield* Effect.orElseSucceed(
          persons.load(project.id, [...new Set(events.map((e) => e.distinct_id))]),
          () => []
        )
        const byDistinctId = new Map(loaded.flatMap((p) => p.distinct_ids.map((id) => [id, p] as const)))
        const work = events.flatMap((event) => destinations.map((fn) => [event, fn] as const))
        yield* Effect.forEach(
          work,
          ([event, fn]) => invoke(project, fn, event, personGlobal(byDistinctId.get(event.distinct_id))),
          {
            concurrency: CONCURRENCY,
            discard: true
          }
        )
      }).pipe(Effect.ensuring(Effect.sync(() => pending--)))

    const worker = Effect.forever(Effect.flatMap(Queue.take(queue), run))
    yield* Effect.forkScoped(
      Effect.all(
        Array.from({ length: WORKERS }, () => worker),
        { concurrency: "unbounded" }
      )
    )
    const idle = Effect.gen(function* () {
      while (pending > 0) yield* Effect.sleep("10 millis")
    })
    // Deliveries under way when Zed stops are finished first.
    yield* Effect.addFinalizer(() => idle)

    return Destinations.of({
      enqueue: (project, destinations, events) =>
        destinations.length === 0 || events.length === 0
          ? Effect.void
          : Effect.suspend(() => {
              pending++
              return Queue.offer(queue, { project, destinations, events })
            }),
      idle
    })
  })
)
