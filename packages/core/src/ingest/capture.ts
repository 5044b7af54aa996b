import { Effect } from "effect"
import type { Project } from "../domain/models.js"
import { EventPipeline } from "../functions/pipeline.js"
import { type IncomingEvent, type NormalizeContext, normalizeEvent } from "./normalize.js"
import { CaptureRefused } from "./refusal.js"
import { IngestWriter } from "./writer.js"

// What capture does with a request's events once the edge has read them: normalize all or none,
// then store them after the project's plugins and transformations, then hand the newly stored ones
// to its destinations.

/** Events posthog-js sends that are not analytics events (replay has its own endpoint). */
const NOT_ANALYTICS = new Set(["$snapshot", "$snapshot_items", "$performance_event"])

/** A request's events normalized, all or nothing: one invalid event refuses the whole request. */
export const normalizeBatch = (
  raws: ReadonlyArray<unknown>,
  context: NormalizeContext
): Effect.Effect<Array<IncomingEvent>, CaptureRefused> =>
  Effect.suspend(() => {
    const events: Array<IncomingEvent> = []
    let filtered = 0
    for (const raw of raws) {
      const normalized = normalizeEvent(raw, context)
      if (normalized._tag === "Rejected")
        return Effect.fail(new CaptureRefused({ problem: normalized.problem, detail: normalized.detail }))
      if (normalized._tag === "Dropped") continue
      if (NOT_ANALYTICS.has(normalized.event.event)) filtered++
      else events.push(normalized.event)
    }
    if (events.length === 0 && filtered > 0) {
      return Effect.fail(
        new CaptureRefused({
          problem: "invalid_payload",
          detail: "request holds no analytics event (recordings go to /s/)"
        })
      )
    }
    return Effect.succeed(events)
  })

/**
 * Stores a project's events after its plugins and transformations, then hands the newly stored
 * ones to its destinations (not those of historical imports: a backfill is not news).
 */
export const ingestEvents = (project: Project, events: ReadonlyArray<IncomingEvent>, historical: boolean) =>
  Effect.gen(function* () {
    const pipeline = yield* EventPipeline
    const stored = yield* (yield* IngestWriter).write(project.id, yield* pipeline.beforeStorage(project, events))
    if (historical) return
    // The events are stored: whatever happens to their delivery, the request succeeded.
    yield* Effect.catchAll(pipeline.afterStorage(project, stored), (error) =>
      Effect.logError("destinations: could not enqueue events", error.message)
    )
  })
