import { Context } from "effect"
import type { MembershipLevel } from "../domain/models.js"
import { DEFAULT_GRAMMAR_LIMITS, type GrammarLimits } from "../grammar/pool.js"

/** How destinations retry a failed HTTP request: `retries` more attempts, waits doubling from `retryDelayMs`. */
export interface DestinationRetries {
  readonly retries: number
  readonly retryDelayMs: number
}

export const DEFAULT_DESTINATION_RETRIES: DestinationRetries = { retries: 3, retryDelayMs: 1000 }

const MiB = 1024 * 1024

/**
 * The kinds of endpoint a body limit applies to: single-event capture (`/e/`, `/i/v0/e/`, `/capture/`,
 * `/track/`, `/engage/`), batch capture (`/batch/`), session recordings (`/s/`), and the rest (the
 * management API, `/decide/` and `/flags/`).
 */
export interface BodyLimits {
  readonly capture: number
  readonly batch: number
  readonly recordings: number
  readonly api: number
}

/**
 * What one request (or one caller) may take of this instance: past a limit the request is refused
 * (400, 413, 429) rather than slowing everyone down.
 */
export interface ZedLimits {
  /** Bytes of a request body as sent; past it, 413. */
  readonly bodyBytes: BodyLimits
  /** Bytes of a body once decompressed and decoded (gzip, base64, lz64: SDK endpoints); past it, 413. */
  readonly decodedBytes: BodyLimits
  /** Events (or recording messages) in one capture request; past it, 400 and nothing stored. */
  readonly eventsPerBatch: number
  /** ZedQL and Hog texts: length, nesting, size, parse time, texts waiting. */
  readonly grammar: GrammarLimits
  /** Milliseconds one storage call may take; past it the request answers 503. */
  readonly storageTimeoutMs: number
  /** ZedQL and insight queries run at once, per project and per personal API key; more get 429. */
  readonly concurrentQueries: { readonly perProject: number; readonly perKey: number }
  /** Rows an export reads (and holds) at a time. */
  readonly exportPageRows: number
}

export const DEFAULT_LIMITS: ZedLimits = {
  bodyBytes: { capture: 2 * MiB, batch: 20 * MiB, recordings: 20 * MiB, api: 20 * MiB },
  decodedBytes: { capture: 20 * MiB, batch: 100 * MiB, recordings: 100 * MiB, api: 20 * MiB },
  eventsPerBatch: 10_000,
  grammar: DEFAULT_GRAMMAR_LIMITS,
  storageTimeoutMs: 10_000,
  concurrentQueries: { perProject: 8, perKey: 4 },
  exportPageRows: 10_000
}

/** Limits as given to `createZed`: any of them, the others at their defaults. */
export interface LimitsOptions {
  readonly bodyBytes?: Partial<BodyLimits> | undefined
  readonly decodedBytes?: Partial<BodyLimits> | undefined
  readonly eventsPerBatch?: number | undefined
  readonly grammar?: Partial<GrammarLimits> | undefined
  readonly storageTimeoutMs?: number | undefined
  readonly concurrentQueries?: Partial<ZedLimits["concurrentQueries"]> | undefined
  readonly exportPageRows?: number | undefined
}

export const limitsOf = (options: LimitsOptions = {}): ZedLimits => ({
  bodyBytes: { ...DEFAULT_LIMITS.bodyBytes, ...options.bodyBytes },
  decodedBytes: { ...DEFAULT_LIMITS.decodedBytes, ...options.decodedBytes },
  eventsPerBatch: options.eventsPerBatch ?? DEFAULT_LIMITS.eventsPerBatch,
  grammar: { ...DEFAULT_LIMITS.grammar, ...options.grammar },
  storageTimeoutMs: options.storageTimeoutMs ?? DEFAULT_LIMITS.storageTimeoutMs,
  concurrentQueries: { ...DEFAULT_LIMITS.concurrentQueries, ...options.concurrentQueries },
  exportPageRows: options.exportPageRows ?? DEFAULT_LIMITS.exportPageRows
})

/** Who the embedding app says is signed in: an e-mail address, or undefined for nobody. */
export type HostAuthenticate = (request: {
  /** The request's headers (`get` by name, any case). */
  readonly headers: { readonly get: (name: string) => string | null }
  readonly cookies: Readonly<Record<string, string>>
}) => Promise<{ readonly email: string; readonly first_name?: string | undefined } | undefined>

/** The embedding app's sign-in, and the level of the users it brings in (made on first sight). */
export interface HostAuthentication {
  readonly authenticate: HostAuthenticate
  readonly level: MembershipLevel
}

/** Settings of this Zed instance that request handling needs. */
export class ZedConfig extends Context.Tag("@zed/core/ZedConfig")<
  ZedConfig,
  {
    /** Believe `X-Forwarded-*` headers (client IP, scheme, host): only behind a proxy you run. */
    readonly trustProxy: boolean
    readonly destinationRetries?: DestinationRetries | undefined
    readonly limits: ZedLimits
    readonly hostAuthentication?: HostAuthentication | undefined
  }
>() {}
