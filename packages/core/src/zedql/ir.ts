import type { CompareOp } from "./ast.js"
import type { ZType } from "./types.js"

// A ZedQL query after resolution, ready for a dialect to print: every name is bound (columns to
// physical columns of aliased sources, properties to JSON paths), every call to a known function,
// every virtual table expanded to physical sources. A `table` source stands for the rows of that
// physical table in the caller's project, and nothing else: dialects must print it so.

export type RExpr =
  | { readonly kind: "const"; readonly value: string | number | boolean | null; readonly type: ZType }
  /** A physical column of a source in scope (or an outer scope). */
  | { readonly kind: "column"; readonly source: string; readonly column: string; readonly type: ZType }
  /** A value inside a JSON column: text, as ClickHouse's JSONExtractRaw with quotes trimmed gives it. */
  | {
      readonly kind: "property"
      readonly source: string
      readonly column: string
      readonly path: ReadonlyArray<PathStep>
      readonly type: ZType
    }
  | {
      readonly kind: "call"
      readonly name: string
      readonly args: ReadonlyArray<RExpr>
      readonly params: ReadonlyArray<RExpr>
      readonly distinct: boolean
      readonly filter: RExpr | null
      readonly type: ZType
    }
  | {
      readonly kind: "compare"
      readonly op: CompareOp
      readonly left: RExpr
      readonly right: RExpr
      readonly type: ZType
    }
  | { readonly kind: "and" | "or"; readonly exprs: ReadonlyArray<RExpr>; readonly type: ZType }
  | { readonly kind: "not"; readonly expr: RExpr; readonly type: ZType }
  | {
      readonly kind: "arith"
      readonly op: "+" | "-" | "*" | "/" | "%"
      readonly left: RExpr
      readonly right: RExpr
      readonly type: ZType
    }
  | {
      readonly kind: "between"
      readonly expr: RExpr
      readonly low: RExpr
      readonly high: RExpr
      readonly negated: boolean
      readonly type: ZType
    }
  | { readonly kind: "array"; readonly exprs: ReadonlyArray<RExpr>; readonly type: ZType }
  | { readonly kind: "tuple"; readonly exprs: ReadonlyArray<RExpr>; readonly type: ZType }
  /** 1-based, as in ClickHouse; negative indexes count from the end. */
  | { readonly kind: "arrayAccess"; readonly array: RExpr; readonly index: RExpr; readonly type: ZType }
  | { readonly kind: "tupleAccess"; readonly tuple: RExpr; readonly index: number; readonly type: ZType }
  | { readonly kind: "lambda"; readonly args: ReadonlyArray<string>; readonly expr: RExpr; readonly type: ZType }
  | { readonly kind: "lambdaArg"; readonly name: string; readonly type: ZType }
  /** A value converted to another type (strings compared with dates, typed properties…). */
  | { readonly kind: "cast"; readonly expr: RExpr; readonly type: ZType }
  | { readonly kind: "subquery"; readonly query: RQuery; readonly type: ZType }
  | {
      readonly kind: "window"
      readonly name: string
      readonly args: ReadonlyArray<RExpr>
      readonly over: RWindow | string
      readonly type: ZType
    }

/** A function call. */
export type RCall = Extract<RExpr, { kind: "call" }>

export type PathStep = string | number | RExpr

export interface ROrder {
  readonly expr: RExpr
  readonly descending: boolean
}

export interface RWindow {
  readonly partitionBy: ReadonlyArray<RExpr>
  readonly orderBy: ReadonlyArray<ROrder>
  readonly frame: string | null
}

export type RSource =
  /** The project's rows of a physical table (the only way a query reaches stored data). */
  | { readonly kind: "table"; readonly table: string; readonly alias: string }
  | { readonly kind: "subquery"; readonly query: RQuery; readonly alias: string }
  | { readonly kind: "cte"; readonly name: string; readonly alias: string }
  /** One row per element of an array expression (ARRAY JOIN). */
  | { readonly kind: "unnest"; readonly expr: RExpr; readonly alias: string; readonly column: string }

export interface RFrom {
  readonly join: "FROM" | "INNER" | "LEFT" | "RIGHT" | "FULL" | "CROSS"
  readonly source: RSource
  readonly on: RExpr | null
}

export interface RColumn {
  readonly expr: RExpr
  /** The name ZedQL reports (alias, or the expression as written). */
  readonly name: string
}

export interface RSelect {
  readonly kind: "select"
  readonly ctes: ReadonlyArray<{ readonly name: string; readonly query: RQuery }>
  readonly distinct: boolean
  readonly columns: ReadonlyArray<RColumn>
  readonly from: ReadonlyArray<RFrom>
  readonly where: RExpr | null
  readonly groupBy: ReadonlyArray<RExpr>
  readonly having: RExpr | null
  readonly windows: ReadonlyArray<{ readonly name: string; readonly window: RWindow }>
  readonly orderBy: ReadonlyArray<ROrder>
  readonly limit: RExpr | null
  readonly offset: RExpr | null
}

export interface RSet {
  readonly kind: "set"
  readonly first: RQuery
  readonly rest: ReadonlyArray<{
    readonly operator: "UNION ALL" | "UNION DISTINCT" | "INTERSECT" | "EXCEPT"
    readonly query: RQuery
  }>
  readonly limit: RExpr | null
  readonly offset: RExpr | null
}

export type RQuery = RSelect | RSet

/** The columns a query outputs, whatever its shape. */
export const outputColumns = (query: RQuery): ReadonlyArray<RColumn> =>
  query.kind === "select" ? query.columns : outputColumns(query.first)
