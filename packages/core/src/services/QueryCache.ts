import { Context, type Effect, type Option } from "effect"
import type { StorageError } from "./StorageError.js"

/** A computed query response, kept under its cache key. */
export interface CachedResponse {
  readonly key: string
  /** The response object as the API returned it when computed (JSON). */
  readonly response: unknown
  readonly lastRefresh: Date
  /** After this the entry may be dropped; freshness is the cache policy's business, not the store's. */
  readonly expiresAt: Date
}

/** Query results by project and cache key, shared by every instance of a store. */
export class QueryCache extends Context.Tag("@zed/core/QueryCache")<
  QueryCache,
  {
    readonly get: (projectId: number, key: string) => Effect.Effect<Option.Option<CachedResponse>, StorageError>
    /** Replaces any entry under the same key. */
    readonly put: (projectId: number, entry: CachedResponse) => Effect.Effect<void, StorageError>
    /** Drops entries expired at `now`; answers how many. */
    readonly removeExpired: (now: Date) => Effect.Effect<number, StorageError>
  }
>() {}
