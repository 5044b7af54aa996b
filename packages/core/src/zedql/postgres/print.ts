import type { CompareOp } from "../ast.js"
import type { PathStep, RCall as Call, RExpr, RFrom, ROrder, RQuery, RSelect } from "../ir.js"
import type { Dialect } from "../printer.js"
import { SqlPrinter } from "../sqlPrinter.js"
import { isNumeric, isTemporal, type ZType } from "../types.js"
import { POSTGRES_FUNCTIONS } from "./functions.js"
import { pgType, quote } from "./sql.js"
import { DATETIME_TEXT, DATE_TEXT, EPOCH_TEXT, INTEGER_TEXT, NUMBER_TEXT, UUID_TEXT } from "../textShapes.js"

// ZedQL's Postgres dialect (PGlite and PostgreSQL servers). Values that may be NULL compare as
// ClickHouse compares them in ZedQL (a missing property is unequal to 'x', not unknown); every
// physical table is read through a subquery that keeps the caller's project only; literals are
// parameters, identifiers are quoted.

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`

/** Whether a value of the IR holds a lambda: an array function, a sub-select per row here. */
const hasLambda = (value: unknown): boolean =>
  typeof value === "object" &&
  value !== null &&
  ((value as { kind?: unknown }).kind === "lambda" || Object.values(value).some(hasLambda))

/**
 * A subquery whose columns run lambdas is kept apart (OFFSET 0): Postgres would otherwise pull it
 * up into the query around it and run each such column again wherever that query reads it.
 */
const fenced = (q: RQuery) =>
  q.kind === "select" && q.limit === null && q.offset === null && q.columns.some((c) => hasLambda(c.expr))

export class PgPrinter extends SqlPrinter {
  protected quote(name: string): string {
    return quote(name)
  }

  protected placeholder(index: number, type: string): string {
    return `$${index + 1}::${type}`
  }

  protected nullOf(type: string): string {
    return `NULL::${type}`
  }

  // --- Queries

  query(query: RQuery, top: boolean): string {
    if (query.kind === "set") {
      const branch = (q: RQuery) => `(${this.query(q, top)})`
      return (
        [branch(query.first), ...query.rest.map((r) => `${r.operator} ${branch(r.query)}`)].join(" ") +
        this.limits(query)
      )
    }
    return this.select(query, top)
  }

  protected output(e: RExpr): string {
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
  protected order(o: ROrder, q: RSelect, top: boolean): string {
    const sql = this.expr(o.expr)
    const position = top || q.distinct ? q.columns.findIndex((c) => this.expr(c.expr) === sql) : -1
    const target = q.distinct && position >= 0 ? String(position + 1) : sql
    return this.sortKey(target, o)
  }

  protected from(f: RFrom): string {
    const source = (() => {
      const s = f.source
      switch (s.kind) {
        case "table":
          return `(SELECT * FROM ${quote(s.table)} WHERE "project_id" = ${this.param(this.options.projectId, "int4")}) AS ${quote(s.alias)}`
        case "subquery":
          return `(${this.query(s.query, false)}${fenced(s.query) ? " OFFSET 0" : ""}) AS ${quote(s.alias)}`
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

  /**
   * A sort key as ClickHouse sorts: text by its bytes, whatever the database's collation, and NULLs
   * last in either direction. Bytes are compared by the text_pattern_ops operators rather than
   * through COLLATE "C": a collated key is another expression than the GROUP BY one it sorts by, and
   * Postgres then carries the columns under it (a whole properties column) through the aggregation.
   */
  protected sortKey(sql: string, o: ROrder): string {
    return `${sql} ${o.expr.type.kind === "String" ? `USING ${o.descending ? "~>~" : "~<~"}` : o.descending ? "DESC" : "ASC"} NULLS LAST`
  }

  // --- Expressions

  protected property(e: Extract<RExpr, { kind: "property" }>): string {
    return this.path(`${quote(e.source)}.${quote(e.column)}`, e.path, true)
  }

  protected array(e: Extract<RExpr, { kind: "array" }>): string {
    return e.exprs.length === 0 ? `ARRAY[]::${pgType(e.type)}` : `ARRAY[${e.exprs.map((x) => this.expr(x)).join(", ")}]`
  }

  protected tuple(e: Extract<RExpr, { kind: "tuple" }>): string {
    return `jsonb_build_array(${e.exprs.map((x) => this.expr(x)).join(", ")})`
  }

  protected tupleElement(e: Extract<RExpr, { kind: "tupleAccess" }>): string {
    return `((${this.expr(e.tuple)}) ->> ${e.index - 1})::${pgType(e.type)}`
  }

  protected constant(value: unknown, type: ZType): string {
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

  element(array: string, index: RExpr): string {
    const i = this.expr(index)
    return `(CASE WHEN ${i} < 0 THEN (${array})[cardinality(${array}) + 1 + ${i}] ELSE (${array})[${i}] END)`
  }

  protected call(e: Call, over?: string): string {
    const print = POSTGRES_FUNCTIONS[e.name]
    if (print === undefined) throw new Error(`no Postgres form for ${e.name}`)
    return print(e, this, over)
  }

  protected readonly notEqual = "<>"

  protected nullSafe(op: "==" | "!=", l: string, r: string): string {
    return `(${l} IS ${op === "==" ? "NOT " : ""}DISTINCT FROM ${r})`
  }

  protected arrayHas(array: string, value: string, negated: boolean): string {
    return negated ? `NOT (${value} = ANY(${array}))` : `${value} = ANY(${array})`
  }

  protected orElse(test: string, fallback: boolean): string {
    return `coalesce(${test}, ${fallback})`
  }

  protected matching(op: CompareOp, l: string, r: string): string {
    return `${l} ${COMPARISONS[op]!} ${r}`
  }

  arith(op: "+" | "-" | "*" | "/" | "%", left: RExpr, right: RExpr, type: ZType): string {
    const l = this.expr(left)
    const r = this.expr(right)
    if (op === "-" && isTemporal(left.type) && isTemporal(right.type)) {
      return left.type.kind === "Date" && right.type.kind === "Date"
        ? `(${l} - ${r})::int8`
        : `floor(extract(epoch from (${l} - ${r})))::int8`
    }
    if (op === "/") return `((${l})::float8 / nullif((${r})::float8, 0))`
    if (op === "%")
      return type.kind === "Int"
        ? `mod(${l}, nullif(${r}, 0))`
        : `mod((${l})::numeric, nullif((${r})::numeric, 0))::float8`
    return `(${l} ${op} ${r})`
  }

  // Bound as the value it converts to: Postgres then compares with a value.
  protected dateTimeConstant(text: string): string {
    return this.param(text, "timestamptz")
  }

  protected dateConstant(text: string): string {
    return this.param(text, "date")
  }

  protected convert(e: RExpr, to: ZType): string {
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
