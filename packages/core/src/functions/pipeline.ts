import { Context, Effect, Layer } from "effect"
import type { Project } from "../domain/models.js"
import type { IncomingEvent } from "../ingest/normalize.js"
import { GeoIp } from "../services/GeoIp.js"
import type { StorageError } from "../services/StorageError.js"
import { Destinations } from "./destinations.js"
import { FunctionHealth } from "./health.js"
import { FunctionLogger } from "./logs.js"
import { FunctionMetrics } from "./metrics.js"
import { makeMasker } from "./masking.js"
import { FunctionRegistry } from "./registry.js"
import { transformEvents } from "./transform.js"

/** What capture does around storing events: plugins and transformations before, destinations after. */
export class EventPipeline extends Context.Tag("@zed/core/EventPipeline")<
  EventPipeline,
  {
    /** The events to store. */
    readonly beforeStorage: (
      project: Project,
      events: ReadonlyArray<IncomingEvent>
    ) => Effect.Effect<ReadonlyArray<IncomingEvent>, StorageError>
    /** Hands newly stored events to the project's destinations. */
    readonly afterStorage: (project: Project, events: ReadonlyArray<IncomingEvent>) => Effect.Effect<void, StorageError>
  }
>() {}

export const EventPipelineLive = Layer.effect(
  EventPipeline,
  Effect.gen(function* () {
    const registry = yield* FunctionRegistry
    const logger = yield* FunctionLogger
    const health = yield* FunctionHealth
    const metrics = yield* FunctionMetrics
    const destinations = yield* Destinations
    const geoip = yield* GeoIp
    const masker = makeMasker()
    const deps = { geoip: geoip.lookup }
    return EventPipeline.of({
      beforeStorage: (project, events) =>
        Effect.map(registry.get(project.id), (pipeline) =>
          transformEvents({ project, pipeline, deps, masker, health, metrics, log: logger.log }, events)
        ),
      afterStorage: (project, events) =>
        Effect.flatMap(registry.get(project.id), (pipeline) =>
          destinations.enqueue(project, pipeline.destinations, events)
        )
    })
  })
)
