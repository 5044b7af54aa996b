import type { CompareOp } from "./ast.js"
import type { RCall as Call, RColumn, RExpr, RFrom, ROrder, RQuery, RSelect, RWindow } from "./ir.js"
import type { PrintOptions } from "./printer.js"
import { PLAIN_DATE, PLAIN_DATETIME } from "./textShapes.js"
import { T, type ZType } from "./types.js"

// What the SQL dialects print alike: a SELECT's clauses, windows, filtering conditions, bound
// parameters and the expressions whose SQL is the same in both. Each dialect writes the rest: its
// identifiers, placeholders, tables, values, comparisons, conversions and functions.

type Of<K extends RExpr["kind"]> = Extract<RExpr, { kind: K }>

export abstract class SqlPrinter {
  readonly params: Array<unknown> = []
  // Equal values share a placeholder, so that an expression repeated in GROUP BY and SELECT (with
  // its JSON keys as parameters) is the same expression to the database.
  private readonly placeholders = new Map<string, string>()
  /** Lambda parameters in scope, to the SQL their values are read by. */
  private readonly lambdas = new Map<string, string>()
  /** How many lambda parameters enclose what is being printed, shadowed ones included. */
  private lambdaDepth = 0
  constructor(protected readonly options: PrintOptions) {}

  get timezone(): string {
    return this.options.timezone
  }

  /** An identifier, quoted so any name is safe. */
  protected abstract quote(name: string): string
  /** The placeholder of the parameter at `index`, of a dialect's type. */
  protected abstract placeholder(index: number, type: string): string
  /** NULL of a dialect's type. */
  protected abstract nullOf(type: string): string

  /** A bound parameter of a dialect's type. */
  param = (value: unknown, type: string): string => {
    if (value === null || value === undefined) return this.nullOf(type)
    const key = `${type}:${typeof value}:${JSON.stringify(value)}`
    const known = this.placeholders.get(key)
    if (known !== undefined) return known
    const placeholder = this.placeholder(this.params.length, type)
    this.params.push(value)
    this.placeholders.set(key, placeholder)
    return placeholder
  }

  /**
   * A lambda's body with its parameters bound to `zq_x<n>`, numbered past the parameters in scope so
   * that a nested lambda can read its enclosing ones', and the same wherever the expression is
   * printed (GROUP BY and SELECT). `n` is the first number, for names of the dialect's own.
   */
  bindLambda(lambda: RExpr): { readonly names: ReadonlyArray<string>; readonly body: string; readonly n: number } {
    if (lambda.kind !== "lambda") throw new Error("expected a lambda")
    const n = this.lambdaDepth
    const names = lambda.args.map((_, i) => `zq_x${n + i}`)
    const previous = lambda.args.map((arg) => this.lambdas.get(arg))
    lambda.args.forEach((arg, i) => this.lambdas.set(arg, names[i]!))
    this.lambdaDepth += names.length
    try {
      return { names, body: this.expr(lambda.expr), n }
    } finally {
      this.lambdaDepth = n
      lambda.args.forEach((arg, i) =>
        previous[i] === undefined ? this.lambdas.delete(arg) : this.lambdas.set(arg, previous[i]!)
      )
    }
  }

  // --- Queries

  protected limits(query: { readonly limit: RExpr | null; readonly offset: RExpr | null }): string {
    return (
      (query.limit ? ` LIMIT ${this.expr(query.limit)}` : "") +
      (query.offset ? ` OFFSET ${this.expr(query.offset)}` : "")
    )
  }

  /** A SELECT; `top` for the statement's own, whose columns are shaped for the API. */
  protected select(q: RSelect, top: boolean): string {
    const quote = (name: string) => this.quote(name)
    const ctes =
      q.ctes.length === 0
        ? ""
        : `WITH ${q.ctes.map((c) => `${quote(c.name)} AS (${this.query(c.query, false)})`).join(", ")} `
    // FROM first: it brings the names (of unnested elements) the columns may read.
    const from = q.from.length === 0 ? "" : ` FROM ${q.from.map((f, i) => this.from(f, i)).join(" ")}`
    const columns = q.columns.length === 0 ? "1" : q.columns.map((c, i) => this.column(c, i, top)).join(", ")
    const where = q.where ? ` WHERE ${this.condition(q.where)}` : ""
    const groupBy = q.groupBy.length === 0 ? "" : ` GROUP BY ${q.groupBy.map((e) => this.expr(e)).join(", ")}`
    const having = q.having ? ` HAVING ${this.condition(q.having)}` : ""
    const windows =
      q.windows.length === 0
        ? ""
        : ` WINDOW ${q.windows.map((w) => `${quote(w.name)} AS (${this.window(w.window)})`).join(", ")}`
    const orderBy = q.orderBy.length === 0 ? "" : ` ORDER BY ${q.orderBy.map((o) => this.order(o, q, top)).join(", ")}`
    return `${ctes}SELECT ${q.distinct ? "DISTINCT " : ""}${columns}${from}${where}${groupBy}${having}${windows}${orderBy}${this.limits(q)}`
  }

  abstract query(query: RQuery, top: boolean): string
  protected abstract from(f: RFrom, index: number): string
  protected abstract order(o: ROrder, q: RSelect, top: boolean): string
  /** A top-level column's value as the API shows it (dates as ISO text in the project's zone…). */
  protected abstract output(e: RExpr): string
  /** A sort key, NULLs last in either direction. */
  protected abstract sortKey(sql: string, o: ROrder): string

  /** Top-level columns are shaped for the API; inner ones keep their names. */
  private column(c: RColumn, index: number, top: boolean): string {
    if (!top) return `${this.expr(c.expr)} AS ${this.quote(c.name)}`
    return `${this.output(c.expr)} AS ${this.quote(`c${index}`)}`
  }

  /** A window's definition; `frame` replaces its own. */
  window(w: RWindow | string, frame?: string): string {
    if (typeof w === "string") return this.quote(w)
    const parts = [
      w.partitionBy.length > 0 ? `PARTITION BY ${w.partitionBy.map((e) => this.expr(e)).join(", ")}` : "",
      w.orderBy.length > 0 ? `ORDER BY ${w.orderBy.map((o) => this.sortKey(this.expr(o.expr), o)).join(", ")}` : "",
      frame ?? w.frame ?? ""
    ]
    return parts.filter((p) => p !== "").join(" ")
  }

  /**
   * A condition that filters rows (WHERE, HAVING, JOIN … ON), where NULL rejects a row as false
   * does. Its conjuncts are written without what makes NULL false elsewhere, so that the database
   * sees conditions that reject NULLs: it can then hash-join on them, make an outer join inner, and
   * test them in the scan of the table they are about.
   */
  protected condition(e: RExpr): string {
    if (e.kind === "and") return `(${e.exprs.map((x) => this.condition(x)).join(" AND ")})`
    return e.kind === "compare" ? this.compare(e.op, e.left, e.right, true) : this.expr(e)
  }

  // --- Expressions

  expr = (e: RExpr): string => {
    switch (e.kind) {
      case "const":
        return this.constant(e.value, e.type)
      case "column":
        return this.columnRef(e)
      case "property":
        return this.property(e)
      case "call":
        return this.call(e)
      case "compare":
        return this.compare(e.op, e.left, e.right)
      case "and":
      case "or":
        return `(${e.exprs.map((x) => this.expr(x)).join(e.kind === "and" ? " AND " : " OR ")})`
      case "not":
        return `(NOT ${this.expr(e.expr)})`
      case "arith":
        return this.arith(e.op, e.left, e.right, e.type)
      case "between":
        return `(${this.expr(e.expr)} ${e.negated ? "NOT " : ""}BETWEEN ${this.expr(e.low)} AND ${this.expr(e.high)})`
      case "array":
        return this.array(e)
      case "tuple":
        return this.tuple(e)
      case "arrayAccess":
        return this.element(this.expr(e.array), e.index)
      case "tupleAccess":
        return this.tupleElement(e)
      case "lambda":
        return this.expr(e.expr)
      case "lambdaArg": {
        const bound = this.lambdas.get(e.name)
        if (bound === undefined) throw new Error(`lambda parameter ${e.name} is not bound`)
        return bound
      }
      case "cast":
        return this.cast(e.expr, e.type)
      case "subquery":
        return `(${this.query(e.query, false)})`
      case "window":
        return this.windowCall(e)
    }
  }

  protected columnRef(e: Of<"column">): string {
    return `${this.quote(e.source)}.${this.quote(e.column)}`
  }

  /** A window function: the call with its OVER clause. */
  protected windowCall(
    e: Of<"window">,
    over = ` OVER ${typeof e.over === "string" ? this.quote(e.over) : `(${this.window(e.over)})`}`
  ): string {
    return this.call(
      { kind: "call", name: e.name, args: e.args, params: [], distinct: false, filter: null, type: e.type },
      over
    )
  }

  /** A function call; `over` is its OVER clause when it is used as a window function. */
  protected abstract call(e: Call, over?: string): string
  protected abstract constant(value: unknown, type: ZType): string
  protected abstract property(e: Of<"property">): string
  protected abstract array(e: Of<"array">): string
  protected abstract tuple(e: Of<"tuple">): string
  protected abstract tupleElement(e: Of<"tupleAccess">): string
  /** The element of an array at a ZedQL index (from 1; negative from the end); NULL past the ends. */
  abstract element(array: string, index: RExpr): string
  /**
   * A comparison as ZedQL compares: NULL equals NULL and is unequal to any value, rather than
   * unknown. `filter`: the comparison decides whether a row is kept, so NULL may stand for false.
   */
  compare(op: CompareOp, left: RExpr, right: RExpr, filter = false): string {
    const either = left.type.nullable || right.type.nullable
    const both = left.type.nullable && right.type.nullable
    const isNull = (e: RExpr) => e.kind === "const" && e.value === null
    // A UUID compared with text compares as text.
    const textual = (e: RExpr, other: RExpr) =>
      e.type.kind === "UUID" && other.type.kind === "String" && other.kind !== "cast"
        ? this.cast(e, T.String)
        : this.expr(e)
    const l = textual(left, right)
    const r = right.kind === "tuple" ? "" : textual(right, left)
    switch (op) {
      case "==":
      case "!=": {
        const not = op === "!=" ? " NOT" : ""
        if (isNull(right)) return `(${l} IS${not} NULL)`
        if (isNull(left)) return `(${r} IS${not} NULL)`
        // Against a value that is never NULL, NULL-safe equality is equality, but for a NULL result.
        if (!either || (op === "==" && filter && !both)) return `(${l} ${op === "==" ? "=" : this.notEqual} ${r})`
        return this.nullSafe(op, l, r, both)
      }
      case "in":
      case "not in":
      case "global in":
      case "global not in": {
        const negated = op.includes("not")
        let test: string
        if (right.kind === "tuple") {
          if (right.exprs.length === 0) return negated ? "true" : "false"
          test = `${l} ${negated ? "NOT IN" : "IN"} (${right.exprs.map((x) => this.expr(x)).join(", ")})`
        } else if (right.kind === "subquery") {
          test = `${l} ${negated ? "NOT IN" : "IN"} ${r}`
        } else {
          test = this.arrayHas(r, l, negated)
        }
        return (left.type.nullable || right.kind === "subquery") && !(filter && !negated)
          ? this.orElse(test, negated)
          : `(${test})`
      }
      default: {
        const negative = op === "not like" || op === "not ilike" || op === "!~" || op === "!~*"
        const test = this.matching(op, l, r)
        return either && !(filter && !negative) ? this.orElse(test, negative) : `(${test})`
      }
    }
  }

  /** The dialect's inequality operator. */
  protected abstract readonly notEqual: string
  /** `=` or `!=` of values that may be NULL, NULL-safe (`both`: both may be). */
  protected abstract nullSafe(op: "==" | "!=", l: string, r: string, both: boolean): string
  /** Whether an array holds a value (NULL for a NULL value). */
  protected abstract arrayHas(array: string, value: string, negated: boolean): string
  /** A condition, `fallback` where it is NULL. */
  protected abstract orElse(test: string, fallback: boolean): string
  /** LIKE, ILIKE, the regular expression matches and the orderings. */
  protected abstract matching(op: CompareOp, l: string, r: string): string
  abstract arith(op: "+" | "-" | "*" | "/" | "%", left: RExpr, right: RExpr, type: ZType): string
  /** The expression converted to a type, as ZedQL's toX functions do (NULL when it does not convert). */
  cast = (e: RExpr, to: ZType): string => {
    // A date or date-time written as text is converted once, not for every row.
    if (e.kind === "const" && typeof e.value === "string") {
      if (to.kind === "DateTime" && PLAIN_DATETIME.test(e.value)) return this.dateTimeConstant(e.value)
      if (to.kind === "Date" && PLAIN_DATE.test(e.value)) return this.dateConstant(e.value.slice(0, 10))
    }
    return this.convert(e, to)
  }

  /** A date-time written as text, as the project's zone reads it. */
  protected abstract dateTimeConstant(text: string): string
  /** A date written as text (`YYYY-MM-DD`). */
  protected abstract dateConstant(text: string): string
  protected abstract convert(e: RExpr, to: ZType): string
}
