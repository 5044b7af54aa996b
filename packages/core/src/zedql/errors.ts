import { Data } from "effect"

/** Where in the query text a problem is: character offsets, end exclusive. */
export interface Span {
  readonly start: number
  readonly end: number
}

/** The text is not ZedQL (or uses syntax Zed does not support). */
export class ZedQLSyntaxError extends Data.TaggedError("ZedQLSyntaxError")<{
  readonly message: string
  readonly span: Span | null
}> {}

/** Valid syntax, but not a valid query: unknown table or field, unsupported function, wrong arity… */
export class ZedQLQueryError extends Data.TaggedError("ZedQLQueryError")<{
  readonly message: string
  readonly span: Span | null
}> {}

export type ZedQLError = ZedQLSyntaxError | ZedQLQueryError
