// `@zed/core/domain`: Zed's rules as pure functions, to use or test without storage or HTTP — flag
// evaluation, property filters, the ZedQL compiler and its dialects, the query API's refresh-mode
// cache policy and cache key, and pagination.

export {
  asInstant,
  asNumber,
  DATE_TEXT,
  filterTexts,
  isPattern,
  matches,
  NEGATES,
  NUMERIC_TEXT,
  PROPERTY_OPERATORS,
  PropertyFilter,
  type PropertyOperator,
  propertyText
} from "./filters/property.js"
export * from "./flags/index.js"
export * from "./zedql/index.js"
export {
  type BackgroundAction,
  cacheExpiry,
  type CacheDecision,
  type CacheSituation,
  cacheTargetAge,
  decideCaching,
  isStale,
  nextAllowedClientRefresh,
  type QueryFreshness,
  RefreshMode,
  refreshMode,
  type Staleness,
  ZEDQL_STALENESS
} from "./queries/cachePolicy.js"
export { cacheKey, type CacheKeyInput } from "./queries/cacheKey.js"
export { DEFAULT_LIMIT, MAX_LIMIT, type Page, pageLinks, paginated, toPage } from "./domain/pagination.js"
