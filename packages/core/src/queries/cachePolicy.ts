import { Duration, Schema } from "effect"
import type { CachedResponse } from "../services/QueryCache.js"

/** The `refresh` values of a query request (PostHog's, async_except_on_cache_miss included). */
export const RefreshMode = Schema.Literal(
  "blocking",
  "async",
  "lazy_async",
  "force_blocking",
  "force_async",
  "force_cache",
  "async_except_on_cache_miss"
)
export type RefreshMode = typeof RefreshMode.Type

/**
 * The mode a request asks for: legacy `"async": true` wins over `refresh`; `refresh: true` is the
 * old spelling of force_blocking; no refresh (or `false`) is the default, blocking.
 */
export const refreshMode = (
  refresh: RefreshMode | boolean | null | undefined,
  legacyAsync?: boolean | null
): RefreshMode =>
  legacyAsync === true
    ? "async"
    : refresh === true
      ? "force_blocking"
      : typeof refresh === "string"
        ? refresh
        : "blocking"

/** How long a computed result stays fresh: `lazy` for lazy_async, `normal` for every other mode. */
export interface Staleness {
  readonly normal: Duration.Duration
  readonly lazy: Duration.Duration
}

/** ZedQL queries take the "day" row of PostHog's thresholds. */
export const ZEDQL_STALENESS: Staleness = { normal: Duration.hours(6), lazy: Duration.hours(12) }

/** PostHog's thresholds by an insight's interval: finer intervals go stale sooner. */
const INTERVAL_STALENESS: Readonly<Record<string, Staleness>> = {
  minute: { normal: Duration.minutes(5), lazy: Duration.minutes(15) },
  hour: { normal: Duration.hours(1), lazy: Duration.hours(2) },
  day: ZEDQL_STALENESS,
  week: { normal: Duration.days(1), lazy: Duration.days(1) },
  month: { normal: Duration.days(1), lazy: Duration.days(1) }
}

/** The staleness of an insight by its interval (retention: its period); an unknown or no interval as a day's. */
export const intervalStaleness = (interval: string | null | undefined): Staleness =>
  (interval != null && Object.hasOwn(INTERVAL_STALENESS, interval.toLowerCase())
    ? INTERVAL_STALENESS[interval.toLowerCase()]
    : undefined) ?? ZEDQL_STALENESS

/** How soon a client may ask to recompute a ZedQL query (`next_allowed_client_refresh`). */
const ZEDQL_REFRESH_INTERVAL = Duration.minutes(1)

/** How long a cached result is kept at all, fresh or stale (PostHog's CACHED_RESULTS_TTL). */
const CACHE_TTL = Duration.days(7)

// The cache is written just after the query ran: a range that ended this much before the write
// may have been computed from data that was still arriving, so it can go stale like any other.
const WRITE_LAG = Duration.seconds(10)

const plus = (date: Date, duration: Duration.Duration) => new Date(date.getTime() + Duration.toMillis(duration))

const stalenessOf = (staleness: Staleness, mode: RefreshMode): Duration.Duration =>
  mode === "lazy_async" ? staleness.lazy : staleness.normal

/** `cache_target_age`: when a result refreshed at `lastRefresh` stops being fresh. */
export const cacheTargetAge = (lastRefresh: Date, staleness: Staleness, mode: RefreshMode): Date =>
  plus(lastRefresh, stalenessOf(staleness, mode))

export const nextAllowedClientRefresh = (lastRefresh: Date): Date => plus(lastRefresh, ZEDQL_REFRESH_INTERVAL)

/** When a result refreshed at `lastRefresh` may be dropped from the cache. */
export const cacheExpiry = (lastRefresh: Date): Date => plus(lastRefresh, CACHE_TTL)

/** What the policy needs to know about the query itself. */
export interface QueryFreshness {
  readonly staleness: Staleness
  /** The end of the query's date range, if it has one. */
  readonly dateTo: Date | null
}

/**
 * Whether a result refreshed at `lastRefresh` is stale at `now`: a range that had ended before the
 * result was computed never changes, so its result never goes stale; any other goes stale once
 * `now` is past the target age (at the target age it is still fresh).
 */
export const isStale = (lastRefresh: Date, now: Date, query: QueryFreshness, mode: RefreshMode): boolean => {
  if (query.dateTo !== null && query.dateTo.getTime() < lastRefresh.getTime() - Duration.toMillis(WRITE_LAG))
    return false
  return now.getTime() > cacheTargetAge(lastRefresh, query.staleness, mode).getTime()
}

export interface CacheSituation {
  readonly mode: RefreshMode
  readonly cached: CachedResponse | null
  readonly now: Date
  readonly query: QueryFreshness
  /** Whether a background computation of this query is under way. */
  readonly backgroundRunning: boolean
}

/**
 * The background computation whose status goes with an answer: none, the one under way, or a new
 * one to start.
 */
export type BackgroundAction = "none" | "join" | "start"

export type CacheDecision =
  /** Answer with the cached response (`is_cached: true`), with the background's status if any. */
  | { readonly _tag: "Cached"; readonly entry: CachedResponse; readonly background: BackgroundAction }
  /** Answer a cache miss (`{cache_key, query_status}`) without computing here. */
  | { readonly _tag: "Miss"; readonly background: BackgroundAction }
  /** Answer only with the status of the background computation (`{query_status}`). */
  | { readonly _tag: "Status"; readonly background: Exclude<BackgroundAction, "none"> }
  /** Compute now, answer with the result and cache it. */
  | { readonly _tag: "Compute" }

/**
 * What to do with a query request, after PostHog's `QueryRunner.run`, except that force_cache never
 * computes and that a computation under way is joined, never doubled (PostHog enqueues
 * another for force_async and stale async hits).
 */
export const decideCaching = ({ backgroundRunning, cached, mode, now, query }: CacheSituation): CacheDecision => {
  const running: BackgroundAction = backgroundRunning ? "join" : "none"
  const recompute: Exclude<BackgroundAction, "none"> = backgroundRunning ? "join" : "start"
  const compute: CacheDecision = { _tag: "Compute" }
  if (mode === "force_blocking") return compute
  if (mode === "force_async") return { _tag: "Status", background: recompute }
  if (cached === null) {
    switch (mode) {
      case "force_cache":
        return { _tag: "Miss", background: running }
      case "async":
      case "lazy_async":
        return { _tag: "Miss", background: recompute }
      case "blocking":
      case "async_except_on_cache_miss":
        return compute
    }
  }
  if (!isStale(cached.lastRefresh, now, query, mode)) return { _tag: "Cached", entry: cached, background: running }
  switch (mode) {
    case "force_cache":
      return { _tag: "Cached", entry: cached, background: running }
    case "async":
    case "lazy_async":
    case "async_except_on_cache_miss":
      return { _tag: "Cached", entry: cached, background: recompute }
    case "blocking":
      return compute
  }
}
