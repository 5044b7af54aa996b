import { Context, Deferred, Duration, Effect, Layer, Option } from "effect"
import { type ProbeFailureReason, StorageProbe } from "../services/StorageProbe.js"
import { ZedConfig } from "../services/ZedConfig.js"

/** Why an instance should not be sent traffic: storage failed its probe or did not answer in time, or it is shutting down. */
export type NotReadyReason = ProbeFailureReason | "timeout" | "shutting_down"

export type Readiness = { readonly ready: true } | { readonly ready: false; readonly reason: NotReadyReason }

/** Whether this instance should take traffic, and the start of its shutdown. */
export class Lifecycle extends Context.Tag("@zed/core/Lifecycle")<
  Lifecycle,
  {
    /** Ready while storage takes writes and no shutdown has begun. */
    readonly readiness: Effect.Effect<Readiness>
    /** From now on not ready; work racing `shuttingDown` (running queries) stops. */
    readonly beginShutdown: Effect.Effect<void>
    /** Completes once shutdown has begun. */
    readonly shuttingDown: Effect.Effect<void>
  }
>() {}

// Load balancers poll readiness every second or so from every balancer node: one probe a second
// answers them all, so polling cannot load the database.
const PROBE_TTL = Duration.seconds(1)

const READY: Readiness = { ready: true }
const SHUTTING_DOWN: Readiness = { ready: false, reason: "shutting_down" }

export const LifecycleLive = Layer.effect(
  Lifecycle,
  Effect.gen(function* () {
    const storage = yield* StorageProbe
    const { storageTimeoutMs } = (yield* ZedConfig).limits
    const stopping = yield* Deferred.make<void>()
    // A probe still hanging from before is not started again: a frozen store would pile them up.
    const lane = yield* Effect.makeSemaphore(1)
    const probe = lane
      .withPermitsIfAvailable(1)(storage.probe)
      .pipe(
        Effect.disconnect,
        Effect.timeoutTo({
          duration: Duration.millis(storageTimeoutMs),
          onTimeout: () => Option.none<void>(),
          onSuccess: (ran) => ran
        }),
        Effect.match({
          onFailure: (failed): Readiness => ({ ready: false, reason: failed.reason }),
          onSuccess: (ran): Readiness => (Option.isSome(ran) ? READY : { ready: false, reason: "timeout" })
        })
      )
    const cached = yield* Effect.cachedWithTTL(probe, PROBE_TTL)
    return Lifecycle.of({
      readiness: Effect.flatMap(Deferred.isDone(stopping), (stopped) =>
        stopped ? Effect.succeed(SHUTTING_DOWN) : cached
      ),
      beginShutdown: Effect.asVoid(Deferred.succeed(stopping, undefined)),
      shuttingDown: Deferred.await(stopping)
    })
  })
)
