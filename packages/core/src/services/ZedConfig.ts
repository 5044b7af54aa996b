import { Context } from "effect"

/** How destinations retry a failed HTTP request: `retries` more attempts, waits doubling from `retryDelayMs`. */
export interface DestinationRetries {
  readonly retries: number
  readonly retryDelayMs: number
}

export const DEFAULT_DESTINATION_RETRIES: DestinationRetries = { retries: 3, retryDelayMs: 1000 }

/** Settings of this Zed instance that request handling needs. */
export class ZedConfig extends Context.Tag("@zed/core/ZedConfig")<ZedConfig, {
  /** Believe `X-Forwarded-*` headers (client IP, scheme, host): only behind a proxy you run. */
  readonly trustProxy: boolean
  readonly destinationRetries?: DestinationRetries | undefined
}>() {}
