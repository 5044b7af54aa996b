import { Context, Data, type Effect } from "effect"
import type { Dialect } from "../zedql/printer.js"
import type { StorageError } from "./StorageError.js"

/** One compiled ZedQL statement, as the store runs it. */
export interface ExecuteRequest {
  /** A single read-only SELECT with the dialect's placeholders; never contains user text outside parameters. */
  readonly sql: string
  readonly params: ReadonlyArray<unknown>
  /** IANA time zone the statement's session runs in (date functions and timestamp output follow it). */
  readonly timezone: string
  /** The statement is stopped (QueryTimeout) when it runs longer. */
  readonly timeoutMs: number
  /** A uuid naming this execution, so `cancel` can find it from any instance. */
  readonly executionId: string
}

export interface ResultColumn {
  readonly name: string
  /** The PostgreSQL type OID of the column (0 from a store without them). */
  readonly typeOid: number
}

/** Rows as arrays, in column order, with values as the driver parsed them. */
export interface ResultSet {
  readonly columns: ReadonlyArray<ResultColumn>
  readonly rows: ReadonlyArray<ReadonlyArray<unknown>>
}

/** The statement ran past its time limit and was stopped. */
export class QueryTimeout extends Data.TaggedError("QueryTimeout")<{ readonly timeoutMs: number }> {}

/** The statement was stopped by `cancel`. */
export class QueryCancelled extends Data.TaggedError("QueryCancelled")<{}> {}

/** The database refused the statement for what it computes (division by zero, a bad cast…): the query's fault. */
export class QueryFailed extends Data.TaggedError("QueryFailed")<{ readonly message: string }> {}

/**
 * Runs compiled ZedQL against the store: read-only, in the project's time zone, with a time limit,
 * and stoppable for real (the database stops working on it).
 */
export class QueryExecutor extends Context.Tag("@zed/core/QueryExecutor")<
  QueryExecutor,
  {
    /** The SQL dialect ZedQL is printed in for this store. */
    readonly dialect: Dialect
    readonly execute: (
      request: ExecuteRequest
    ) => Effect.Effect<ResultSet, QueryTimeout | QueryCancelled | QueryFailed | StorageError>
    /** Stops the statement running under `executionId`, wherever it runs; answers whether one was running. */
    readonly cancel: (executionId: string) => Effect.Effect<boolean, StorageError>
  }
>() {}
