import type { CompareOp } from "../ast.js"
import type { PathStep, RColumn, RExpr, RFrom, ROrder, RQuery, RSelect, RWindow } from "../ir.js"
import type { Dialect, PrintOptions } from "../printer.js"
import { isNumeric, isTemporal, type ZType } from "../types.js"
import { POSTGRES_FUNCTIONS } from "./functions.js"
import { pgType, quote } from "./sql.js"
import { DATETIME_TEXT, DATE_TEXT, EPOCH_TEXT, INTEGER_TEXT, NUMBER_TEXT, PLAIN_DATE, PLAIN_DATETIME, UUID_TEXT } from "../textShapes.js"

// ZedQL's Postgres dialect (PGlite and PostgreSQL servers). Values that may be NULL compare as
// ClickHouse compares them in ZedQL (a missing property is unequal to 'x', not unknown); every
// physical table is read through a subquery that keeps the caller's project only; literals are
// parameters, identifiers are quoted.

export interface Printer {
  readonly expr: (e: RExpr) => string
  /** A bound parameter with an explicit type, so Postgres never guesses. */
  readonly param: (value: unknown, pgType: string) => string
  /** The jsonb value at an expression: a JSON column, a path into one, or JSON text. */
  readonly json: (e: RExpr) => string
  /** The expression converted to a type, as ZedQL's toX functions do (NULL when it does not convert). */
  readonly cast: (e: RExpr, to: ZType) => string
  readonly timezone: string
}


const literal = (text: string) => `'${text.replace(/'/g, "''")}'`

export class PgPrinter implements Printer {
  readonly params: Array<unknown> = []
  private readonly lambdas = new Map<string, string>()
  // Equal values share a placeholder, so that an expression repeated in GROUP BY and SELECT (with
  // its JSON keys as parameters) is the same expression to Postgres.
  private readonly placeholders = new Map<string, string>()
  constructor(private readonly options: PrintOptions) {}

  get timezone() {
    return this.options.timezone
  }

  param = (value: unknown, type: string): string => {
    if (value === null || value === undefined) return `NULL::${type}`
    const key = `${type}:${typeof value}:${JSON.stringify(value)}`
    const known = this.placeholders.get(key)
    if (known !== undefined) return known
    this.params.push(value)
    const placeholder = `$${this.params.length}::${type}`
    this.placeholders.set(key, placeholder)
    return placeholder
  }

  // --- Queries

  query(query: RQuery, top: boolean): string {
    if (query.kind === "set") {
      const branch = (q: RQuery) => `(${this.query(q, top)})`
      return [branch(query.first), ...query.rest.map((r) => `${r.operator} ${branch(r.query)}`)].join(" ") + this.limits(query)
    }
    return this.select(query, top)
  }

  private limits(query: { readonly limit: RExpr | null; readonly offset: RExpr | null }): string {
    return (query.limit ? ` LIMIT ${this.expr(query.limit)}` : "") + (query.offset ? ` OFFSET ${this.expr(query.offset)}` : "")
  }

  private select(q: RSelect, top: boolean): string {
    const ctes = q.ctes.length === 0 ? "" : `WITH ${q.ctes.map((c) => `${quote(c.name)} AS (${this.query(c.query, false)})`).join(", ")} `
    const columns = q.columns.length === 0 ? "1" : q.columns.map((c, i) => this.column(c, i, top)).join(", ")
    const from = q.from.length === 0 ? "" : ` FROM ${q.from.map((f) => this.from(f)).join(" ")}`
    const where = q.where ? ` WHERE ${this.condition(q.where)}` : ""
    const groupBy = q.groupBy.length === 0 ? "" : ` GROUP BY ${q.groupBy.map((e) => this.expr(e)).join(", ")}`
    const having = q.having ? ` HAVING ${this.condition(q.having)}` : ""
    const windows = q.windows.length === 0 ? "" : ` WINDOW ${q.windows.map((w) => `${quote(w.name)} AS (${this.window(w.window)})`).join(", ")}`
    const orderBy = q.orderBy.length === 0 ? "" : ` ORDER BY ${q.orderBy.map((o) => this.order(o, q, top)).join(", ")}`
    return `${ctes}SELECT ${q.distinct ? "DISTINCT " : ""}${columns}${from}${where}${groupBy}${having}${windows}${orderBy}${this.limits(q)}`
  }

  /** Top-level columns are shaped for the API (dates as ISO text in the project's zone); inner ones keep their names. */
  private column(c: RColumn, index: number, top: boolean): string {
    if (!top) return `${this.expr(c.expr)} AS ${quote(c.name)}`
    return `${this.output(c.expr)} AS "c${index}"`
  }

  private output(e: RExpr): string {
    const sql = this.expr(e)
    switch (e.type.kind) {
      case "DateTime":
        return `to_char(${sql}, 'YYYY-MM-DD"T"HH24:MI:SS.USTZH:TZM')`
      case "Date":
        return `to_char(${sql}, 'YYYY-MM-DD')`
      case "JSON":
      case "UUID":
        return `(${sql})::text`
      case "Interval":
        return `extract(epoch from ${sql})`
      default:
        return sql
    }
  }

  /** With DISTINCT, Postgres orders only by output columns: an ORDER BY on one is written by position. */
  private order(o: ROrder, q: RSelect, top: boolean): string {
    const sql = this.expr(o.expr)
    const position = top || q.distinct ? q.columns.findIndex((c) => this.expr(c.expr) === sql) : -1
    const target = q.distinct && position >= 0 ? String(position + 1) : sql
    return sortKey(target, o)
  }

  private from(f: RFrom): string {
    const source = (() => {
      const s = f.source
      switch (s.kind) {
        case "table":
          return `(SELECT * FROM ${quote(s.table)} WHERE "project_id" = ${this.param(this.options.projectId, "int4")}) AS ${quote(s.alias)}`
        case "subquery":
          return `(${this.query(s.query, false)}) AS ${quote(s.alias)}`
        case "cte":
          return `${quote(s.name)} AS ${quote(s.alias)}`
        case "unnest":
          return `unnest(${this.expr(s.expr)}) AS ${quote(s.alias)}(${quote(s.column)})`
      }
    })()
    if (f.join === "FROM") return source
    if (f.join === "CROSS") return `CROSS JOIN ${f.source.kind === "unnest" ? "LATERAL " : ""}${source}`
    const lateral = f.source.kind === "unnest" ? "LATERAL " : ""
    return `${f.join} JOIN ${lateral}${source} ON ${f.on ? this.condition(f.on) : "true"}`
  }

  private window(w: RWindow | string): string {
    if (typeof w === "string") return quote(w)
    const parts = [
      w.partitionBy.length > 0 ? `PARTITION BY ${w.partitionBy.map((e) => this.expr(e)).join(", ")}` : "",
      w.orderBy.length > 0 ? `ORDER BY ${w.orderBy.map((o) => sortKey(this.expr(o.expr), o)).join(", ")}` : "",
      w.frame ?? ""
    ]
    return parts.filter((p) => p !== "").join(" ")
  }

  /**
   * A condition that filters rows (WHERE, HAVING, JOIN … ON), where NULL rejects a row as false
   * (ClickHouse's 0) does. Its conjuncts are written without what makes NULL false elsewhere, so that
   * Postgres sees conditions that reject NULLs: it can then hash-join on them, make an outer join
   * inner, and test them in the scan of the table they are about.
   */
  private condition(e: RExpr): string {
    if (e.kind === "and") return `(${e.exprs.map((x) => this.condition(x)).join(" AND ")})`
    return e.kind === "compare" ? this.compare(e.op, e.left, e.right, true) : this.expr(e)
  }

  // --- Expressions

  expr = (e: RExpr): string => {
    switch (e.kind) {
      case "const":
        return this.constant(e.value, e.type)
      case "column":
        return `${quote(e.source)}.${quote(e.column)}`
      case "property":
        return this.path(`${quote(e.source)}.${quote(e.column)}`, e.path, true)
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
        return e.exprs.length === 0 ? `ARRAY[]::${pgType(e.type)}` : `ARRAY[${e.exprs.map((x) => this.expr(x)).join(", ")}]`
      case "tuple":
        return `jsonb_build_array(${e.exprs.map((x) => this.expr(x)).join(", ")})`
      case "arrayAccess":
        return this.element(this.expr(e.array), e.index)
      case "tupleAccess":
        return `((${this.expr(e.tuple)}) ->> ${e.index - 1})::${pgType(e.type)}`
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
      case "window": {
        const fn = POSTGRES_FUNCTIONS[e.name]
        if (fn === undefined) throw new Error(`no Postgres form for ${e.name}`)
        // `OVER w` names a window; `OVER (w)` would copy it, which Postgres refuses for a window with a frame.
        const over = ` OVER ${typeof e.over === "string" ? quote(e.over) : `(${this.window(e.over)})`}`
        return fn({ kind: "call", name: e.name, args: e.args, params: [], distinct: false, filter: null, type: e.type }, this, over)
      }
    }
  }

  private constant(value: unknown, type: ZType): string {
    if (value === null) return "NULL"
    if (typeof value === "boolean") return value ? "true" : "false"
    if (typeof value === "number") {
      if (!Number.isFinite(value)) return `${literal(String(value))}::float8`
      return this.param(value, Number.isInteger(value) && type.kind === "Int" ? "int8" : "float8")
    }
    return this.param(value, type.kind === "Float" ? "float8" : "text")
  }

  /** `col -> 'a' -> 0 ->> 'b'`: steps into JSON, the last one as text unless the JSON itself is wanted. */
  private path(base: string, path: ReadonlyArray<PathStep>, asText: boolean): string {
    if (path.length === 0) return asText ? `(${base})::text` : base
    const steps = path.map((step) => this.step(step))
    const last = steps.length - 1
    return `(${base}${steps.map((s, i) => ` ${asText && i === last ? "->>" : "->"} ${s}`).join("")})`
  }

  private step(step: PathStep): string {
    if (typeof step === "string") return this.param(step, "text")
    // ZedQL counts array elements from 1; negative ones from the end, as Postgres does.
    if (typeof step === "number") return this.param(step > 0 ? step - 1 : step, "int4")
    return isNumeric(step.type) ? `((${this.expr(step)})::int4 - 1)` : `(${this.expr(step)})::text`
  }

  json = (e: RExpr): string => {
    if (e.kind === "property") return this.path(`${quote(e.source)}.${quote(e.column)}`, e.path, false)
    if (e.kind === "column" && e.type.kind === "JSON") return this.expr(e)
    return `(${this.expr(e)})::jsonb`
  }

  private element(array: string, index: RExpr): string {
    const i = this.expr(index)
    return `(CASE WHEN ${i} < 0 THEN (${array})[cardinality(${array}) + 1 + ${i}] ELSE (${array})[${i}] END)`
  }

  /** Binds lambda parameters to the columns of an unnest, for array functions. */
  bindLambda(lambda: RExpr, columns: ReadonlyArray<string>): string {
    if (lambda.kind !== "lambda") throw new Error("expected a lambda")
    lambda.args.forEach((arg, i) => this.lambdas.set(arg, columns[i]!))
    try {
      return this.expr(lambda.expr)
    } finally {
      lambda.args.forEach((arg) => this.lambdas.delete(arg))
    }
  }

  private call(e: Extract<RExpr, { kind: "call" }>): string {
    const print = POSTGRES_FUNCTIONS[e.name]
    if (print === undefined) throw new Error(`no Postgres form for ${e.name}`)
    return print(e, this)
  }

  /** `filter`: the comparison decides whether a row is kept, so NULL may stand for false. */
  compare(op: CompareOp, left: RExpr, right: RExpr, filter = false): string {
    const either = left.type.nullable || right.type.nullable
    // Against a value that is never NULL, NULL-safe equality is equality, but for a NULL result.
    const plainEquality = filter && !(left.type.nullable && right.type.nullable)
    const isNull = (e: RExpr) => e.kind === "const" && e.value === null
    // A UUID compared with text compares as text.
    const textual = (e: RExpr, other: RExpr) => (e.type.kind === "UUID" && other.type.kind === "String" && other.kind !== "cast" ? `(${this.expr(e)})::text` : this.expr(e))
    const l = textual(left, right)
    const r = right.kind === "tuple" ? "" : textual(right, left)
    switch (op) {
      case "==":
        if (isNull(right)) return `(${l} IS NULL)`
        if (isNull(left)) return `(${r} IS NULL)`
        return either && !plainEquality ? `(${l} IS NOT DISTINCT FROM ${r})` : `(${l} = ${r})`
      case "!=":
        if (isNull(right)) return `(${l} IS NOT NULL)`
        if (isNull(left)) return `(${r} IS NOT NULL)`
        return either ? `(${l} IS DISTINCT FROM ${r})` : `(${l} <> ${r})`
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
          test = negated ? `NOT (${l} = ANY(${r}))` : `${l} = ANY(${r})`
        }
        return (left.type.nullable || right.kind === "subquery") && !(filter && !negated) ? `coalesce(${test}, ${negated})` : `(${test})`
      }
      default: {
        const sqlOp = COMPARISONS[op]!
        const negative = op === "not like" || op === "not ilike" || op === "!~" || op === "!~*"
        const test = `${l} ${sqlOp} ${r}`
        return either && !(filter && !negative) ? `coalesce(${test}, ${negative})` : `(${test})`
      }
    }
  }

  arith(op: "+" | "-" | "*" | "/" | "%", left: RExpr, right: RExpr, type: ZType): string {
    const l = this.expr(left)
    const r = this.expr(right)
    if (op === "-" && isTemporal(left.type) && isTemporal(right.type)) {
      return left.type.kind === "Date" && right.type.kind === "Date" ? `(${l} - ${r})::int8` : `floor(extract(epoch from (${l} - ${r})))::int8`
    }
    if (op === "/") return `((${l})::float8 / nullif((${r})::float8, 0))`
    if (op === "%") return type.kind === "Int" ? `mod(${l}, nullif(${r}, 0))` : `mod((${l})::numeric, nullif((${r})::numeric, 0))::float8`
    return `(${l} ${op} ${r})`
  }

  /**
   * A date or date-time written as text, bound as what it converts to (as the session's zone reads
   * it): Postgres then compares with a value, where a conversion it would repeat for every row.
   */
  private constantTime(e: RExpr, to: ZType): string | undefined {
    if (e.kind !== "const" || typeof e.value !== "string") return undefined
    if (to.kind === "DateTime" && PLAIN_DATETIME.test(e.value)) return this.param(e.value, "timestamptz")
    if (to.kind === "Date" && PLAIN_DATE.test(e.value)) return this.param(e.value.slice(0, 10), "date")
    return undefined
  }

  cast = (e: RExpr, to: ZType): string => {
    const time = this.constantTime(e, to)
    if (time !== undefined) return time
    const sql = this.expr(e)
    const from = e.type.kind
    switch (to.kind) {
      case "Float":
        if (isNumeric(e.type)) return `(${sql})::float8`
        if (from === "Bool") return `(${sql})::int4::float8`
        return `(CASE WHEN ${sql} ~ ${literal(NUMBER_TEXT)} THEN (${sql})::float8 END)`
      case "Int":
        if (from === "Int") return sql
        if (from === "Float") return `trunc(${sql})::int8`
        if (from === "Bool") return `(${sql})::int8`
        if (isTemporal(e.type)) return `floor(extract(epoch from ${sql}))::int8`
        return `(CASE WHEN ${sql} ~ ${literal(INTEGER_TEXT)} THEN (${sql})::numeric::int8 END)`
      case "Bool":
        if (from === "Bool") return sql
        if (isNumeric(e.type)) return `((${sql}) <> 0)`
        return `(CASE lower(trim(${sql})) WHEN 'true' THEN true WHEN 'false' THEN false WHEN '1' THEN true WHEN '0' THEN false END)`
      case "DateTime":
        if (from === "DateTime") return sql
        if (from === "Date") return `(${sql})::timestamptz`
        if (isNumeric(e.type)) return `to_timestamp(${sql})`
        return `(CASE WHEN ${sql} ~ ${literal(DATETIME_TEXT)} THEN (${sql})::timestamptz WHEN ${sql} ~ ${literal(EPOCH_TEXT)} THEN to_timestamp((${sql})::float8) END)`
      case "Date":
        if (from === "Date") return sql
        if (from === "DateTime") return `(${sql})::date`
        return `(CASE WHEN ${sql} ~ ${literal(DATE_TEXT)} THEN (substring(${sql} from 1 for 10))::date END)`
      case "UUID":
        if (from === "UUID") return sql
        return `(CASE WHEN ${sql} ~ ${literal(UUID_TEXT)} THEN (${sql})::uuid END)`
      case "String":
        if (from === "String") return sql
        if (from === "DateTime") return `to_char(${sql}, 'YYYY-MM-DD HH24:MI:SS')`
        if (from === "Date") return `to_char(${sql}, 'YYYY-MM-DD')`
        return `(${sql})::text`
      default:
        return sql
    }
  }
}

const COMPARISONS: Partial<Record<CompareOp, string>> = {
  "<": "<",
  "<=": "<=",
  ">": ">",
  ">=": ">=",
  like: "LIKE",
  "not like": "NOT LIKE",
  ilike: "ILIKE",
  "not ilike": "NOT ILIKE",
  "=~": "~",
  "!~": "!~",
  "=~*": "~*",
  "!~*": "!~*"
}

export const postgres: Dialect = {
  name: "postgres",
  functions: new Set(Object.keys(POSTGRES_FUNCTIONS)),
  print: (query, options) => {
    const printer = new PgPrinter(options)
    const sql = printer.query(query, true)
    return { sql, params: printer.params }
  }
}

/**
 * A sort key as ClickHouse sorts: text by its bytes, whatever the database's collation, and NULLs last
 * in either direction. Bytes are compared by the text_pattern_ops operators rather than through
 * COLLATE "C": a collated key is another expression than the GROUP BY one it sorts by, and Postgres
 * then carries the columns under it (a whole properties column) through the aggregation.
 */
const sortKey = (sql: string, o: ROrder): string =>
  `${sql} ${o.expr.type.kind === "String" ? `USING ${o.descending ? "~>~" : "~<~"}` : o.descending ? "DESC" : "ASC"} NULLS LAST`
