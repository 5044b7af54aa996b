import { Context } from "effect"

/** Settings of this Zed instance that request handling needs. */
export class ZedConfig extends Context.Tag("@zed/core/ZedConfig")<ZedConfig, {
  /** Believe `X-Forwarded-*` headers (client IP, scheme, host): only behind a proxy you run. */
  readonly trustProxy: boolean
}>() {}
