import type { CompareOp } from "./ast.js"
import type { RCall as Call, RExpr } from "./ir.js"
import type { ZType } from "./types.js"

// ZedQL's operators in function form (`equals(a, b)`, `plus(a, b)`, `and(…)`): the same in every
// dialect, written through the dialect's own comparison and arithmetic.

export interface OperatorPrinter {
  readonly expr: (e: RExpr) => string
  compare(op: CompareOp, left: RExpr, right: RExpr): string
  arith(op: "+" | "-" | "*" | "/" | "%", left: RExpr, right: RExpr, type: ZType): string
}

export const operatorFunctions = <P extends OperatorPrinter>(): Readonly<
  Record<string, (call: Call, p: P) => string>
> => {
  const arg = (c: Call, p: P, i: number) => p.expr(c.args[i]!)
  const compare = (op: CompareOp) => (c: Call, p: P) => p.compare(op, c.args[0]!, c.args[1]!)
  const arith = (op: "+" | "-" | "*" | "/" | "%") => (c: Call, p: P) => p.arith(op, c.args[0]!, c.args[1]!, c.type)
  return {
    isNull: (c, p) => `(${arg(c, p, 0)} IS NULL)`,
    isNotNull: (c, p) => `(${arg(c, p, 0)} IS NOT NULL)`,
    // NULL stays NULL (ClickHouse's own would give the type's default).
    assumeNotNull: (c, p) => arg(c, p, 0),
    equals: compare("=="),
    notEquals: compare("!="),
    less: compare("<"),
    greater: compare(">"),
    lessOrEquals: compare("<="),
    greaterOrEquals: compare(">="),
    in: compare("in"),
    notIn: compare("not in"),
    and: (c, p) => `(${c.args.map((a) => p.expr(a)).join(" AND ")})`,
    or: (c, p) => `(${c.args.map((a) => p.expr(a)).join(" OR ")})`,
    not: (c, p) => `(NOT ${arg(c, p, 0)})`,
    plus: arith("+"),
    minus: arith("-"),
    multiply: arith("*"),
    divide: arith("/"),
    modulo: arith("%"),
    negate: (c, p) => `(-${arg(c, p, 0)})`
  }
}
