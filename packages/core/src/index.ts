// `@zed/core`: Zed for an app that embeds it — create it on a store, mount `zed.nodeHandler` or
// `zed.fetch`, and run its setup and demo data. Storage implementers use `@zed/core/storage`,
// adapter authors `@zed/core/adapter`, and Zed's rules without I/O are in `@zed/core/domain`.

export type { ApiError, ErrorBody } from "./api/errors.js"
export { openApiDocument, type OpenApiDocument } from "./api/openapi.js"
export { generatePassword } from "./accounts/passwords.js"
export { issuePersonalApiKey, type KeyRequest, KeyRequestError } from "./apiKeys.js"
export { BootstrapError, type BootstrapOptions, type BootstrapResult, type Credentials } from "./bootstrap.js"
export { createZed, DEFAULT_SHUTDOWN_GRACE_MS, type Zed, type ZedOptions } from "./createZed.js"
export type { WebAppOptions } from "./api/webApp.js"
export {
  DEFAULT_DEMO_DAYS,
  DEFAULT_DEMO_SEED,
  demoEvents,
  type DemoOptions,
  DemoOptionsError
} from "./demo/generate.js"
export { DemoLoadError, loadDemoData, type LoadDemoOptions } from "./demo/load.js"
export type { DemoEvent } from "./demo/session.js"
export { DEFAULT_GRAMMAR_LIMITS, type GrammarLimits } from "./grammar/pool.js"
export { GeoIp, GeoIpNone } from "./services/GeoIp.js"
export { memoryStorage } from "./services/memory/index.js"
export type { ZedStorage } from "./services/Storage.js"
export {
  DEFAULT_LIMITS,
  type HostAuthenticate,
  limitsOf,
  type LimitsOptions,
  type ZedLimits
} from "./services/ZedConfig.js"
export { VERSION } from "./version.js"
export { exportProjectTo, importProjectFrom } from "./transfer/projectTransfer.js"
export { TRANSFER_FORMAT, TRANSFER_VERSION, TransferError } from "./transfer/format.js"
export type { ImportSummary } from "./transfer/importProject.js"
