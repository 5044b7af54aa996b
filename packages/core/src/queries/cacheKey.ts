import { createHash } from "node:crypto"

/** Everything a query's result depends on besides the data. */
export interface CacheKeyInput {
  /** The runner computing it, e.g. "ZedQLQueryRunner": two kinds of runner never share results. */
  readonly queryRunner: string
  /** The query node as requested; its `tags` (who asked, for the query log) are left out. */
  readonly query: Readonly<Record<string, unknown>>
  readonly teamId: number
  readonly modifiers: unknown
  /** The limit context; "query_async" only allows a longer run, so it shares "query"'s results. */
  readonly limitContext: string
  readonly timezone: string
  /** 0 for Sunday (the default), 1 for Monday. */
  readonly weekStartDay: number
}

// Sorted keys make equal queries written in another key order share a key; members set to null are
// left out as unset ones are (PostHog's `exclude_none`). Array elements keep their order and nulls.
const canonical = (_key: string, value: unknown): unknown => {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value
  const record = value as Record<string, unknown>
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .flatMap((key) => (record[key] === null ? [] : [[key, record[key]]]))
  )
}

/** PostHog's cache key: "cache_" + md5 of "query_" + the canonical JSON of what the result depends on. */
export const cacheKey = (input: CacheKeyInput): string => {
  const { tags: _tags, ...query } = input.query
  const payload = {
    query_runner: input.queryRunner,
    query,
    team_id: input.teamId,
    modifiers: input.modifiers,
    limit_context: input.limitContext === "query_async" ? "query" : input.limitContext,
    timezone: input.timezone,
    week_start_day: input.weekStartDay,
    version: 2
  }
  return (
    "cache_" +
    createHash("md5")
      .update(`query_${JSON.stringify(payload, canonical)}`, "utf8")
      .digest("hex")
  )
}
