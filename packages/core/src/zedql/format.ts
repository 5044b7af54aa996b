import type * as A from "./ast.js"

// ZedQL written back out, normalized: operators as the functions they stand for (as PostHog's
// `hogql` field shows them), one spacing, quoting only where needed. Used for the `zedql` field
// of responses and for the names of unaliased result columns.

const COMPARE_FUNCTIONS: Readonly<Record<string, string>> = {
  "==": "equals",
  "!=": "notEquals",
  "<": "less",
  "<=": "lessOrEquals",
  ">": "greater",
  ">=": "greaterOrEquals",
  like: "like",
  "not like": "notLike",
  ilike: "ilike",
  "not ilike": "notILike",
  in: "in",
  "not in": "notIn",
  "global in": "globalIn",
  "global not in": "globalNotIn",
  "=~": "match"
}

const ARITHMETIC_FUNCTIONS = { "+": "plus", "-": "minus", "*": "multiply", "/": "divide", "%": "modulo" } as const

/**
 * An identifier as written: bare when it can be, in backticks otherwise. The grammar
 * takes a backtick inside backticks doubled, not after a backslash.
 */
export const identifier = (name: string | number): string =>
  typeof name === "number" || /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)
    ? String(name)
    : `\`${name.replace(/\\/g, "\\\\").replace(/`/g, "``")}\``

const string = (value: string) => `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`

export const formatExpr = (node: A.Expr): string => {
  switch (node.node) {
    case "Constant":
      return node.value === null
        ? "NULL"
        : typeof node.value === "string"
          ? node.value_type === "number"
            ? node.value.toLowerCase()
            : string(node.value)
          : String(node.value)
    case "Field":
      return node.chain.map((part) => (part === "*" ? part : identifier(part))).join(".")
    case "Alias":
      return `${formatExpr(node.expr)} AS ${identifier(node.alias)}`
    case "Placeholder":
      return `{${formatExpr(node.expr)}}`
    case "Call": {
      const params = node.params ? `(${node.params.map(formatExpr).join(", ")})` : ""
      const filter = node.filter_expr ? ` FILTER (WHERE ${formatExpr(node.filter_expr)})` : ""
      return `${node.name}${params}(${node.distinct ? "DISTINCT " : ""}${node.args.map(formatExpr).join(", ")})${filter}`
    }
    case "ArithmeticOperation":
      return `${ARITHMETIC_FUNCTIONS[node.op]}(${formatExpr(node.left)}, ${formatExpr(node.right)})`
    case "CompareOperation": {
      const name = COMPARE_FUNCTIONS[node.op]
      if (name) return `${name}(${formatExpr(node.left)}, ${formatExpr(node.right)})`
      if (node.op === "!~") return `not(match(${formatExpr(node.left)}, ${formatExpr(node.right)}))`
      if (node.op === "=~*") return `match(${formatExpr(node.left)}, concat('(?i)', ${formatExpr(node.right)}))`
      if (node.op === "!~*") return `not(match(${formatExpr(node.left)}, concat('(?i)', ${formatExpr(node.right)})))`
      return `${formatExpr(node.left)} ${node.op.toUpperCase()} ${formatExpr(node.right)}`
    }
    case "And":
      return `and(${node.exprs.map(formatExpr).join(", ")})`
    case "Or":
      return `or(${node.exprs.map(formatExpr).join(", ")})`
    case "Not":
      return `not(${formatExpr(node.expr)})`
    case "BetweenExpr":
      return `${formatExpr(node.expr)} ${node.negated ? "NOT " : ""}BETWEEN ${formatExpr(node.low)} AND ${formatExpr(node.high)}`
    case "Array":
      return `[${node.exprs.map(formatExpr).join(", ")}]`
    case "Tuple":
      return `tuple(${node.exprs.map(formatExpr).join(", ")})`
    case "ArrayAccess":
      return `${formatExpr(node.array)}${node.nullish ? "?." : ""}[${formatExpr(node.property)}]`
    case "TupleAccess":
      return `${formatExpr(node.tuple)}.${node.index}`
    case "Lambda":
      return `${node.args.length === 1 ? identifier(node.args[0]!) : `(${node.args.map(identifier).join(", ")})`} -> ${formatExpr(node.expr)}`
    case "TypeCast":
      return `CAST(${formatExpr(node.expr)} AS ${node.type_name})`
    case "OrderExpr":
      return `${formatExpr(node.expr)} ${node.order}`
    case "WindowFunction": {
      const args = [...(node.exprs ?? []), ...(node.args ?? [])].map(formatExpr).join(", ")
      const over = node.over_identifier
        ? identifier(node.over_identifier)
        : `(${formatWindow(node.over_expr ?? { node: "WindowExpr" })})`
      return `${node.name}(${args}) OVER ${over}`
    }
    case "SelectQuery":
    case "SelectSetQuery":
      return `(${formatSelect(node)})`
  }
}

const formatFrame = (frame: A.WindowFrameExpr | null | undefined) =>
  !frame || frame.frame_type === "CURRENT ROW"
    ? "CURRENT ROW"
    : `${frame.frame_value ?? "UNBOUNDED"} ${frame.frame_type}`

const formatWindow = (w: A.WindowExpr): string =>
  [
    w.partition_by?.length ? `PARTITION BY ${w.partition_by.map(formatExpr).join(", ")}` : "",
    w.order_by?.length ? `ORDER BY ${w.order_by.map(formatExpr).join(", ")}` : "",
    w.frame_method ? `${w.frame_method} BETWEEN ${formatFrame(w.frame_start)} AND ${formatFrame(w.frame_end)}` : ""
  ]
    .filter((s) => s !== "")
    .join(" ")

const formatJoin = (join: A.JoinExpr, first: boolean): string => {
  const table = join.table ? formatExpr(join.table) : ""
  const alias = join.alias ? ` AS ${identifier(join.alias)}` : ""
  const constraint = join.constraint
    ? join.constraint.constraint_type === "ON"
      ? ` ON ${formatExpr(join.constraint.expr)}`
      : ` USING ${formatExpr(join.constraint.expr)}`
    : ""
  const head = first ? `${table}${alias}` : `${join.join_type ?? "JOIN"} ${table}${alias}${constraint}`
  return join.next_join ? `${head} ${formatJoin(join.next_join, false)}` : head
}

/** A whole query, normalized; `limit` replaces the query's own LIMIT (the one actually applied). */
export const formatSelect = (node: A.SelectLike, limit?: number): string => {
  if (node.node === "SelectSetQuery") {
    const parts = [
      formatSelect(node.initial_select_query),
      ...node.subsequent_select_queries.map((s) => `${s.set_operator} ${formatSelect(s.select_query)}`)
    ]
    return parts.join(" ") + (limit === undefined ? "" : ` LIMIT ${limit}`)
  }
  const clauses = [
    node.ctes?.length
      ? `WITH ${node.ctes.map((c) => (c.cte_type === "column" ? `${formatExpr(c.expr as A.Expr)} AS ${identifier(c.name)}` : `${identifier(c.name)} AS ${formatExpr(c.expr as A.Expr)}`)).join(", ")}`
      : "",
    `SELECT ${node.distinct ? "DISTINCT " : ""}${node.select.map(formatExpr).join(", ")}`,
    node.select_from ? `FROM ${formatJoin(node.select_from, true)}` : "",
    node.array_join_list?.length
      ? `${node.array_join_op ?? "ARRAY JOIN"} ${node.array_join_list.map(formatExpr).join(", ")}`
      : "",
    node.prewhere ? `PREWHERE ${formatExpr(node.prewhere)}` : "",
    node.where ? `WHERE ${formatExpr(node.where)}` : "",
    node.group_by?.length ? `GROUP BY ${node.group_by.map(formatExpr).join(", ")}` : "",
    node.having ? `HAVING ${formatExpr(node.having)}` : "",
    node.window_exprs && Object.keys(node.window_exprs).length > 0
      ? `WINDOW ${Object.entries(node.window_exprs)
          .map(([name, w]) => `${identifier(name)} AS (${formatWindow(w)})`)
          .join(", ")}`
      : "",
    node.order_by?.length ? `ORDER BY ${node.order_by.map(formatExpr).join(", ")}` : "",
    limit !== undefined ? `LIMIT ${limit}` : node.limit ? `LIMIT ${formatExpr(node.limit)}` : "",
    node.offset ? `OFFSET ${formatExpr(node.offset)}` : ""
  ]
  return clauses.filter((c) => c !== "").join(" ")
}
