import { Schema } from "effect"
import { IntFromString } from "../schema/fields.js"

export const DEFAULT_LIMIT = 100
export const MAX_LIMIT = 1000

/** The `limit`/`offset` query parameters every list endpoint accepts. */
export const PageParams = Schema.Struct({
  limit: Schema.optional(
    IntFromString(1).annotations({ description: `Results per page (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}).` })
  ),
  offset: Schema.optional(IntFromString(0).annotations({ description: "Index of the first result to return." }))
})

export interface Page {
  readonly limit: number
  readonly offset: number
}

/** The page a request asks for; a limit above the maximum is capped, not refused. */
export const toPage = (params: {
  readonly limit?: number | undefined
  readonly offset?: number | undefined
}): Page => ({
  limit: Math.min(params.limit ?? DEFAULT_LIMIT, MAX_LIMIT),
  offset: params.offset ?? 0
})

/**
 * Absolute `next`/`previous` URLs: the request's own URL with `limit` and `offset` replaced.
 * `previous` drops `offset` when it would reach the first page.
 */
export const pageLinks = (url: URL, page: Page, count: number): { next: string | null; previous: string | null } => {
  const withPage = (offset: number | null) => {
    const link = new URL(url)
    link.searchParams.set("limit", String(page.limit))
    if (offset === null) link.searchParams.delete("offset")
    else link.searchParams.set("offset", String(offset))
    return link.toString()
  }
  return {
    next: page.offset + page.limit < count ? withPage(page.offset + page.limit) : null,
    previous:
      page.offset <= 0 ? null : page.offset - page.limit <= 0 ? withPage(null) : withPage(page.offset - page.limit)
  }
}

export interface Paginated<A> {
  readonly count: number
  readonly next: string | null
  readonly previous: string | null
  readonly results: ReadonlyArray<A>
}

export const paginated = <A>(url: URL, page: Page, count: number, results: ReadonlyArray<A>): Paginated<A> => ({
  count,
  ...pageLinks(url, page, count),
  results
})

/** The pagination envelope around `item`. */
export const Paginated = <A, I>(item: Schema.Schema<A, I, never>, identifier: string) =>
  Schema.Struct({
    count: Schema.Int,
    next: Schema.NullOr(Schema.String),
    previous: Schema.NullOr(Schema.String),
    results: Schema.Array(item)
  }).annotations({ identifier })
