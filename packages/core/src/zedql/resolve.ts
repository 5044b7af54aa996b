import { Either } from "effect"
import type { PropertyOwner, PropertyType } from "../services/PropertyDefinitions.js"
import type * as A from "./ast.js"
import { cohortCondition, type CohortRef, cohortRefOf } from "./cohorts.js"
import { ZedQLQueryError, type ZedQLSyntaxError } from "./errors.js"
import { formatExpr } from "./format.js"
import { canonicalName, SIGNATURES, suggest } from "./functions.js"
import type { RColumn, RExpr, RFrom, ROrder, RQuery, RSelect, RSource, RWindow } from "./ir.js"
import { TABLES, type VirtualField, type VirtualTable } from "./tables.js"
import { isNumeric, isTemporal, nullable, T, unify, type ZType } from "./types.js"

// Binds every name in a parsed query: virtual tables to physical sources (each one a project's rows
// only, by the IR's contract), fields to columns and JSON paths, aliases, CTEs, lambdas and
// functions; infers types; refuses what is not valid ZedQL with the position of the culprit.

export interface ResolveOptions {
  /** The type ingestion has seen for a top-level property, if any. */
  readonly propertyType: (owner: PropertyOwner, key: string) => PropertyType | undefined
  /** Values for `{name}` placeholders. */
  readonly values: Readonly<Record<string, unknown>>
  /** `{filters}`: conditions on the query's events, as ZedQL expressions; absent means none. */
  readonly filters: ReadonlyArray<A.Expr>
  /** `matchesAction(id)`: the condition of the project's action with this id, if there is one. */
  readonly action: (id: number) => ActionMatch | undefined
  /** `IN COHORT`: the uuids of the persons in the project's cohort with this id or name, if there is one. */
  readonly cohort: (ref: CohortRef) => ReadonlyArray<string> | undefined
}

/** An action as `matchesAction` reads it: its condition, or why it has none. */
export type ActionMatch = { readonly condition: A.Expr } | { readonly unsupported: string }

/** Thrown inside resolution and turned into a failure at its edge. */
class Refusal {
  constructor(readonly error: ZedQLQueryError | ZedQLSyntaxError) {}
}

const spanOf = (node: A.Located | undefined) =>
  node?.start !== undefined && node.end !== undefined
    ? { start: node.start.offset, end: Math.max(node.end.offset, node.start.offset) }
    : null

const refuse = (message: string, node?: A.Located): never => {
  throw new Refusal(new ZedQLQueryError({ message, span: spanOf(node) }))
}

interface Source {
  /** How the query names it. */
  readonly name: string
  /** Its alias in SQL. */
  readonly alias: string
  readonly table: VirtualTable | null
  /** Output columns of a subquery or CTE. */
  readonly columns: ReadonlyMap<string, ZType> | null
  readonly lazy: Map<string, Source>
  /** Fields asked of a virtual table defined in ZedQL, which is built with only those. */
  readonly requested: Set<string>
  readonly from: { source: RSource | null; readonly join: RFrom["join"]; on: RExpr | null }
  /** A lazy join's table: the source and lazy field it is joined through. */
  readonly via?: {
    readonly owner: Source
    readonly field: Extract<VirtualField, { kind: "lazy" }>
    readonly name: string
  }
}

interface AliasEntry {
  readonly expr: A.Expr
  resolved: RExpr | undefined
  resolving: boolean
}

interface Cte {
  readonly query: RQuery | null
  readonly column: A.Expr | null
}

class Scope {
  readonly sources: Array<Source> = []
  readonly lazyJoins: Array<Source> = []
  readonly aliases = new Map<string, AliasEntry>()
  /** The WHERE (and PREWHERE) as written, for narrowing the lazy joins' tables. */
  where: ReadonlyArray<A.Expr> = []
  readonly ctes: Map<string, Cte>
  constructor(
    readonly parent: Scope | null,
    ctes: ReadonlyMap<string, Cte>
  ) {
    this.ctes = new Map(ctes)
  }
}

interface Env {
  readonly lambdas: ReadonlyMap<string, ZType>
  /** Inside an aggregate's arguments (aggregates do not nest). */
  readonly inAggregate: string | null
  /** Where aggregates may appear (not in WHERE, GROUP BY, ON…). */
  readonly aggregates: boolean
  /** Typed properties are read raw (inside toFloatOrZero…). */
  readonly raw: boolean
}

const BASE_ENV: Env = { lambdas: new Map(), inAggregate: null, aggregates: false, raw: false }

const constType = (value: A.Constant["value"], valueType?: string): ZType =>
  value === null
    ? T.Null
    : typeof value === "boolean"
      ? T.Bool
      : typeof value === "number"
        ? Number.isInteger(value)
          ? T.Int
          : T.Float
        : valueType === "number"
          ? T.Float
          : T.String

const constant = (value: A.Constant["value"], type = constType(value)): RExpr => ({ kind: "const", value, type })

const isConst = (e: RExpr): e is Extract<RExpr, { kind: "const" }> => e.kind === "const"

/** A constant as the type it is compared with: ClickHouse reads '2024-01-01' as a date there. */
const coerce = (value: RExpr, to: ZType, node: A.Located): RExpr => {
  if (!isConst(value) || value.value === null) return value
  const target = to.kind
  if ((target === "DateTime" || target === "Date") && typeof value.value === "string")
    return { kind: "cast", expr: value, type: nullable({ kind: target, nullable: false }, false) }
  if ((target === "String" || target === "UUID") && typeof value.value === "number")
    return constant(String(value.value), T.String)
  if (isNumeric(to) && typeof value.value === "string") {
    if (!/^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(value.value))
      refuse(`Cannot compare a number with the text '${value.value}'`, node)
    return constant(Number(value.value), Number.isInteger(Number(value.value)) ? T.Int : T.Float)
  }
  if (target === "Bool" && typeof value.value === "number") return constant(value.value !== 0, T.Bool)
  return value
}

const isTrue = (e: RExpr) => isConst(e) && e.value === true

export class Resolver {
  constructor(
    private readonly options: ResolveOptions,
    private readonly internal = false,
    // One counter for the whole statement, tables defined in ZedQL included: aliases never collide.
    private readonly counter = { next: 0 },
    // Off inside tables defined in ZedQL and narrowing queries, which need no narrowing of their own.
    private readonly narrows = true
  ) {}

  private nextAlias = () => `t${this.counter.next++}`

  query(node: A.SelectLike, parent: Scope | null): RQuery {
    if (node.node === "SelectQuery") return this.select(node, parent)
    const first = this.query(node.initial_select_query, parent)
    const rest = node.subsequent_select_queries.map((n) => {
      const operator = n.set_operator.toUpperCase()
      const op =
        operator === "UNION"
          ? "UNION DISTINCT"
          : operator === "INTERSECT DISTINCT"
            ? "INTERSECT"
            : operator === "EXCEPT DISTINCT"
              ? "EXCEPT"
              : operator
      if (op !== "UNION ALL" && op !== "UNION DISTINCT" && op !== "INTERSECT" && op !== "EXCEPT")
        refuse(`Unsupported set operation ${n.set_operator}`, node)
      const query = this.query(n.select_query, parent)
      if (outputs(query).length !== outputs(first).length)
        refuse(`Each ${op} branch must return the same number of columns`, node)
      return { operator: op as "UNION ALL", query }
    })
    return { kind: "set", first, rest, limit: null, offset: null }
  }

  private select(node: A.SelectQuery, parent: Scope | null): RSelect {
    const scope = new Scope(parent, parent?.ctes ?? new Map())
    const ctes: Array<{ name: string; query: RQuery }> = []
    for (const cte of node.ctes ?? []) {
      if (cte.cte_type === "column") {
        scope.ctes.set(cte.name, { query: null, column: cte.expr as A.Expr })
      } else {
        const query = this.query(cte.expr as A.SelectLike, scope)
        ctes.push({ name: cte.name, query })
        scope.ctes.set(cte.name, { query, column: null })
      }
    }
    if (node.qualify) refuse("QUALIFY is not supported: filter window results in an outer query", node.qualify)
    if (node.limit_by) refuse("LIMIT … BY is not supported", node)
    if (node.limit_with_ties) refuse("LIMIT … WITH TIES is not supported", node)

    for (let join = node.select_from ?? null; join !== null; join = join.next_join ?? null) this.join(join, scope)
    if (node.array_join_list) this.arrayJoin(node, scope)

    for (const item of node.select) {
      if (item.node === "Alias")
        scope.aliases.set(item.alias, { expr: item.expr, resolved: undefined, resolving: false })
    }
    const windows = Object.entries(node.window_exprs ?? {}).map(([name, w]) => ({
      name,
      window: this.window(w, scope)
    }))
    const windowNames = new Set(windows.map((w) => w.name))
    const selectEnv: Env = { ...BASE_ENV, aggregates: true }
    const columns: Array<RColumn> = node.select.flatMap((item) => this.selectItem(item, scope, selectEnv, windowNames))
    scope.where = [node.prewhere, node.where].filter((e): e is A.Expr => e != null)
    const where = scope.where.map((e) => this.expr(e, scope, BASE_ENV, windowNames))
    const aliases = new Set(node.select.flatMap((item) => (item.node === "Alias" ? [item.alias] : [])))
    const at = (e: A.Expr): RExpr => {
      // GROUP BY 2 and ORDER BY 2 mean the second column, as in ClickHouse.
      if (e.node === "Constant" && typeof e.value === "number" && Number.isInteger(e.value)) {
        const column = columns[e.value - 1]
        if (column === undefined) refuse(`There is no column ${e.value} to refer to`, e)
        return column!.expr
      }
      // A column's alias is that very column: resolved again, a subquery in it would read other
      // table aliases, and Postgres would not see it as the grouped expression.
      if (e.node === "Field" && e.chain.length === 1 && aliases.has(String(e.chain[0]))) {
        const column = columns.find((c) => c.name === e.chain[0])
        if (column !== undefined) return column.expr
      }
      return this.expr(e, scope, selectEnv, windowNames)
    }
    const groupBy = (node.group_by ?? []).map((e) => {
      const resolved = at(e)
      if (containsAggregate(resolved)) refuse("GROUP BY cannot hold an aggregation", e)
      return resolved
    })
    const having = node.having ? this.expr(node.having, scope, selectEnv, windowNames) : null
    const orderBy: Array<ROrder> = (node.order_by ?? []).map((o) => ({
      expr: at(o.expr),
      descending: o.order === "DESC"
    }))
    const select: RSelect = {
      kind: "select",
      ctes,
      distinct: node.distinct === true,
      columns,
      from: this.finish(scope),
      where: and(where),
      groupBy,
      having,
      windows,
      orderBy,
      limit: node.limit ? this.count(node.limit, scope, "LIMIT") : null,
      offset: node.offset ? this.count(node.offset, scope, "OFFSET") : null
    }
    return select
  }

  private count(e: A.Expr, scope: Scope, what: string): RExpr {
    const resolved = this.expr(e, scope, BASE_ENV, new Set())
    if (
      !isConst(resolved) ||
      typeof resolved.value !== "number" ||
      !Number.isInteger(resolved.value) ||
      resolved.value < 0
    ) {
      refuse(`${what} takes a whole number`, e)
    }
    return resolved
  }

  // --- Sources

  private join(join: A.JoinExpr, scope: Scope) {
    const type = (join.join_type ?? "")
      .toUpperCase()
      .replace(/\s+/g, " ")
      .replace(/ OUTER/, "")
      .trim()
    const kind: RFrom["join"] =
      scope.sources.length === 0
        ? "FROM"
        : type === "" || type === "JOIN" || type === "INNER JOIN" || type === "INNER"
          ? join.constraint
            ? "INNER"
            : "CROSS"
          : type === "LEFT JOIN" || type === "LEFT"
            ? "LEFT"
            : type === "RIGHT JOIN"
              ? "RIGHT"
              : type === "FULL JOIN"
                ? "FULL"
                : type === "CROSS JOIN" || type === ","
                  ? "CROSS"
                  : refuse(`Unsupported join: ${join.join_type}`, join)
    if (join.sample != null && !isWholeSample(join.sample)) refuse("SAMPLE is not supported", join)
    // Otherwise `events(2)` would read as `events`, its arguments silently dropped.
    if (join.table_args != null) refuse("Table functions are not supported", join)
    const table = join.table
    if (table == null) refuse("A join needs a table", join)
    const source = this.source(table!, join.alias ?? null, kind, scope, join)
    if (scope.sources.some((s) => s.name === source.name)) refuse(`Table alias "${source.name}" is used twice`, join)
    scope.sources.push(source)
    if (join.constraint) {
      if (kind === "FROM" || kind === "CROSS") refuse("This join takes no condition", join.constraint)
      source.from.on =
        join.constraint.constraint_type === "USING"
          ? this.using(join.constraint.expr, source, scope)
          : this.expr(join.constraint.expr, scope, BASE_ENV, new Set())
    } else if (kind !== "FROM" && kind !== "CROSS") {
      refuse(`${kind} JOIN needs ON or USING`, join)
    }
  }

  /** `USING (a, b)`: equal fields of that name on the joined table and the one before it. */
  private using(expr: A.Expr, right: Source, scope: Scope): RExpr {
    const names = (expr.node === "Tuple" ? expr.exprs : [expr]).map((e) =>
      e.node === "Field" && e.chain.length === 1 ? String(e.chain[0]) : refuse("USING takes field names", e)
    )
    const left = scope.sources[scope.sources.length - 2]!
    return and(
      names.map((name) => {
        const l = this.sourceField(left, [name], BASE_ENV, scope, expr)
        const r = this.sourceField(right, [name], BASE_ENV, scope, expr)
        return { kind: "compare", op: "==", left: l, right: r, type: T.Bool } as RExpr
      })
    )!
  }

  private source(table: A.Expr, alias: string | null, join: RFrom["join"], scope: Scope, node: A.Located): Source {
    if (table.node === "SelectQuery" || table.node === "SelectSetQuery") {
      const query = this.query(table, scope)
      const name = alias ?? this.nextAlias()
      return this.derived(name, { kind: "subquery", query, alias: this.nextAlias() }, outputs(query), join)
    }
    if (table.node !== "Field") return refuse("Expected a table name or a subquery", table)
    if (table.chain.length !== 1) return refuse(`Unknown table \`${table.chain.join(".")}\`.`, table)
    const tableName = String(table.chain[0])
    const cte = lookupCte(scope, tableName)
    if (cte?.query) {
      return this.derived(
        alias ?? tableName,
        { kind: "cte", name: tableName, alias: this.nextAlias() },
        outputs(cte.query),
        join
      )
    }
    // Own keys only: `FROM constructor` must not find Object.prototype's.
    const virtual = Object.hasOwn(TABLES, tableName) ? TABLES[tableName] : undefined
    if (virtual === undefined || (virtual.internal === true && !this.internal)) {
      return refuse(`Unknown table \`${tableName}\`.`, table)
    }
    return this.tableSource(virtual, alias ?? tableName, join, node)
  }

  private derived(name: string, source: RSource, columns: ReadonlyArray<RColumn>, join: RFrom["join"]): Source {
    return {
      name,
      alias: source.alias,
      table: null,
      columns: new Map(columns.map((c) => [c.name, c.expr.type])),
      lazy: new Map(),
      requested: new Set(),
      from: { source, join, on: null }
    }
  }

  private tableSource(table: VirtualTable, name: string, join: RFrom["join"], _node: A.Located): Source {
    const alias = this.nextAlias()
    return {
      name,
      alias,
      table,
      columns: null,
      lazy: new Map(),
      requested: new Set(),
      // Tables defined in ZedQL are built once every field asked of them is known.
      from: {
        source: table.source.kind === "table" ? { kind: "table", table: table.source.table, alias } : null,
        join,
        on: null
      }
    }
  }

  /** Builds virtual tables defined in ZedQL, and collects the FROM list with lazy joins last. */
  private finish(scope: Scope): ReadonlyArray<RFrom> {
    const build = (source: Source): RFrom => {
      if (source.from.source === null) {
        const table = source.table!
        if (table.source.kind !== "zedql") throw new Error(`${table.name} is not defined in ZedQL`)
        const definition = table.source.build([...source.requested], this.keysOf(source, scope))
        const query = new Resolver(this.options, true, this.counter, false).query(definition, null)
        source.from.source = { kind: "subquery", query, alias: source.alias }
      }
      return source.from as RFrom
    }
    return [...scope.sources.map(build), ...scope.lazyJoins.map(build)]
  }

  /**
   * The keys a lazy join's table defined in ZedQL is needed for: the joined field of the owner's rows
   * that pass the WHERE's conjuncts reading the owner alone. Every row the WHERE keeps is among them,
   * so the join finds what it would over the whole table (`sessions` then groups one week's sessions,
   * not every event). Only when the owner is the scope's one table: with others, a bare field could
   * name another table's.
   */
  private keysOf(target: Source, scope: Scope): A.SelectLike | undefined {
    const via = target.via
    const built = target.table?.source
    if (!this.narrows || via === undefined || built?.kind !== "zedql" || built.key !== via.field.to) return undefined
    const owner = via.owner
    if (scope.sources.length !== 1 || scope.sources[0] !== owner || owner.table?.source.kind !== "table")
      return undefined
    const keys = (where: A.Expr): A.SelectQuery => ({
      node: "SelectQuery",
      select: [{ node: "Field", chain: [via.field.from] }],
      select_from: { node: "JoinExpr", table: { node: "Field", chain: [owner.table!.name] }, alias: owner.name },
      where
    })
    // Not a conjunct reading a SELECT alias (the same name means the alias there) or the lazy field
    // itself; and only one that reads nothing but the owner, which resolving it alone tells.
    const shadowed = new Set([...scope.aliases.keys(), via.name])
    const conjuncts = scope.where.flatMap(conjunctsOf).filter((c) => {
      if (reads(c, shadowed, this.options.filters)) return false
      try {
        new Resolver(this.options, this.internal, this.counter, false).query(keys(c), null)
        return true
      } catch (error) {
        if (error instanceof Refusal) return false
        throw error
      }
    })
    if (conjuncts.length === 0) return undefined
    return keys(conjuncts.length === 1 ? conjuncts[0]! : { node: "And", exprs: conjuncts })
  }

  private arrayJoin(node: A.SelectQuery, scope: Scope) {
    const left = (node.array_join_op ?? "").toUpperCase().startsWith("LEFT")
    for (const item of node.array_join_list ?? []) {
      if (item.node !== "Alias") refuse("ARRAY JOIN needs an alias: ARRAY JOIN arr AS x", item)
      const aliased = item as A.Alias
      const expr = this.expr(aliased.expr, scope, BASE_ENV, new Set())
      if (expr.type.kind !== "Array" && expr.type.kind !== "Unknown") refuse("ARRAY JOIN takes an array", aliased.expr)
      const alias = this.nextAlias()
      const element = expr.type.kind === "Array" ? nullable(expr.type.of, left) : T.Unknown
      scope.sources.push({
        name: aliased.alias,
        alias,
        table: null,
        columns: new Map([[aliased.alias, element]]),
        lazy: new Map(),
        requested: new Set(),
        from: {
          source: { kind: "unnest", expr, alias, column: aliased.alias },
          join: left ? "LEFT" : "CROSS",
          on: left ? constant(true) : null
        }
      })
    }
  }

  /** The table a lazy field joins, joined once per source. */
  private lazy(
    source: Source,
    name: string,
    field: Extract<VirtualField, { kind: "lazy" }>,
    scope: Scope,
    node: A.Located
  ): Source {
    const known = source.lazy.get(name)
    if (known) return known
    const target: Source = {
      ...this.tableSource(TABLES[field.table]!, `${source.name}.${name}`, "LEFT", node),
      via: { owner: source, field, name }
    }
    const on = and([
      {
        kind: "compare",
        op: "==",
        left: this.sourceField(target, [field.to], BASE_ENV, scope, node),
        right: this.sourceField(source, [field.from], BASE_ENV, scope, node),
        type: T.Bool
      },
      ...Object.entries(field.where ?? {}).map(
        ([key, value]): RExpr => ({
          kind: "compare",
          op: "==",
          left: this.sourceField(target, [key], BASE_ENV, scope, node),
          right: constant(value),
          type: T.Bool
        })
      )
    ])
    target.from.on = on
    source.lazy.set(name, target)
    // The scope that owns the source holds the join.
    ownerOf(scope, source).lazyJoins.push(target)
    return target
  }

  // --- Fields

  private field(node: A.Field, scope: Scope, env: Env): RExpr {
    const chain = node.chain.map(String)
    const [head, ...rest] = chain as [string, ...Array<string>]
    if (chain.length === 1) {
      const lambda = env.lambdas.get(head)
      if (lambda) return { kind: "lambdaArg", name: head, type: lambda }
    }
    for (let s: Scope | null = scope; s !== null; s = s.parent) {
      if (chain.length === 1) {
        const cte = s.ctes.get(head)
        if (cte?.column) return this.expr(cte.column, s, env, new Set())
        const alias = s.aliases.get(head)
        if (alias && !alias.resolving) return this.alias(alias, s, env)
      }
      const named = s.sources.find((src) => src.name === head)
      if (named && rest.length > 0) return this.sourceField(named, rest, env, s, node)
      const owners = s.sources.filter((src) => hasField(src, head, this.internal))
      if (owners.length > 1)
        refuse(`Field "${head}" is ambiguous: say which table (${owners.map((o) => o.name).join(", ")})`, node)
      if (owners.length === 1) return this.sourceField(owners[0]!, chain, env, s, node)
      if (named) refuse(`"${head}" is a table: select its fields, as ${head}.field or ${head}.*`, node)
    }
    return refuse(`Unable to resolve field: ${chain.join(".")}`, node)
  }

  private alias(alias: AliasEntry, scope: Scope, env: Env): RExpr {
    if (alias.resolved) return alias.resolved
    alias.resolving = true
    try {
      alias.resolved = this.expr(alias.expr, scope, { ...env, lambdas: new Map() }, new Set())
      return alias.resolved
    } finally {
      alias.resolving = false
    }
  }

  private sourceField(source: Source, chain: ReadonlyArray<string>, env: Env, scope: Scope, node: A.Located): RExpr {
    const [name, ...rest] = chain as [string, ...Array<string>]
    if (source.table === null) {
      const type = source.columns!.get(name)
      if (type === undefined) refuse(`Unable to resolve field: ${name} (not a column of ${source.name})`, node)
      const column: RExpr = { kind: "column", source: source.alias, column: name, type: type! }
      if (rest.length === 0) return column
      if (type!.kind !== "JSON" && type!.kind !== "Unknown") refuse(`${name} has no fields`, node)
      return { kind: "property", source: source.alias, column: name, path: rest, type: nullable(T.String) }
    }
    const field = resolveAlias(source.table, name, this.internal)
    if (field === undefined) refuse(`Unable to resolve field: ${name} (not a field of ${source.table.name})`, node)
    switch (field!.kind) {
      case "column":
        if (rest.length > 0) refuse(`${name} has no fields`, node)
        source.requested.add(canonicalField(source.table, name))
        return { kind: "column", source: source.alias, column: field!.column, type: field!.type }
      case "property":
        if (rest.length > 0) refuse(`${name} has no fields`, node)
        return { kind: "property", source: source.alias, column: field!.column, path: [field!.key], type: field!.type }
      case "json": {
        if (rest.length === 0) return { kind: "column", source: source.alias, column: field!.column, type: T.JSON }
        const property: RExpr = {
          kind: "property",
          source: source.alias,
          column: field!.column,
          path: rest,
          type: nullable(T.String)
        }
        return rest.length === 1 && field!.owner !== null && !env.raw
          ? this.typed(property, field!.owner, rest[0]!)
          : property
      }
      case "lazy": {
        if (rest.length === 0) refuse(`${name} is a table: select its fields, as ${name}.field`, node)
        return this.sourceField(this.lazy(source, name, field!, scope, node), rest, env, scope, node)
      }
      case "alias":
        return this.sourceField(source, [field!.of, ...rest], env, scope, node)
    }
  }

  /** A top-level property read as the type ingestion saw for it. */
  private typed(property: RExpr, owner: PropertyOwner, key: string): RExpr {
    const type = this.options.propertyType(owner, key)
    if (type === "Numeric") return { kind: "cast", expr: property, type: nullable(T.Float) }
    if (type === "DateTime") return { kind: "cast", expr: property, type: nullable(T.DateTime) }
    if (type === "Boolean") return { kind: "cast", expr: property, type: nullable(T.Bool) }
    return property
  }

  // --- Expressions

  private selectItem(item: A.Expr, scope: Scope, env: Env, windows: ReadonlySet<string>): ReadonlyArray<RColumn> {
    if (item.node === "Field" && item.chain[item.chain.length - 1] === "*") {
      const prefix = item.chain.slice(0, -1).map(String)
      const sources = prefix.length === 0 ? scope.sources : scope.sources.filter((s) => s.name === prefix.join("."))
      if (sources.length === 0)
        refuse(prefix.length === 0 ? "SELECT * needs a table" : `Unknown table alias "${prefix.join(".")}"`, item)
      return sources.flatMap((source) =>
        (source.table ? source.table.star : [...source.columns!.keys()]).map((name) => ({
          name,
          expr: this.sourceField(source, [name], env, scope, item)
        }))
      )
    }
    const expr = this.expr(item, scope, env, windows)
    return [{ name: columnName(item), expr }]
  }

  private window(w: A.WindowExpr, scope: Scope): RWindow {
    const env: Env = { ...BASE_ENV, aggregates: true }
    const frame = w.frame_method
      ? `${w.frame_method} BETWEEN ${frameBound(w.frame_start)} AND ${frameBound(w.frame_end ?? { node: "WindowFrameExpr", frame_type: "CURRENT ROW" })}`
      : null
    return {
      partitionBy: (w.partition_by ?? []).map((e) => this.expr(e, scope, env, new Set())),
      orderBy: (w.order_by ?? []).map((o) => ({
        expr: this.expr(o.expr, scope, env, new Set()),
        descending: o.order === "DESC"
      })),
      frame
    }
  }

  expr(node: A.Expr, scope: Scope, env: Env, windows: ReadonlySet<string>): RExpr {
    const recurse = (e: A.Expr, next: Env = env) => this.expr(e, scope, next, windows)
    switch (node.node) {
      case "Constant":
        return constant(node.value, constType(node.value, node.value_type))
      case "Field":
        return this.field(node, scope, env)
      case "Alias":
        return recurse(node.expr)
      case "Placeholder":
        return this.placeholder(node, scope, env, windows)
      case "ArithmeticOperation":
        return this.arithmetic(node, recurse(node.left), recurse(node.right))
      case "CompareOperation":
        return this.compare(node, scope, env, windows)
      case "And":
      case "Or": {
        const exprs = node.exprs.map((e) => recurse(e))
        return {
          kind: node.node === "And" ? "and" : "or",
          exprs,
          type: nullable(
            T.Bool,
            exprs.some((e) => e.type.nullable)
          )
        }
      }
      case "Not": {
        const expr = recurse(node.expr)
        return { kind: "not", expr, type: nullable(T.Bool, expr.type.nullable) }
      }
      case "BetweenExpr": {
        const expr = recurse(node.expr)
        return {
          kind: "between",
          expr,
          low: coerce(recurse(node.low), expr.type, node.low),
          high: coerce(recurse(node.high), expr.type, node.high),
          negated: node.negated === true,
          type: T.Bool
        }
      }
      case "Array": {
        const exprs = node.exprs.map((e) => recurse(e))
        return {
          kind: "array",
          exprs,
          type: T.array(exprs.length === 0 ? T.Unknown : exprs.map((e) => e.type).reduce(unify))
        }
      }
      case "Tuple": {
        const exprs = node.exprs.map((e) => recurse(e))
        return { kind: "tuple", exprs, type: T.tuple(exprs.map((e) => e.type)) }
      }
      case "ArrayAccess":
        return this.access(node, recurse(node.array), recurse(node.property))
      case "TupleAccess": {
        const tuple = recurse(node.tuple)
        if (tuple.type.kind !== "Tuple") refuse("Only tuples have .N elements", node)
        const type = (tuple.type as { of: ReadonlyArray<ZType> }).of[node.index - 1]
        if (type === undefined) refuse(`Tuple index ${node.index} is out of range`, node)
        return { kind: "tupleAccess", tuple, index: node.index, type: type! }
      }
      case "Lambda":
        return refuse("A lambda (x -> …) can only be a function's argument", node)
      case "TypeCast":
        return this.call(
          {
            node: "Call",
            name: castFunction(node.type_name, node),
            args: [node.expr],
            start: node.start,
            end: node.end
          },
          scope,
          env,
          windows
        )
      case "Call":
        return this.call(node, scope, env, windows)
      case "WindowFunction":
        return this.windowFunction(node, scope, env, windows)
      case "OrderExpr":
        return refuse("ASC/DESC only belong in ORDER BY", node)
      case "SelectQuery":
      case "SelectSetQuery": {
        const query = this.query(node, scope)
        const columns = outputs(query)
        if (columns.length !== 1) refuse("A subquery used as a value must return one column", node)
        return { kind: "subquery", query, type: nullable(columns[0]!.expr.type) }
      }
    }
  }

  private placeholder(node: A.Placeholder, scope: Scope, env: Env, windows: ReadonlySet<string>): RExpr {
    if (node.expr.node !== "Field") return refuse("Placeholders name a value: {name}", node)
    const name = node.expr.chain.map(String).join(".")
    if (name === "filters") {
      const conditions = this.options.filters.map((e) => this.expr(e, scope, env, windows))
      return and(conditions) ?? constant(true)
    }
    if (!Object.hasOwn(this.options.values, name)) return refuse(`No value was given for placeholder {${name}}`, node)
    return valueExpr(this.options.values[name], node)
  }

  private arithmetic(node: A.ArithmeticOperation, left: RExpr, right: RExpr): RExpr {
    const either = left.type.nullable || right.type.nullable
    if (node.op === "+" || node.op === "-") {
      if (isTemporal(left.type) && right.type.kind === "Interval")
        return { kind: "arith", op: node.op, left, right, type: nullable(T.DateTime, either) }
      if (node.op === "+" && left.type.kind === "Interval" && isTemporal(right.type))
        return { kind: "arith", op: node.op, left: right, right: left, type: nullable(T.DateTime, either) }
      if (node.op === "-" && isTemporal(left.type) && isTemporal(right.type))
        return {
          kind: "arith",
          op: node.op,
          left,
          right: coerce(right, left.type, node),
          type: nullable(T.Int, either)
        }
      if (left.type.kind === "Interval" && right.type.kind === "Interval")
        return { kind: "arith", op: node.op, left, right, type: T.Interval }
      if (isTemporal(left.type) && isNumeric(right.type)) {
        // ClickHouse: a date plus a number shifts it by days, a date-time by seconds.
        const unit = left.type.kind === "Date" ? "toIntervalDay" : "toIntervalSecond"
        return {
          kind: "arith",
          op: node.op,
          left,
          right: {
            kind: "call",
            name: unit,
            args: [right],
            params: [],
            distinct: false,
            filter: null,
            type: T.Interval
          },
          type: left.type
        }
      }
    }
    const l = coerce(left, T.Float, node)
    const r = coerce(right, T.Float, node)
    for (const side of [l, r]) {
      if (!isNumeric(side.type) && side.type.kind !== "Null" && side.type.kind !== "Unknown") {
        refuse(`Arithmetic needs numbers, not ${side.type.kind}: convert with toFloat() or toInt()`, node)
      }
    }
    const type = node.op === "/" ? T.Float : l.type.kind === "Int" && r.type.kind === "Int" ? T.Int : T.Float
    return {
      kind: "arith",
      op: node.op,
      left: l,
      right: r,
      type: nullable(type, either || node.op === "/" || node.op === "%")
    }
  }

  private compare(node: A.CompareOperation, scope: Scope, env: Env, windows: ReadonlySet<string>): RExpr {
    if (node.op === "in cohort" || node.op === "not in cohort")
      return this.expr(this.inCohort(node), scope, env, windows)
    const left = this.expr(node.left, scope, env, windows)
    if (node.op === "in" || node.op === "not in" || node.op === "global in" || node.op === "global not in") {
      const op = node.op.endsWith("not in") ? "not in" : "in"
      const right =
        node.right.node === "Tuple" || node.right.node === "Array"
          ? {
              kind: "tuple" as const,
              exprs: node.right.exprs.map((e) => coerce(this.expr(e, scope, env, windows), left.type, e)),
              type: T.Unknown
            }
          : this.expr(node.right, scope, env, windows)
      if (right.kind !== "tuple" && right.kind !== "subquery" && right.type.kind !== "Array")
        refuse("IN takes a list, an array or a subquery", node.right)
      return { kind: "compare", op, left, right, type: T.Bool }
    }
    const right = coerce(this.expr(node.right, scope, env, windows), left.type, node.right)
    return { kind: "compare", op: node.op, left: coerce(left, right.type, node.left), right, type: T.Bool }
  }

  private access(node: A.ArrayAccess, array: RExpr, index: RExpr): RExpr {
    // properties['$x'], properties.a[1]: a step into the JSON, 1-based for arrays as in ClickHouse.
    if (array.kind === "property" || (array.kind === "column" && array.type.kind === "JSON")) {
      const step =
        isConst(index) && (typeof index.value === "string" || typeof index.value === "number") ? index.value : index
      if (step === 0) refuse("Array indexes start at 1 in ZedQL", node.property)
      const base =
        array.kind === "property"
          ? array
          : {
              kind: "property" as const,
              source: array.source,
              column: array.column,
              path: [],
              type: nullable(T.String)
            }
      return { ...base, path: [...base.path, step], type: nullable(T.String) }
    }
    if (array.kind === "cast" && array.expr.kind === "property") return this.access(node, array.expr, index)
    if (array.type.kind === "Tuple" && isConst(index) && typeof index.value === "number") {
      const type = array.type.of[index.value - 1]
      if (type === undefined) refuse(`Tuple index ${index.value} is out of range`, node)
      return { kind: "tupleAccess", tuple: array, index: index.value, type: type! }
    }
    if (array.type.kind !== "Array" && array.type.kind !== "Unknown")
      refuse("Only arrays, tuples and properties can be indexed", node)
    if (isConst(index) && index.value === 0) refuse("Array indexes start at 1 in ZedQL", node.property)
    return {
      kind: "arrayAccess",
      array,
      index,
      type: nullable(array.type.kind === "Array" ? array.type.of : T.Unknown)
    }
  }

  /** `IN COHORT id|'name'`: the cohort's members as a list, resolved where the test stands. */
  private inCohort(node: A.CompareOperation): A.Expr {
    const ref = cohortRefOf(node)
    if (ref === undefined) return refuse("IN COHORT takes a cohort's id (a number) or name (a string)", node.right)
    const members = this.options.cohort(ref)
    if (members === undefined)
      return refuse(
        `There is no cohort ${typeof ref === "string" ? `named '${ref}'` : ref} in this project`,
        node.right
      )
    return cohortCondition(node, members)
  }

  /** `matchesAction(id)`: the action's condition, resolved where the call stands. */
  private matchesAction(node: A.Call): A.Expr {
    const [id] = node.args
    if (node.args.length !== 1 || id?.node !== "Constant" || !Number.isInteger(id.value))
      return refuse("matchesAction takes one argument: an action's id, as a number", node)
    const match = this.options.action(id.value as number)
    if (match === undefined) return refuse(`There is no action ${id.value} in this project`, node)
    if ("unsupported" in match) return refuse(match.unsupported, node)
    return match.condition
  }

  private call(node: A.Call, scope: Scope, env: Env, windows: ReadonlySet<string>): RExpr {
    if (node.name === "matchesAction") return this.expr(this.matchesAction(node), scope, env, windows)
    const name = canonicalName(node.name)
    if (name === undefined) {
      const hint = suggest(node.name)
      return refuse(
        `Unsupported function call '${node.name}(...)'${hint ? `. Perhaps you meant '${hint}(...)'?` : ""}`,
        node
      )
    }
    const signature = SIGNATURES[name]!
    if (signature.windowOnly) refuse(`${node.name}() needs an OVER clause`, node)
    const args = countStarArgs(name, node.args)
    if (args.length < signature.minArgs || args.length > signature.maxArgs) {
      const expects =
        signature.minArgs === signature.maxArgs
          ? `${signature.minArgs}`
          : signature.maxArgs === Number.POSITIVE_INFINITY
            ? `at least ${signature.minArgs}`
            : `${signature.minArgs} to ${signature.maxArgs}`
      refuse(
        `Function '${node.name}' expects ${expects} argument${expects === "1" ? "" : "s"}, found ${args.length}`,
        node
      )
    }
    const params = node.params ?? []
    if (params.length < (signature.minParams ?? 0) || params.length > (signature.maxParams ?? 0)) {
      refuse(
        signature.maxParams
          ? `Function '${node.name}' takes ${signature.minParams} parameter(s): ${node.name}(p)(x)`
          : `Function '${node.name}' takes no parameters`,
        node
      )
    }
    if (signature.aggregate) {
      if (env.inAggregate)
        refuse(`Aggregation '${node.name}' cannot be nested inside another aggregation '${env.inAggregate}'`, node)
      if (!env.aggregates)
        refuse(
          `Aggregation '${node.name}' is not allowed here (WHERE, GROUP BY and join conditions run before aggregation)`,
          node
        )
    }
    const inner: Env = {
      ...env,
      inAggregate: signature.aggregate ? node.name : env.inAggregate,
      raw: env.raw || signature.rawArgs === true
    }
    const resolveArgs = (): ReadonlyArray<RExpr> => {
      if (!signature.lambda) return args.map((a) => this.expr(a, scope, inner, windows))
      // The lambda comes first; its parameters take the types of the arrays after it.
      const rest = args.slice(1).map((a) => this.expr(a, scope, inner, windows))
      const bound = signature.lambda([T.Unknown, ...rest.map((r) => r.type)])
      const lambda = args[0]!
      if (lambda.node !== "Lambda") return [this.expr(lambda, scope, inner, windows), ...rest]
      if (lambda.args.length !== bound.length)
        refuse(`The lambda of ${node.name} takes ${bound.length} parameter(s)`, lambda)
      const lambdas = new Map(inner.lambdas)
      lambda.args.forEach((a, i) => lambdas.set(a, bound[i]!))
      const body = this.expr(lambda.expr, scope, { ...inner, lambdas }, windows)
      return [{ kind: "lambda", args: lambda.args, expr: body, type: body.type }, ...rest]
    }
    const resolved = resolveArgs()
    const paramExprs = params.map((p) => {
      const r = this.expr(p, scope, BASE_ENV, windows)
      if (!isConst(r)) refuse(`Parameters of ${node.name} must be constants`, p)
      return r
    })
    const filter = node.filter_expr ? this.expr(node.filter_expr, scope, { ...BASE_ENV }, windows) : null
    if (filter && !signature.aggregate) refuse("FILTER (WHERE …) only applies to aggregations", node)
    if (node.distinct && !signature.aggregate) refuse(`DISTINCT only applies to aggregations, not ${node.name}`, node)
    return {
      kind: "call",
      name,
      args: resolved,
      params: paramExprs,
      distinct: node.distinct === true,
      filter,
      type: signature.returns(
        resolved.map((a) => a.type),
        paramExprs.map((p) => p.type)
      )
    }
  }

  private windowFunction(node: A.WindowFunction, scope: Scope, env: Env, windows: ReadonlySet<string>): RExpr {
    const name = canonicalName(node.name)
    const signature = name === undefined ? undefined : SIGNATURES[name]
    if (name === undefined || signature === undefined || (!signature.windowOnly && !signature.aggregate)) {
      return refuse(`'${node.name}' is not a window function`, node)
    }
    const args = countStarArgs(name, [...(node.exprs ?? []), ...(node.args ?? [])])
    if (args.length < signature.minArgs || args.length > signature.maxArgs)
      refuse(
        `Function '${node.name}' expects ${signature.minArgs} to ${signature.maxArgs} arguments, found ${args.length}`,
        node
      )
    // Windows run after GROUP BY, so their arguments may be aggregates (`sum(count()) OVER …`), as in ClickHouse.
    const resolved = args.map((a) => this.expr(a, scope, env, windows))
    let over: RWindow | string
    if (node.over_identifier) {
      if (!windows.has(node.over_identifier)) refuse(`Unknown window "${node.over_identifier}"`, node)
      over = node.over_identifier
    } else {
      over = node.over_expr ? this.window(node.over_expr, scope) : { partitionBy: [], orderBy: [], frame: null }
    }
    return {
      kind: "window",
      name,
      args: resolved,
      over,
      type: signature.returns(
        resolved.map((a) => a.type),
        []
      )
    }
  }
}

/** `count(*)` is `count()`, as in SQL and ClickHouse. */
const countStarArgs = (name: string, args: ReadonlyArray<A.Expr>): ReadonlyArray<A.Expr> =>
  name === "count" &&
  args.length === 1 &&
  args[0]!.node === "Field" &&
  args[0]!.chain.length === 1 &&
  args[0]!.chain[0] === "*"
    ? []
    : args

const isWholeSample = (sample: unknown) => {
  const ratio = (sample as { sample_value?: { left?: { value?: unknown }; right?: unknown } }).sample_value
  return ratio?.left?.value === 1 && ratio.right == null
}

const frameBound = (bound: A.WindowFrameExpr | null | undefined): string => {
  if (!bound || bound.frame_type === "CURRENT ROW") return "CURRENT ROW"
  const value = bound.frame_value
  if (value == null) return `UNBOUNDED ${bound.frame_type}`
  if (!Number.isInteger(value) || value < 0) return refuse("Window frame offsets are whole numbers", bound)
  return `${value} ${bound.frame_type}`
}

const CASTS: Readonly<Record<string, string>> = {
  string: "toString",
  text: "toString",
  varchar: "toString",
  int: "toInt",
  int8: "toInt",
  int16: "toInt",
  int32: "toInt",
  int64: "toInt",
  integer: "toInt",
  bigint: "toInt",
  uint8: "toInt",
  uint16: "toInt",
  uint32: "toInt",
  uint64: "toInt",
  float: "toFloat",
  float32: "toFloat",
  float64: "toFloat",
  double: "toFloat",
  decimal: "toFloat",
  numeric: "toFloat",
  date: "toDate",
  datetime: "toDateTime",
  datetime64: "toDateTime",
  timestamp: "toDateTime",
  uuid: "toUUID",
  bool: "toBool",
  boolean: "toBool"
}

const castFunction = (typeName: string, node: A.Located): string =>
  CASTS[typeName.toLowerCase().replace(/\(.*\)$/, "")] ?? refuse(`Unsupported type in cast: ${typeName}`, node)

const valueExpr = (value: unknown, node: A.Located): RExpr => {
  if (value === null || typeof value === "string" || typeof value === "boolean") return constant(value)
  if (typeof value === "number" && Number.isFinite(value)) return constant(value)
  if (Array.isArray(value)) {
    const exprs = value.map((v) => valueExpr(v, node))
    return {
      kind: "array",
      exprs,
      type: T.array(exprs.length === 0 ? T.Unknown : exprs.map((e) => e.type).reduce(unify))
    }
  }
  return refuse("Placeholder values must be text, numbers, booleans, null or lists of them", node)
}

const and = (exprs: ReadonlyArray<RExpr>): RExpr | null => {
  const kept = exprs.filter((e) => !isTrue(e))
  return kept.length === 0 ? null : kept.length === 1 ? kept[0]! : { kind: "and", exprs: kept, type: T.Bool }
}

const outputs = (query: RQuery): ReadonlyArray<RColumn> =>
  query.kind === "select" ? query.columns : outputs(query.first)

const lookupCte = (scope: Scope, name: string): Cte | undefined => scope.ctes.get(name)

const resolveAlias = (table: VirtualTable, name: string, internal: boolean): VirtualField | undefined => {
  if (name.startsWith("_") && !internal) return undefined
  return Object.hasOwn(table.fields, name) ? table.fields[name] : undefined
}

/** A derived table's field under its defining name (aliases resolved). */
const canonicalField = (table: VirtualTable, name: string): string => {
  const field = table.fields[name]
  return field?.kind === "alias" ? canonicalField(table, field.of) : name
}

const hasField = (source: Source, name: string, internal: boolean) =>
  source.table ? resolveAlias(source.table, name, internal) !== undefined : source.columns!.has(name)

const conjunctsOf = (e: A.Expr): ReadonlyArray<A.Expr> => (e.node === "And" ? e.exprs.flatMap(conjunctsOf) : [e])

/** Whether an expression reads a field any part of whose name is in `names`, `{filters}` included. */
const reads = (node: unknown, names: ReadonlySet<string>, filters: ReadonlyArray<A.Expr>): boolean => {
  if (Array.isArray(node)) return node.some((n) => reads(n, names, filters))
  if (node === null || typeof node !== "object") return false
  const n = node as Partial<A.Field> & { readonly expr?: A.Expr }
  if (n.node === "Field") return n.chain!.some((part) => names.has(String(part)))
  if (n.node === "Placeholder" && n.expr?.node === "Field" && n.expr.chain.join(".") === "filters")
    return reads(filters, names, [])
  return Object.values(node).some((v) => reads(v, names, filters))
}

const ownerOf = (scope: Scope, source: Source): Scope => {
  for (let s: Scope | null = scope; s !== null; s = s.parent)
    if (s.sources.includes(source) || s.lazyJoins.includes(source)) return s
  return scope
}

const containsAggregate = (expr: RExpr): boolean => {
  if (expr.kind === "call") return (SIGNATURES[expr.name]?.aggregate ?? false) || expr.args.some(containsAggregate)
  if (expr.kind === "subquery" || expr.kind === "window") return false
  return Object.values(expr).some((v) =>
    Array.isArray(v) ? v.some((x) => isExpr(x) && containsAggregate(x)) : isExpr(v) && containsAggregate(v)
  )
}

const isExpr = (value: unknown): value is RExpr =>
  typeof value === "object" && value !== null && "kind" in value && "type" in value

/** The name a select column reports: its alias, a field's last name, or the expression as written. */
const columnName = (node: A.Expr): string => {
  if (node.node === "Alias") return node.alias
  if (node.node === "Field") return String(node.chain[node.chain.length - 1])
  return formatExpr(node)
}

/** Resolves a parsed query, or answers why it is not a valid one. */
export const resolveQuery = (
  query: A.SelectLike,
  options: ResolveOptions
): Either.Either<RQuery, ZedQLQueryError | ZedQLSyntaxError> => {
  try {
    return Either.right(new Resolver(options).query(query, null))
  } catch (error) {
    if (error instanceof Refusal) return Either.left(error.error)
    throw error
  }
}
