import { Schema } from "effect"

// Masking de-duplicates a function's invocations: events whose rendered `hash` template gives the
// same value within `ttl` seconds invoke it once; with a `threshold`, every threshold-th repeat
// goes through again. Counters live in this process (several Zed instances each count their own).

export const Masking = Schema.Struct({
  ttl: Schema.Int.pipe(Schema.between(60, 86_400, { message: () => "ttl must be between 60 and 86400 seconds." })),
  threshold: Schema.optionalWith(Schema.NullOr(Schema.Int.pipe(Schema.positive())), { default: () => null }),
  hash: Schema.String.pipe(Schema.minLength(1, { message: () => "hash is required." }))
}).annotations({
  identifier: "FunctionMasking",
  description:
    "`hash`: a template (e.g. `{person.id}`); invocations with the same hash within `ttl` seconds (60–86400) run once, or once per `threshold` repeats."
})
export type Masking = typeof Masking.Type

interface Seen {
  count: number
  readonly expires: number
}

/** Most hashes remembered; past it, expired ones are swept, then the oldest dropped. */
const MAX_ENTRIES = 100_000

export interface Masker {
  /** Counts one invocation for the hash; whether it may run. */
  readonly admit: (
    functionId: string,
    hash: string,
    masking: Pick<Masking, "ttl" | "threshold">,
    now: number
  ) => boolean
}

export const makeMasker = (): Masker => {
  const seen = new Map<string, Seen>()
  const sweep = (now: number) => {
    for (const [key, entry] of seen) if (entry.expires <= now) seen.delete(key)
    while (seen.size >= MAX_ENTRIES) seen.delete(seen.keys().next().value!)
  }
  return {
    admit: (functionId, hash, { threshold, ttl }, now) => {
      const key = `${functionId}\u0000${hash}`
      const entry = seen.get(key)
      if (entry === undefined || entry.expires <= now) {
        if (seen.size >= MAX_ENTRIES) sweep(now)
        seen.delete(key)
        seen.set(key, { count: 1, expires: now + ttl * 1000 })
        return true
      }
      entry.count++
      return threshold !== null && entry.count % threshold === 0
    }
  }
}
