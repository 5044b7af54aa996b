import { Context, Effect, Layer, Option } from "effect"
import { makeBoundedMap } from "../cache/bounded.js"

/** Failed sign-ins allowed per account and per client address within `WINDOW_MS`. */
export const MAX_FAILURES = 5
export const WINDOW_MS = 15 * 60 * 1000
/** Accounts and addresses remembered at once; past it the least recently failing are forgotten. */
const CAPACITY = 10_000

/**
 * Failed sign-ins, counted per key (`account:<email>`, `address:<ip>`) in memory: per instance, which
 * bounds guessing to `MAX_FAILURES` per window per instance. Memory is bounded by `CAPACITY` keys.
 */
export class SignInThrottle extends Context.Tag("@zed/core/SignInThrottle")<
  SignInThrottle,
  {
    /** Seconds to wait when any of the keys has failed too often lately. */
    readonly blocked: (keys: ReadonlyArray<string>) => Effect.Effect<Option.Option<number>>
    readonly failed: (keys: ReadonlyArray<string>) => Effect.Effect<void>
    readonly succeeded: (key: string) => Effect.Effect<void>
  }
>() {}

export const SignInThrottleLive = Layer.sync(SignInThrottle, () => {
  const failures = makeBoundedMap<string, ReadonlyArray<number>>({ maxEntries: CAPACITY })
  const recent = (key: string, now: number) => (failures.peek(key) ?? []).filter((at) => now - at < WINDOW_MS)
  return SignInThrottle.of({
    blocked: (keys) =>
      Effect.sync(() => {
        const now = Date.now()
        const waits = keys.flatMap((key) => {
          const times = recent(key, now)
          return times.length >= MAX_FAILURES ? [Math.ceil((times[0]! + WINDOW_MS - now) / 1000)] : []
        })
        return waits.length === 0 ? Option.none() : Option.some(Math.max(1, ...waits))
      }),
    failed: (keys) =>
      Effect.sync(() => {
        const now = Date.now()
        for (const key of keys) failures.set(key, [...recent(key, now), now].slice(-MAX_FAILURES))
      }),
    succeeded: (key) => Effect.sync(() => void failures.delete(key))
  })
})
