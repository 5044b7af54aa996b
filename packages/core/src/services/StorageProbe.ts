import { Context, Data, type Effect } from "effect"

/** Why storage failed a probe: nothing answers, it refuses writes, it has no room, or something else. */
export type ProbeFailureReason = "unreachable" | "read_only" | "full" | "failed"

export class ProbeFailed extends Data.TaggedError("ProbeFailed")<{
  readonly reason: ProbeFailureReason
  readonly message: string
  readonly cause?: unknown
}> {}

/** A cheap round trip that proves storage takes writes: what readiness is decided on. */
export class StorageProbe extends Context.Tag("@zed/core/StorageProbe")<
  StorageProbe,
  {
    /** Writes a row of its own and reads it back. */
    readonly probe: Effect.Effect<void, ProbeFailed>
  }
>() {}
