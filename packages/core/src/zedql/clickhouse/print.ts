import type { CompareOp } from "../ast.js"
import type { PathStep, RCall as Call, RExpr, RFrom, ROrder, RQuery, RSelect, RWindow } from "../ir.js"
import type { Dialect } from "../printer.js"
import { SqlPrinter } from "../sqlPrinter.js"
import { clickhouseName, isNumeric, isTemporal, T, type ZType } from "../types.js"
import { CLICKHOUSE_FUNCTIONS } from "./functions.js"
import { literal, quote } from "./sql.js"
import { clickhouseTable, DATETIME } from "./tables.js"
import { DATETIME_TEXT, DATE_TEXT, EPOCH_TEXT, INTEGER_TEXT, NUMBER_TEXT, UUID_TEXT } from "../textShapes.js"

// ZedQL's ClickHouse dialect, with the results the Postgres dialect gives for the same IR: values
// that may be NULL compare as ZedQL says (a missing property is unequal to 'x'), outer joins give
// NULLs, division by zero and out-of-range elements give NULL. Every physical table is read
// through a subquery that keeps the caller's project (the latest version of each row for versioned
// tables, never FINAL), with date-times in the project's zone; literals are `{pN:Type}` parameters.

/** Settings the printed SQL relies on: the executor runs every statement with them. */
export const CLICKHOUSE_QUERY_SETTINGS: Readonly<Record<string, string | number | boolean>> = {
  // Outer joins fill missing rows with NULL, as SQL does, rather than with default values.
  join_use_nulls: 1,
  // `x IN (…)` with a NULL on either side is NULL (then settled as Postgres does), not a match.
  transform_null_in: 0,
  // Nested 64-bit integers (in arrays and tuples) as JSON numbers, as the Postgres driver gives them.
  output_format_json_quote_64bit_integers: 0,
  // ORDER BY 1 names the first output column.
  enable_positional_arguments: 1
}

/** Seconds in one of each interval unit, as Postgres counts them (a month is 30 days). */
const INTERVAL_SECONDS: Readonly<Record<string, number>> = {
  Second: 1,
  Minute: 60,
  Hour: 3600,
  Day: 86400,
  Week: 604800,
  Month: 2592000,
  Quarter: 7776000,
  Year: 31557600
}

export class ChPrinter extends SqlPrinter {
  /** ARRAY JOIN sources in scope: their alias, to the name their elements are read by. */
  private unnests = new Map<string, string>()
  /** Named windows in scope, for functions that need their own frame. */
  private windows = new Map<string, RWindow>()

  protected quote(name: string): string {
    return quote(name)
  }

  protected placeholder(index: number, type: string): string {
    return `{p${index}:${type}}`
  }

  protected nullOf(): string {
    return "NULL"
  }

  /** The project's time zone, as a parameter (a constant to ClickHouse). */
  get tz(): string {
    return this.param(this.options.timezone, "String")
  }

  // --- Queries

  query(query: RQuery, top: boolean): string {
    if (query.kind === "set") {
      const OPERATORS = {
        "UNION ALL": "UNION ALL",
        "UNION DISTINCT": "UNION DISTINCT",
        INTERSECT: "INTERSECT DISTINCT",
        EXCEPT: "EXCEPT DISTINCT"
      }
      const branch = (q: RQuery) => `(${this.query(q, top)})`
      const set = [branch(query.first), ...query.rest.map((r) => `${OPERATORS[r.operator]} ${branch(r.query)}`)].join(
        " "
      )
      // A LIMIT after a set would bind to its last branch.
      return query.limit || query.offset ? `SELECT * FROM (${set})${this.limits(query)}` : set
    }
    return this.select(query, top)
  }

  /** A SELECT sees the unnested arrays and named windows of its own and the enclosing scopes. */
  protected override select(q: RSelect, top: boolean): string {
    const outer = { unnests: this.unnests, windows: this.windows }
    this.unnests = new Map(outer.unnests)
    this.windows = new Map([...outer.windows, ...q.windows.map((w) => [w.name, w.window] as const)])
    try {
      return super.select(q, top)
    } finally {
      this.unnests = outer.unnests
      this.windows = outer.windows
    }
  }

  protected output(e: RExpr): string {
    const sql = this.expr(e)
    switch (e.type.kind) {
      case "DateTime":
        // `+HHMM` as Postgres writes it: `+HH:MM`.
        return `replaceRegexpOne(formatDateTime(toDateTime64(${sql}, 6, ${this.tz}), '%Y-%m-%dT%H:%i:%S.%f%z'), '(\\\\d\\\\d)$', ':\\\\1')`
      case "Date":
        return `formatDateTime(${sql}, '%Y-%m-%d')`
      case "JSON":
      case "UUID":
        return `toString(${sql})`
      case "Bool":
        return `toBool(${sql})`
      case "Interval":
        return this.intervalSeconds(e, sql)
      case "Array":
        return elementsAsPostgresGives(e.type.of.kind, sql)
      default:
        return sql
    }
  }

  private intervalSeconds(e: RExpr, sql: string): string {
    const unit = e.kind === "call" ? /^toInterval(\w+)$/.exec(e.name)?.[1] : undefined
    const seconds = unit === undefined ? undefined : INTERVAL_SECONDS[unit]
    if (seconds !== undefined && e.kind === "call") return `(${this.expr(e.args[0]!)} * ${seconds})`
    return `toUnixTimestamp(toDateTime64(0, 6, 'UTC') + ${sql})`
  }

  /** With DISTINCT, ClickHouse orders only by output columns: an ORDER BY on one is written by position. */
  protected order(o: ROrder, q: RSelect): string {
    const sql = this.expr(o.expr)
    const position = q.distinct ? q.columns.findIndex((c) => this.expr(c.expr) === sql) : -1
    return position >= 0 ? `${position + 1} ${direction(o)}` : this.sortKey(sql, o)
  }

  /** UUIDs are sorted by their text, which is their bytes' order as Postgres sorts them. */
  protected sortKey(sql: string, o: ROrder): string {
    return `${o.expr.type.kind === "UUID" ? `toString(${sql})` : sql} ${direction(o)}`
  }

  protected from(f: RFrom, index: number): string {
    const s = f.source
    if (s.kind === "unnest") {
      // Named after its alias, so that the same query prints the same wherever it is.
      const name = quote(`zq_unnest_${s.alias}`)
      const array = this.expr(s.expr)
      this.unnests.set(s.alias, name)
      const join = `${f.join === "LEFT" ? "LEFT " : ""}ARRAY JOIN ${array} AS ${name}`
      // ARRAY JOIN follows a table: a bare one unnests a single row.
      return index === 0 ? `(SELECT 1) ${join}` : join
    }
    const source = (() => {
      switch (s.kind) {
        case "table":
          return `${this.table(s.table)} AS ${quote(s.alias)}`
        case "subquery":
          return `(${this.query(s.query, false)}) AS ${quote(s.alias)}`
        case "cte":
          return `${quote(s.name)} AS ${quote(s.alias)}`
      }
    })()
    if (f.join === "FROM") return source
    if (f.join === "CROSS") return `CROSS JOIN ${source}`
    return `${f.join} JOIN ${source} ON ${f.on ? this.condition(f.on) : "true"}`
  }

  /**
   * The project's rows of a physical table, date-times in the project's zone. A versioned table
   * keeps each key's latest version, unless that one marks the row deleted.
   */
  private table(name: string): string {
    const table = clickhouseTable(name)
    if (table === undefined) throw new Error(`no ClickHouse table ${name}`)
    const project = this.param(this.options.projectId, "Int64")
    const read = (sql: string, type: string, column: string) =>
      `${type.startsWith(DATETIME) ? `toTimeZone(${sql}, ${this.tz})` : sql} AS ${quote(column)}`
    const versioned = table.versioned
    if (versioned === undefined) {
      return `(SELECT ${table.columns.map((c) => read(quote(c.name), c.type, c.name)).join(", ")} FROM ${quote(table.name)} WHERE ${quote("project_id")} = ${project})`
    }
    const t = (column: string) => `${quote("zq_t")}.${quote(column)}`
    const keys = ["project_id", ...versioned.key]
    const bookkeeping = [versioned.version, versioned.deleted]
    const latest = (column: string) => `argMax(${t(column)}, ${t(versioned.version)})`
    const columns = [
      ...keys.map((k) => `${t(k)} AS ${quote(k)}`),
      ...table.columns
        .filter((c) => !keys.includes(c.name) && !bookkeeping.includes(c.name))
        .map((c) => read(latest(c.name), c.type, c.name))
    ]
    const having = versioned.deleted === null ? "" : ` HAVING ${latest(versioned.deleted)} = 0`
    return `(SELECT ${columns.join(", ")} FROM ${quote(table.name)} AS ${quote("zq_t")} WHERE ${t("project_id")} = ${project} GROUP BY ${keys.map(t).join(", ")}${having})`
  }

  // --- Expressions

  protected override columnRef(e: Extract<RExpr, { kind: "column" }>): string {
    return this.unnests.get(e.source) ?? super.columnRef(e)
  }

  protected array(e: Extract<RExpr, { kind: "array" }>): string {
    if (e.exprs.length === 0) return this.emptyArray(e.type)
    return `[${e.exprs.map((x) => (e.type.kind === "Array" && e.type.of.kind === "Float" && x.type.kind === "Int" ? `toFloat64(${this.expr(x)})` : this.expr(x))).join(", ")}]`
  }

  protected tuple(e: Extract<RExpr, { kind: "tuple" }>): string {
    return `tuple(${e.exprs.map((x) => this.expr(x)).join(", ")})`
  }

  protected tupleElement(e: Extract<RExpr, { kind: "tupleAccess" }>): string {
    if (!Number.isInteger(e.index)) throw new Error("a tuple index is a whole number")
    return `tupleElement(${this.expr(e.tuple)}, ${e.index})`
  }

  /** lagInFrame and leadInFrame see only their frame: theirs is the whole partition, as Postgres' lag and lead see. */
  protected override windowCall(e: Extract<RExpr, { kind: "window" }>): string {
    const named = typeof e.over === "string" ? this.windows.get(e.over) : e.over
    if ((e.name === "lagInFrame" || e.name === "leadInFrame") && named !== undefined) {
      return super.windowCall(
        e,
        ` OVER (${this.window(named, "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING")})`
      )
    }
    return super.windowCall(e)
  }

  emptyArray(type: ZType): string {
    const typed = type.kind === "Array" && type.of.kind !== "Unknown" && type.of.kind !== "Null"
    return `CAST([], ${literal(clickhouseName(typed ? type : { kind: "Array", of: T.String, nullable: false }, this.timezone))})`
  }

  protected constant(value: unknown, type: ZType): string {
    if (value === null) return "NULL"
    if (typeof value === "boolean") return value ? "true" : "false"
    if (typeof value === "number") {
      if (!Number.isFinite(value)) return `toFloat64(${literal(String(value))})`
      return this.param(value, Number.isInteger(value) && type.kind === "Int" ? "Int64" : "Float64")
    }
    return this.param(value, type.kind === "Float" ? "Float64" : "String")
  }

  /** JSON text and the steps into it (keys, 1-based indexes), as ClickHouse's JSON functions take them. */
  jsonPath(e: RExpr): { readonly base: string; readonly steps: ReadonlyArray<string> } {
    if (e.kind === "property")
      return { base: `${quote(e.source)}.${quote(e.column)}`, steps: e.path.map((s) => this.step(s)) }
    return { base: this.expr(e), steps: [] }
  }

  step = (step: PathStep): string => {
    if (typeof step === "string") return this.param(step, "String")
    // ClickHouse counts array elements from 1, negative ones from the end, as ZedQL does.
    if (typeof step === "number") return this.param(step, "Int64")
    return isNumeric(step.type) ? `toInt64(${this.expr(step)})` : `toString(${this.expr(step)})`
  }

  /**
   * A property: the JSON text at the path, NULL when missing or null, a string's value without
   * its quotes (decoded, as Postgres' ->> gives it).
   */
  protected property(e: Extract<RExpr, { kind: "property" }>): string {
    const { base, steps } = this.jsonPath(e)
    if (steps.length === 0) return base
    const raw = `JSONExtractRaw(${[base, ...steps].join(", ")})`
    return `if(startsWith(${raw}, '"'), JSONExtractString(${raw}), nullIf(nullIf(${raw}, ''), 'null'))`
  }

  element(array: string, index: RExpr): string {
    return `arrayElementOrNull(${array}, ${this.expr(index)})`
  }

  protected call(e: Call, over?: string): string {
    const print = CLICKHOUSE_FUNCTIONS[e.name]
    if (print === undefined) throw new Error(`no ClickHouse form for ${e.name}`)
    return print(e, this, over)
  }

  protected readonly notEqual = "!="

  protected nullSafe(op: "==" | "!=", l: string, r: string, both: boolean): string {
    if (op === "==") return both ? `ifNull(${l} = ${r}, ${l} IS NULL AND ${r} IS NULL)` : `ifNull(${l} = ${r}, false)`
    return both ? `ifNull(${l} != ${r}, (${l} IS NULL) != (${r} IS NULL))` : `ifNull(${l} != ${r}, true)`
  }

  protected arrayHas(array: string, value: string, negated: boolean): string {
    return `if(${value} IS NULL, NULL, ${negated ? "NOT " : ""}has(${array}, ${value}))`
  }

  protected orElse(test: string, fallback: boolean): string {
    return `ifNull(${test}, ${fallback})`
  }

  protected matching(op: CompareOp, l: string, r: string): string {
    switch (op) {
      case "like":
        return `${l} LIKE ${r}`
      case "not like":
        return `${l} NOT LIKE ${r}`
      case "ilike":
        return `${l} ILIKE ${r}`
      case "not ilike":
        return `${l} NOT ILIKE ${r}`
      case "=~":
        return `match(${l}, ${r})`
      case "!~":
        return `NOT match(${l}, ${r})`
      case "=~*":
        return `match(${l}, concat('(?i)', ${r}))`
      case "!~*":
        return `NOT match(${l}, concat('(?i)', ${r}))`
      default:
        return `${l} ${op} ${r}`
    }
  }

  arith(op: "+" | "-" | "*" | "/" | "%", left: RExpr, right: RExpr, type: ZType): string {
    const l = this.expr(left)
    const r = this.expr(right)
    if (op === "-" && isTemporal(left.type) && isTemporal(right.type)) {
      if (left.type.kind === "Date" && right.type.kind === "Date") return `toInt64(dateDiff('day', ${r}, ${l}))`
      const micros = (v: string) => `toUnixTimestamp64Micro(toDateTime64(${v}, 6))`
      return `toInt64(floor((${micros(l)} - ${micros(r)}) / 1000000))`
    }
    if (op === "/") return `(toFloat64(${l}) / nullIf(toFloat64(${r}), 0))`
    if (op === "%")
      return type.kind === "Int" ? `moduloOrNull(${l}, ${r})` : `moduloOrNull(toFloat64(${l}), toFloat64(${r}))`
    return `(${l} ${op} ${r})`
  }

  protected dateTimeConstant(text: string): string {
    return `parseDateTime64BestEffort(${this.param(text, "String")}, 6, ${this.tz})`
  }

  protected dateConstant(text: string): string {
    return `toDate(${this.param(text, "String")})`
  }

  protected convert(e: RExpr, to: ZType): string {
    const sql = this.expr(e)
    const from = e.type.kind
    const when = (pattern: string, then: string) => `if(match(${sql}, ${literal(pattern)}), ${then}, NULL)`
    switch (to.kind) {
      case "Float":
        if (isNumeric(e.type) || from === "Bool") return `toFloat64(${sql})`
        return when(NUMBER_TEXT, `toFloat64OrNull(trimBoth(${sql}))`)
      case "Int":
        if (from === "Int") return sql
        if (from === "Float" || from === "Bool") return `toInt64(${sql})`
        if (from === "Date") return `toInt64(toUnixTimestamp(toDateTime(${sql}, 'UTC')))`
        if (from === "DateTime") return `toInt64(toUnixTimestamp(${sql}))`
        return when(INTEGER_TEXT, `toInt64OrNull(trimBoth(${sql}))`)
      case "Bool":
        if (from === "Bool") return sql
        if (isNumeric(e.type)) return `(${sql} != 0)`
        return `multiIf(lowerUTF8(trimBoth(${sql})) IN ('true', '1'), true, lowerUTF8(trimBoth(${sql})) IN ('false', '0'), false, NULL)`
      case "DateTime":
        if (from === "DateTime") return sql
        if (from === "Date" || isNumeric(e.type))
          return `toDateTime64(${from === "Date" ? sql : `toFloat64(${sql})`}, 6, ${this.tz})`
        return `multiIf(match(${sql}, ${literal(DATETIME_TEXT)}), parseDateTime64BestEffortOrNull(trimBoth(${sql}), 6, ${this.tz}), match(${sql}, ${literal(EPOCH_TEXT)}), toDateTime64(toFloat64OrNull(trimBoth(${sql})), 6, ${this.tz}), NULL)`
      case "Date":
        if (from === "Date") return sql
        if (from === "DateTime") return `toDate(${sql})`
        return when(DATE_TEXT, `toDateOrNull(substring(${sql}, 1, 10))`)
      case "UUID":
        if (from === "UUID") return sql
        return when(UUID_TEXT, `toUUIDOrNull(trimBoth(${sql}))`)
      case "String":
        if (from === "String" || from === "JSON") return sql
        if (from === "DateTime") return `formatDateTime(${sql}, '%Y-%m-%d %H:%i:%S')`
        if (from === "Date") return `formatDateTime(${sql}, '%Y-%m-%d')`
        if (from === "Bool") return `if(${sql} IS NULL, NULL, if(${sql}, 'true', 'false'))`
        return `toString(${sql})`
      default:
        return sql
    }
  }
}

/**
 * Date-times and dates inside arrays as the Postgres drivers give them (JavaScript dates as JSON:
 * UTC, milliseconds); other elements as they are.
 */
const elementsAsPostgresGives = (kind: ZType["kind"], sql: string): string => {
  if (kind === "DateTime") {
    const iso =
      "concat(formatDateTime(toTimeZone(zq_d, 'UTC'), '%Y-%m-%dT%H:%i:%S.'), substring(formatDateTime(toDateTime64(zq_d, 6), '%f'), 1, 3), 'Z')"
    return `arrayMap(zq_d -> if(zq_d IS NULL, NULL, ${iso}), ${sql})`
  }
  if (kind === "Date")
    return `arrayMap(zq_d -> if(zq_d IS NULL, NULL, concat(formatDateTime(zq_d, '%Y-%m-%d'), 'T00:00:00.000Z')), ${sql})`
  return sql
}

/** NULLs last in either direction (strings sort by their bytes in ClickHouse). */
const direction = (o: ROrder) => `${o.descending ? "DESC" : "ASC"} NULLS LAST`

export const clickhouse: Dialect = {
  name: "clickhouse",
  functions: new Set(Object.keys(CLICKHOUSE_FUNCTIONS)),
  print: (query, options) => {
    const printer = new ChPrinter(options)
    const sql = printer.query(query, true)
    return { sql, params: printer.params }
  }
}
