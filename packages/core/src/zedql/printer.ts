import type { RQuery } from "./ir.js"

// A dialect turns a resolved query into one statement of its SQL. Everything a dialect needs is in
// the IR (sources are a project's rows by contract); user text reaches the statement only as
// bound parameters.

export interface PrintedQuery {
  readonly sql: string
  readonly params: ReadonlyArray<unknown>
}

export interface PrintOptions {
  readonly projectId: number
  /** The project's time zone (results are shown in it; the executor sets the session to it). */
  readonly timezone: string
}

export interface Dialect {
  readonly name: string
  /** The statement for a top-level query: its columns formatted for the API (dates as ISO text…). */
  readonly print: (query: RQuery, options: PrintOptions) => PrintedQuery
  /** Every function name this dialect can print: the allowlist must not hold one it cannot. */
  readonly functions: ReadonlySet<string>
}

/** A dialect met an argument it cannot print (an unknown unit, format code…): the query's fault. */
export class ZedQLPrintError extends Error {}
