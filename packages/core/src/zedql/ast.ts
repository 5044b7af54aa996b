import { Schema } from "effect"

// ZedQL's syntax tree, decoded from the JSON the HogQL grammar's parser emits. Only the shapes Zed
// understands decode; anything else the parser produces is refused with its position.

const Position = Schema.Struct({ offset: Schema.Number })

/** Where a node is in the query text (character offsets), when the parser said. */
const located = {
  start: Schema.optional(Position),
  end: Schema.optional(Position)
}

export interface Located {
  readonly start?: { readonly offset: number } | undefined
  readonly end?: { readonly offset: number } | undefined
}

export interface Constant extends Located {
  readonly node: "Constant"
  readonly value: string | number | boolean | null
  /** "number" for Infinity and NaN, which arrive as text. */
  readonly value_type?: string | undefined
}
export interface Field extends Located {
  readonly node: "Field"
  readonly chain: ReadonlyArray<string | number>
}
export interface Alias extends Located {
  readonly node: "Alias"
  readonly alias: string
  readonly expr: Expr
}
export interface Placeholder extends Located {
  readonly node: "Placeholder"
  readonly expr: Expr
}
export interface Call extends Located {
  readonly node: "Call"
  readonly name: string
  readonly args: ReadonlyArray<Expr>
  readonly params?: ReadonlyArray<Expr> | null | undefined
  readonly distinct?: boolean | null | undefined
  readonly filter_expr?: Expr | null | undefined
}
export interface ArithmeticOperation extends Located {
  readonly node: "ArithmeticOperation"
  readonly op: "+" | "-" | "*" | "/" | "%"
  readonly left: Expr
  readonly right: Expr
}
export type CompareOp =
  | "=="
  | "!="
  | "<"
  | "<="
  | ">"
  | ">="
  | "like"
  | "not like"
  | "ilike"
  | "not ilike"
  | "in"
  | "not in"
  | "global in"
  | "global not in"
  | "in cohort"
  | "not in cohort"
  | "=~"
  | "!~"
  | "=~*"
  | "!~*"
export interface CompareOperation extends Located {
  readonly node: "CompareOperation"
  readonly op: CompareOp
  readonly left: Expr
  readonly right: Expr
}
export interface And extends Located {
  readonly node: "And"
  readonly exprs: ReadonlyArray<Expr>
}
export interface Or extends Located {
  readonly node: "Or"
  readonly exprs: ReadonlyArray<Expr>
}
export interface Not extends Located {
  readonly node: "Not"
  readonly expr: Expr
}
export interface BetweenExpr extends Located {
  readonly node: "BetweenExpr"
  readonly expr: Expr
  readonly low: Expr
  readonly high: Expr
  readonly negated?: boolean | undefined
}
export interface ArrayAccess extends Located {
  readonly node: "ArrayAccess"
  readonly array: Expr
  readonly property: Expr
  readonly nullish?: boolean | undefined
}
export interface ArrayExpr extends Located {
  readonly node: "Array"
  readonly exprs: ReadonlyArray<Expr>
}
export interface Tuple extends Located {
  readonly node: "Tuple"
  readonly exprs: ReadonlyArray<Expr>
}
export interface TupleAccess extends Located {
  readonly node: "TupleAccess"
  readonly tuple: Expr
  readonly index: number
  readonly nullish?: boolean | undefined
}
export interface Lambda extends Located {
  readonly node: "Lambda"
  readonly args: ReadonlyArray<string>
  readonly expr: Expr
}
export interface TypeCast extends Located {
  readonly node: "TypeCast"
  readonly expr: Expr
  readonly type_name: string
}
export interface OrderExpr extends Located {
  readonly node: "OrderExpr"
  readonly expr: Expr
  readonly order: "ASC" | "DESC"
}
export interface WindowFrameExpr extends Located {
  readonly node: "WindowFrameExpr"
  readonly frame_type: "CURRENT ROW" | "PRECEDING" | "FOLLOWING"
  readonly frame_value?: number | null | undefined
}
export interface WindowExpr extends Located {
  readonly node: "WindowExpr"
  readonly partition_by?: ReadonlyArray<Expr> | null | undefined
  readonly order_by?: ReadonlyArray<OrderExpr> | null | undefined
  readonly frame_method?: "ROWS" | "RANGE" | null | undefined
  readonly frame_start?: WindowFrameExpr | null | undefined
  readonly frame_end?: WindowFrameExpr | null | undefined
}
export interface WindowFunction extends Located {
  readonly node: "WindowFunction"
  readonly name: string
  readonly exprs?: ReadonlyArray<Expr> | null | undefined
  readonly args?: ReadonlyArray<Expr> | null | undefined
  readonly over_expr?: WindowExpr | null | undefined
  readonly over_identifier?: string | null | undefined
}
export interface JoinConstraint extends Located {
  readonly node: "JoinConstraint"
  readonly expr: Expr
  readonly constraint_type: "ON" | "USING"
}
export interface JoinExpr extends Located {
  readonly node: "JoinExpr"
  readonly join_type?: string | null | undefined
  readonly table?: Expr | SelectLike | null | undefined
  readonly alias?: string | null | undefined
  readonly constraint?: JoinConstraint | null | undefined
  readonly next_join?: JoinExpr | null | undefined
  readonly sample?: unknown
  readonly table_final?: boolean | null | undefined
  /** Arguments of a table function (`numbers(10)`), which ZedQL refuses. */
  readonly table_args?: unknown
}
export interface CTE extends Located {
  readonly node: "CTE"
  readonly name: string
  readonly expr: Expr | SelectLike
  readonly cte_type: "column" | "subquery"
}
export interface LimitByExpr extends Located {
  readonly node: "LimitByExpr"
}
export interface SelectQuery extends Located {
  readonly node: "SelectQuery"
  readonly ctes?: ReadonlyArray<CTE> | null | undefined
  readonly select: ReadonlyArray<Expr>
  readonly distinct?: boolean | null | undefined
  readonly select_from?: JoinExpr | null | undefined
  readonly array_join_op?: string | null | undefined
  readonly array_join_list?: ReadonlyArray<Expr> | null | undefined
  readonly window_exprs?: { readonly [name: string]: WindowExpr } | null | undefined
  readonly where?: Expr | null | undefined
  readonly prewhere?: Expr | null | undefined
  readonly having?: Expr | null | undefined
  readonly qualify?: Expr | null | undefined
  readonly group_by?: ReadonlyArray<Expr> | null | undefined
  readonly order_by?: ReadonlyArray<OrderExpr> | null | undefined
  readonly limit?: Expr | null | undefined
  readonly limit_by?: unknown
  readonly limit_with_ties?: boolean | null | undefined
  readonly offset?: Expr | null | undefined
}
export interface SelectSetNode {
  readonly node: "SelectSetNode"
  readonly select_query: SelectLike
  readonly set_operator: string
}
export interface SelectSetQuery extends Located {
  readonly node: "SelectSetQuery"
  readonly initial_select_query: SelectLike
  readonly subsequent_select_queries: ReadonlyArray<SelectSetNode>
}
export type SelectLike = SelectQuery | SelectSetQuery

export type Expr =
  | Constant
  | Field
  | Alias
  | Placeholder
  | Call
  | ArithmeticOperation
  | CompareOperation
  | And
  | Or
  | Not
  | BetweenExpr
  | ArrayAccess
  | ArrayExpr
  | Tuple
  | TupleAccess
  | Lambda
  | TypeCast
  | OrderExpr
  | WindowFunction
  | SelectQuery
  | SelectSetQuery

const Nullable = <A, I>(schema: Schema.Schema<A, I>) => Schema.optional(Schema.NullOr(schema))

const expr: Schema.Schema<Expr> = Schema.suspend(() => ExprSchema)
const selectLike: Schema.Schema<SelectLike> = Schema.suspend(() =>
  Schema.Union(SelectQuerySchema, SelectSetQuerySchema)
)
const exprs = Schema.Array(expr)

const OrderExprSchema: Schema.Schema<OrderExpr> = Schema.Struct({
  node: Schema.Literal("OrderExpr"),
  expr,
  order: Schema.Literal("ASC", "DESC"),
  ...located
})

const WindowFrameExprSchema = Schema.Struct({
  node: Schema.Literal("WindowFrameExpr"),
  frame_type: Schema.Literal("CURRENT ROW", "PRECEDING", "FOLLOWING"),
  frame_value: Nullable(Schema.Number),
  ...located
})

const WindowExprSchema: Schema.Schema<WindowExpr> = Schema.Struct({
  node: Schema.Literal("WindowExpr"),
  partition_by: Nullable(exprs),
  order_by: Nullable(Schema.Array(OrderExprSchema)),
  frame_method: Nullable(Schema.Literal("ROWS", "RANGE")),
  frame_start: Nullable(WindowFrameExprSchema),
  frame_end: Nullable(WindowFrameExprSchema),
  ...located
})

const JoinConstraintSchema = Schema.Struct({
  node: Schema.Literal("JoinConstraint"),
  expr,
  constraint_type: Schema.Literal("ON", "USING"),
  ...located
})

const JoinExprSchema: Schema.Schema<JoinExpr> = Schema.Struct({
  node: Schema.Literal("JoinExpr"),
  join_type: Nullable(Schema.String),
  table: Nullable(expr),
  alias: Nullable(Schema.String),
  constraint: Nullable(JoinConstraintSchema),
  next_join: Nullable(Schema.suspend((): Schema.Schema<JoinExpr> => JoinExprSchema)),
  sample: Schema.optional(Schema.Unknown),
  table_final: Nullable(Schema.Boolean),
  table_args: Schema.optional(Schema.Unknown),
  ...located
})

const CTESchema: Schema.Schema<CTE> = Schema.Struct({
  node: Schema.Literal("CTE"),
  name: Schema.String,
  expr,
  cte_type: Schema.Literal("column", "subquery"),
  ...located
})

const SelectQuerySchema: Schema.Schema<SelectQuery> = Schema.Struct({
  node: Schema.Literal("SelectQuery"),
  ctes: Nullable(Schema.Array(CTESchema)),
  select: exprs,
  distinct: Nullable(Schema.Boolean),
  select_from: Nullable(JoinExprSchema),
  array_join_op: Nullable(Schema.String),
  array_join_list: Nullable(exprs),
  window_exprs: Nullable(Schema.Record({ key: Schema.String, value: WindowExprSchema })),
  where: Nullable(expr),
  prewhere: Nullable(expr),
  having: Nullable(expr),
  qualify: Nullable(expr),
  group_by: Nullable(exprs),
  order_by: Nullable(Schema.Array(OrderExprSchema)),
  limit: Nullable(expr),
  limit_by: Schema.optional(Schema.Unknown),
  limit_with_ties: Nullable(Schema.Boolean),
  offset: Nullable(expr),
  ...located
})

const SelectSetQuerySchema: Schema.Schema<SelectSetQuery> = Schema.Struct({
  node: Schema.Literal("SelectSetQuery"),
  initial_select_query: selectLike,
  subsequent_select_queries: Schema.Array(
    Schema.Struct({
      node: Schema.Literal("SelectSetNode"),
      select_query: selectLike,
      set_operator: Schema.String
    })
  ),
  ...located
})

const COMPARE_OPS = [
  "==",
  "!=",
  "<",
  "<=",
  ">",
  ">=",
  "like",
  "not like",
  "ilike",
  "not ilike",
  "in",
  "not in",
  "global in",
  "global not in",
  "in cohort",
  "not in cohort",
  "=~",
  "!~",
  "=~*",
  "!~*"
] as const

const ExprSchema: Schema.Schema<Expr> = Schema.Union(
  Schema.Struct({
    node: Schema.Literal("Constant"),
    value: Schema.Union(Schema.String, Schema.Number, Schema.Boolean, Schema.Null),
    value_type: Schema.optional(Schema.String),
    ...located
  }),
  Schema.Struct({
    node: Schema.Literal("Field"),
    chain: Schema.Array(Schema.Union(Schema.String, Schema.Number)),
    ...located
  }),
  Schema.Struct({ node: Schema.Literal("Alias"), alias: Schema.String, expr, ...located }),
  Schema.Struct({ node: Schema.Literal("Placeholder"), expr, ...located }),
  Schema.Struct({
    node: Schema.Literal("Call"),
    name: Schema.String,
    args: exprs,
    params: Nullable(exprs),
    distinct: Nullable(Schema.Boolean),
    filter_expr: Nullable(expr),
    ...located
  }),
  Schema.Struct({
    node: Schema.Literal("ArithmeticOperation"),
    op: Schema.Literal("+", "-", "*", "/", "%"),
    left: expr,
    right: expr,
    ...located
  }),
  Schema.Struct({
    node: Schema.Literal("CompareOperation"),
    op: Schema.Literal(...COMPARE_OPS),
    left: expr,
    right: expr,
    ...located
  }),
  Schema.Struct({ node: Schema.Literal("And"), exprs, ...located }),
  Schema.Struct({ node: Schema.Literal("Or"), exprs, ...located }),
  Schema.Struct({ node: Schema.Literal("Not"), expr, ...located }),
  Schema.Struct({
    node: Schema.Literal("BetweenExpr"),
    expr,
    low: expr,
    high: expr,
    negated: Schema.optional(Schema.Boolean),
    ...located
  }),
  Schema.Struct({
    node: Schema.Literal("ArrayAccess"),
    array: expr,
    property: expr,
    nullish: Schema.optional(Schema.Boolean),
    ...located
  }),
  Schema.Struct({ node: Schema.Literal("Array"), exprs, ...located }),
  Schema.Struct({ node: Schema.Literal("Tuple"), exprs, ...located }),
  Schema.Struct({
    node: Schema.Literal("TupleAccess"),
    tuple: expr,
    index: Schema.Number,
    nullish: Schema.optional(Schema.Boolean),
    ...located
  }),
  Schema.Struct({ node: Schema.Literal("Lambda"), args: Schema.Array(Schema.String), expr, ...located }),
  Schema.Struct({ node: Schema.Literal("TypeCast"), expr, type_name: Schema.String, ...located }),
  OrderExprSchema,
  Schema.Struct({
    node: Schema.Literal("WindowFunction"),
    name: Schema.String,
    exprs: Nullable(exprs),
    args: Nullable(exprs),
    over_expr: Nullable(WindowExprSchema),
    over_identifier: Nullable(Schema.String),
    ...located
  }),
  SelectQuerySchema,
  SelectSetQuerySchema
)

/** A whole statement as the parser returns it. */
export const SelectSchema: Schema.Schema<SelectLike> = selectLike

/** The kind of every node the parser may emit, for the message when one is not understood. */
export const nodeKinds = (value: unknown): Set<string> => {
  const kinds = new Set<string>()
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk)
    else if (typeof v === "object" && v !== null) {
      const node = (v as { node?: unknown }).node
      if (typeof node === "string") kinds.add(node)
      Object.values(v).forEach(walk)
    }
  }
  walk(value)
  return kinds
}

/** One expression as the parser returns it. */
export const ExpressionSchema: Schema.Schema<Expr> = expr
