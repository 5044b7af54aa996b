import type { SelectLike } from "../zedql/ast.js"

// The contract between insight query nodes (TrendsQuery, FunnelsQuery, …) and the ZedQL pipeline:
// each kind is planned, purely, into ZedQL statements and a function that shapes their rows into
// the insight's `result`. Planners never touch storage; the insight runner compiles and executes
// the statements like any ZedQL query (project scoping, time zone, limits).

/** What a plan depends on besides the query node. */
export interface InsightContext {
  /** The project's IANA time zone: intervals and date labels are in it. */
  readonly timezone: string
  /** The moment "now" for relative date ranges (`-7d`, `mStart`). */
  readonly now: Date
  /** 0: weeks start on Sunday (PostHog's default), 1: Monday. */
  readonly weekStartDay: 0 | 1
}

export interface InsightPlan {
  /**
   * ZedQL statements, as trees with `{now}` for the moment: nothing is parsed when they run, and
   * they are the same from one moment to the next. Their results are given to `shape` in order.
   */
  readonly queries: ReadonlyArray<SelectLike>
  /** The values of the statements' placeholders (`{now}`), given to the compiler. */
  readonly values?: Readonly<Record<string, string>> | undefined
  /** The insight's `result`, from each statement's rows (JSON values, as the query API answers them). */
  readonly shape: (results: ReadonlyArray<ReadonlyArray<ReadonlyArray<unknown>>>) => unknown
  /** The ZedQL shown as the insight's `zedql` (the statements written out with their values, joined). */
  readonly zedql: string
  /**
   * Fields of the response besides `results` (a table's `columns`, `types`, paging), from the
   * statements' rows and the ClickHouse type names of their columns.
   */
  readonly fields?:
    | ((
        results: ReadonlyArray<ReadonlyArray<ReadonlyArray<unknown>>>,
        types: ReadonlyArray<ReadonlyArray<string>>
      ) => Readonly<Record<string, unknown>>)
    | undefined
}

/**
 * The persons behind one point of an insight: a statement of their ids (`actor`) and, where the
 * planner knows them, one of the events that put them there (`actor, uuid, session_id, timestamp`).
 */
export interface PointActors {
  readonly actors: SelectLike
  readonly events?: SelectLike | undefined
}
