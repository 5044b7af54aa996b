import { Context } from "effect"
import { DEFAULT_GRAMMAR_LIMITS, type GrammarLimits } from "../grammar/pool.js"

/** How destinations retry a failed HTTP request: `retries` more attempts, waits doubling from `retryDelayMs`. */
export interface DestinationRetries {
  readonly retries: number
  readonly retryDelayMs: number
}

export const DEFAULT_DESTINATION_RETRIES: DestinationRetries = { retries: 3, retryDelayMs: 1000 }

/**
 * What one request (or one caller) may take of this instance: past a limit the request is refused
 * (400, 413, 429) rather than slowing everyone down.
 */
export interface ZedLimits {
  /** ZedQL and Hog texts: length, nesting, size, parse time, texts waiting. */
  readonly grammar: GrammarLimits
  /** Milliseconds one storage call may take; past it the request answers 503. */
  readonly storageTimeoutMs: number
  /** ZedQL and insight queries run at once, per project and per personal API key; more get 429. */
  readonly concurrentQueries: { readonly perProject: number; readonly perKey: number }
}

export const DEFAULT_LIMITS: ZedLimits = {
  grammar: DEFAULT_GRAMMAR_LIMITS,
  storageTimeoutMs: 10_000,
  concurrentQueries: { perProject: 8, perKey: 4 }
}

/** Limits as given to `createZed`: any of them, the others at their defaults. */
export interface LimitsOptions {
  readonly grammar?: Partial<GrammarLimits> | undefined
  readonly storageTimeoutMs?: number | undefined
  readonly concurrentQueries?: Partial<ZedLimits["concurrentQueries"]> | undefined
}

export const limitsOf = (options: LimitsOptions = {}): ZedLimits => ({
  grammar: { ...DEFAULT_LIMITS.grammar, ...options.grammar },
  storageTimeoutMs: options.storageTimeoutMs ?? DEFAULT_LIMITS.storageTimeoutMs,
  concurrentQueries: { ...DEFAULT_LIMITS.concurrentQueries, ...options.concurrentQueries }
})

/** Settings of this Zed instance that request handling needs. */
export class ZedConfig extends Context.Tag("@zed/core/ZedConfig")<ZedConfig, {
  /** Believe `X-Forwarded-*` headers (client IP, scheme, host): only behind a proxy you run. */
  readonly trustProxy: boolean
  readonly destinationRetries?: DestinationRetries | undefined
  readonly limits: ZedLimits
}>() {}
